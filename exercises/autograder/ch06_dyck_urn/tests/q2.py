OK_FORMAT = True

test = {   'name': 'q2',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> S = skew(torch.tensor([1.0, 2.0, 3.0]), 3)\n'
                                               '>>> want = torch.tensor([[0.0, 1.0, 2.0], [-1.0, 0.0, 3.0], [-2.0, -3.0, 0.0]])\n'
                                               ">>> assert torch.equal(S, want), f'skew([1, 2, 3], 3) =\\n{S}\\nexpected\\n{want}'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': '>>> skew(torch.randn(10, generator=torch.Generator().manual_seed(1)), 5)\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> skew(torch.randn(7 + 6 + 5, generator=torch.Generator().manual_seed(2)), 8)\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> skew(torch.tensor([2.5]), 4)\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
