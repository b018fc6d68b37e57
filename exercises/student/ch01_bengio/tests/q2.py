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
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
