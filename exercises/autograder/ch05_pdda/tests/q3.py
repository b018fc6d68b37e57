OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> assert deepest_embedding((\'a\', \'b\', \'c\')) == 1, "\'a b c\' embeds one level"\n'
                                               ">>> assert deepest_embedding(nested(4)) == 4, 'a^4 (b c)^4 embeds four levels'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': '>>> [deepest_embedding(s) for s in grammar.sample(30, seed=21)]\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {   'code': '>>> depths = [deepest_embedding(s) for s in grammar.sample(300, seed=22)]\n>>> [max(depths), [depths.count(d) for d in range(1, max(depths) + 1)]]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
