OK_FORMAT = True

test = {   'name': 'q2',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': ">>> assert pdda_accepts(grammar.sample(1, seed=0)[0]), 'a sentence of Grammar 1 was rejected'\n"
                                               '>>> assert not pdda_accepts((\'a\', \'b\')), "\'a b\' is not a sentence (it ends away from the origin)"\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
