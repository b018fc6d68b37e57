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
                                       'points': 0},
                                   {   'code': '>>> xs, U, b = positive_case(2, steps=8, input_size=3, hidden_size=5)\n'
                                               '>>> influence_by_distance(2 * xs - 1, U, b - 0.5, torch.zeros(5, 5, dtype=torch.float64), 0.8)\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': '>>> xs, U, b = positive_case(3)\n'
                                               '>>> ratios = []\n'
                                               '>>> for alpha in (0.2, 0.5, 0.8, 0.95, 0.99):\n'
                                               '...     influence = influence_by_distance(2 * xs - 1, U, b, torch.zeros(10, 10, dtype=torch.float64), alpha)\n'
                                               '...     ratios.append(influence[5] / influence[0])\n'
                                               '>>> ratios\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': '>>> xs, U, b = positive_case(0)\n'
                                               '>>> influence = influence_by_distance(xs, U, b, torch.full((10, 10), 0.5, dtype=torch.float64), 0.8)\n'
                                               '>>> [influence[s] / influence[0] for s in (1, 5, 11)]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {'code': '>>> older_words\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
