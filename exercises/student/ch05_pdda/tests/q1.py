OK_FORMAT = True

test = {   'name': 'q1',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': ">>> assert np.allclose(pdda_step((0, 0), 'a'), (-1, -1)), 'reading a at the origin should give (-1, -1)'\n"
                                               ">>> assert np.allclose(pdda_step((-1, -1), 'b'), (-1, 1)), 'b adds (0, 2)'\n"
                                               ">>> assert np.allclose(pdda_step((-1, 1), 'c'), (0, 0)), 'c maps z to 2 (z + (1, -1))'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> try:\n'
                                               "...     pdda_step((0.0, 0.0), 'b')\n"
                                               "...     raise AssertionError('b cannot be read at the origin: raise ValueError')\n"
                                               '... except ValueError:\n'
                                               '...     pass\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
