OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> got = column_signs(torch.tensor([[1.0, -2.0, 0.0], [0.0, 0.0, 0.0]]))\n'
                                               ">>> assert [int(s) for s in got] == [1, -1, 0], f'expected [1, -1, 0], got {got}'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
