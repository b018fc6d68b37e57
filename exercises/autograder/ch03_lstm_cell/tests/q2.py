OK_FORMAT = True

test = {   'name': 'q2',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': ">>> got = largest_counted_n(1.0, 0.3, 'relu', n_max=10)\n"
                                               ">>> assert got == 10, f'h = relu(h + 0.3) then relu(h - 0.3) returns exactly to 0: 10, got {got}'\n"
                                               ">>> got = largest_counted_n(1.0, 1.0, 'tanh', n_max=10)\n"
                                               ">>> assert got == 1, f'tanh: a b goes 0.76, -0.23 (counted); a a b b goes 0.76, 0.94, -0.06: |h| < 0.5 one step early, so N = 1, got {got}'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': ">>> [largest_counted_n(1.0, u, 'tanh') for u in (0.003, 0.03, 0.3)]\n", 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': ">>> [largest_counted_n(w, 0.1, 'relu') for w in (0.9, 1.0, 1.1)]\n", 'hidden': True, 'locked': False, 'points': 1},
                                   {   'code': ">>> max(((largest_counted_n(w, u, 'tanh'), w, u) for w in (0.8, 0.98, 1.0, 1.02, 1.3) for u in (0.005, 0.04, 0.08, 0.25)))\n",
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
