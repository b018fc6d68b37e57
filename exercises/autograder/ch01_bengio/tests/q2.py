OK_FORMAT = True

test = {   'name': 'q2',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': ">>> got = perplexity([1 / 20] * 7)\n>>> assert abs(got - 20) < 1e-09, f'always 1/20: perplexity 20, got {got}'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> try:\n'
                                               '...     perplexity([0.5, 0.0])\n'
                                               "...     raise AssertionError('a probability 0 means infinite perplexity: raise ValueError')\n"
                                               '... except ValueError:\n'
                                               '...     pass\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': '>>> float(perplexity([0.5, 0.25, 0.125]))\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> float(perplexity(torch.rand(100, generator=torch.Generator().manual_seed(5)).tolist()))\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {   'code': '>>> def outcome(probabilities):\n'
                                               '...     try:\n'
                                               '...         return float(perplexity(probabilities))\n'
                                               '...     except ValueError:\n'
                                               "...         return 'ValueError'\n"
                                               '>>> [outcome(p) for p in ([], [1.0], [0.3, 1.5], [0.2, -0.1], [1 / 37] * 3)]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
