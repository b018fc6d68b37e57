OK_FORMAT = True

test = {   'name': 'q2',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> S = skew(torch.tensor([1.0, 2.0, 3.0]), 3)\n'
                                               '>>> want = torch.tensor([[0.0, 1.0, 2.0], [-1.0, 0.0, 3.0], [-2.0, -3.0, 0.0]])\n'
                                               ">>> assert torch.equal(S, want), f'skew([1, 2, 3], 3) =\\n{S}\\nexpected\\n{want}'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
