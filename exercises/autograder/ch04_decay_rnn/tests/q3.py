OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> got = column_signs(torch.tensor([[1.0, -2.0, 0.0], [0.0, 0.0, 0.0]]))\n'
                                               ">>> assert [int(s) for s in got] == [1, -1, 0], f'expected [1, -1, 0], got {got}'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': '>>> [int(s) for s in column_signs(dale_matrix(decay_case(6, hidden_size=15)[4]))]\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {   'code': '>>> M = torch.tensor([[1.0, -1.0, 0.0, 0.0, 2.0], [2.0, 0.0, 0.0, -3.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.5]])\n'
                                               '>>> [int(s) for s in column_signs(M)] + [int(s) for s in column_signs(decay_case(7, hidden_size=4)[4])]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
