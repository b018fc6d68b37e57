OK_FORMAT = True

test = {   'name': 'q1',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': ">>> got = perplexity([1 / 20] * 7)\n>>> assert abs(got - 20) < 1e-09, f'always 1/20: perplexity 20, got {got}'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': ">>> for probabilities, why in [([0.5, 0.0], 'a probability 0 means infinite perplexity'), ([], 'no tokens: the perplexity is undefined'), ([0.5, 1.2], "
                                               "'1.2 is not a probability'), ([0.4, -0.5], '-0.5 is not a probability')]:\n"
                                               '...     try:\n'
                                               '...         perplexity(probabilities)\n'
                                               '...     except ValueError:\n'
                                               '...         continue\n'
                                               "...     raise AssertionError(f'{why}: raise ValueError')\n"
                                               ">>> assert abs(perplexity([1.0, 1.0]) - 1) < 1e-09, 'a model sure of every token has perplexity 1'\n",
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
                                               '>>> [outcome(p) for p in ([], [1.0], [0.3, 1.5], [0.2, -0.1], [0.9, 1 / 37, 0.4])]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
