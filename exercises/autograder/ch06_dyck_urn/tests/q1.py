OK_FORMAT = True

test = {   'name': 'q1',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': ">>> for s, want in [('([])', [0, 1]), ('(())', [0, 0]), ('({}[])', [0, 0, 2])]:\n"
                                               '...     got = attractors(s)\n'
                                               "...     assert list(got) == want, f'attractors({s!r}) = {got}, expected {want}'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': '>>> [attractors(s) for s in strings[:50]]\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': ">>> [attractors(s) for s in ['<{+-}>', '(((([{}]))))', '+-+-', '<(<>)>']]\n", 'hidden': True, 'locked': False, 'points': 1},
                                   {   'code': '>>> counts = [k for s in strings for k in attractors(s)]\n>>> [max(counts), [counts.count(k) for k in range(max(counts) + 1)]]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
