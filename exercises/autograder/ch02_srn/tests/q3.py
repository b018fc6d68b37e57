OK_FORMAT = True

test = {   'name': 'q3',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': ">>> got = next_word_entropy(('man', 'eat'))\n"
                                               '>>> assert abs(got - math.log2(3)) < 1e-09, f"\'man eat\' is followed by 1 of 3 foods: log2(3), got {got}"\n'
                                               ">>> got = next_word_entropy(('man', 'eat', 'cookie'))\n"
                                               '>>> assert abs(got) < 1e-09, f"after \'man eat cookie\' only </s> can come: 0 bits, got {got}"\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> try:\n'
                                               "...     next_word_entropy(('cookie',))\n"
                                               '...     raise AssertionError("no sentence starts with \'cookie\': raise ValueError")\n'
                                               '... except ValueError:\n'
                                               '...     pass\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': ">>> prefixes = [(), ('dragon',), ('man', 'break'), ('cat', 'move'), ('woman',), ('lion', 'eat')]\n"
                                               '>>> [float(next_word_entropy(p)) for p in prefixes]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': '>>> starts = {t[0] for t in elman.templates}\n>>> {c: float(next_word_entropy((elman.categories[c][0],))) for c in sorted(starts)}\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {'code': ">>> next_word_entropy(('plate', 'break'))\n", 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
