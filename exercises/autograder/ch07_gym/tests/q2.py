OK_FORMAT = True

test = {   'name': 'q2',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': ">>> got = [tuple((float(v) for v in state)) for state in rotation_states(math.pi / 2, 'aab')]\n"
                                               '>>> want = [(0.0, 1.0), (-1.0, 0.0), (0.0, 1.0)]\n'
                                               ">>> assert len(got) == 3 and all((abs(g - w) < 1e-09 for s, t in zip(got, want) for g, w in zip(s, t))), f'a quarter turn per a, back per b, from (1, "
                                               "0): {want}, got {got}'\n"
                                               '>>> got = longest_counted(1.0, n_max=10)\n'
                                               ">>> assert got == 5, f'θ = 1: a^6 turns the state by 6 radians, 0.28 from a full turn, closer to the start than sin(1/2) = 0.48 before the end: N = 5, "
                                               "got {got}'\n"
                                               '>>> assert angle_limit in (\'a\', \'b\', \'c\'), \'angle_limit: "a", "b" or "c"\'\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': ">>> [[float(v) for v in state] for state in rotation_states(0.3, 'aabab')]\n", 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> [longest_counted(theta) for theta in (0.5, 0.2, 0.1)]\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> angle_limit\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
