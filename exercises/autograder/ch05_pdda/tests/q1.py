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
                                       'points': 0},
                                   {'code': ">>> [pdda_step(z, 'a') for z in [(0.5, -3.0), (-1.5, 0.5), (-1.25, -1.75)]]\n", 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': ">>> [pdda_step((-1.5, -1.5), 'b'), pdda_step((-1.5, 0.5), 'c'), pdda_step((-1.25, 0.25), 'c')]\n", 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': ">>> pdda_step((-1.0, 1.0), 'b')\n", 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': ">>> pdda_step((1.0, 1.0), 'c')\n", 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
