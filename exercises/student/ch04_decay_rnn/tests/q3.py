OK_FORMAT = True

test = {   'name': 'q3',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': '>>> xs, U, b = positive_case(1, steps=4)\n'
                                               '>>> got = influence_by_distance(xs, U, b, torch.zeros(10, 10, dtype=torch.float64), 0.5)\n'
                                               ">>> assert len(got) == 4, f'one influence per input, T = 4: got {len(got)}'\n"
                                               '>>> want = float(0.5 * U.sum(0).norm())\n'
                                               ">>> assert abs(got[0] - want) < 1e-09, f's = 0: (1 - α) ||Σ_j U_j|| = {want:.6f}, got {got[0]:.6f}'\n"
                                               '>>> ratios = [g / got[0] for g in got]\n'
                                               ">>> assert all((abs(r - 0.5 ** s) < 1e-09 for s, r in enumerate(ratios))), f'without recurrence the influence shrinks by α = 0.5 per step back: ratios "
                                               "{ratios}'\n"
                                               '>>> assert older_words in (\'a\', \'b\', \'c\'), \'older_words: "a", "b" or "c"\'\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
