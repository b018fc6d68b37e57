OK_FORMAT = True

test = {   'name': 'q1',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': ">>> for s, want in [('([])', [0, 1]), ('(())', [0, 0]), ('({}[])', [0, 0, 2])]:\n"
                                               '...     got = attractors(s)\n'
                                               "...     assert list(got) == want, f'attractors({s!r}) = {got}, expected {want}'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
