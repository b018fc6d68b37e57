OK_FORMAT = True

test = {   'name': 'q2',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': ">>> assert pdda_accepts(grammar.sample(1, seed=0)[0]), 'a sentence of Grammar 1 was rejected'\n"
                                               '>>> assert not pdda_accepts((\'a\', \'b\')), "\'a b\' is not a sentence (it ends away from the origin)"\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> rng = np.random.default_rng(11)\n'
                                               '>>> [pdda_accepts(corrupt(s, grammar.alphabet, rng) if rng.random() < 0.5 else s) for s in grammar.sample(40, seed=11)]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': '>>> rng = np.random.default_rng(12)\n'
                                               '>>> [pdda_accepts(corrupt(s, grammar.alphabet, rng) if rng.random() < 0.7 else s) for s in grammar.sample(40, seed=12)]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {'code': ">>> [pdda_accepts(s) for s in [(), ('c',), ('a', 'b', 'c'), ('a', 'a', 'b', 'c', 'b', 'c')]]\n", 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
