OK_FORMAT = True

test = {   'name': 'q4',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': ">>> assert pdda_accepts_rounded(nested(2), 1), 'depth 2 needs z = (-1.5, -1.5): one bit after the point is enough'\n"
                                               ">>> assert not pdda_accepts_rounded(nested(2), 0), 'with no bit after the point, -1.5 rounds down to -2: after b, z_2 = 0 and c cannot be read'\n"
                                               '>>> assert not pdda_accepts_rounded((\'a\', \'b\'), 3), "rounding or not, \'a b\' is not a sentence"\n'
                                               '>>> got = deepest_nesting(lambda sentence: len(sentence) < 10, max_depth=5)\n'
                                               ">>> assert got == 3, f'nested(k) has 3k words: an acceptor of fewer than 10 words stops at k = 3, got {got}'\n"
                                               ">>> assert deepest_nesting(lambda sentence: False) == 0, 'nothing accepted: 0'\n"
                                               '>>> assert bits_per_level in (\'a\', \'b\', \'c\'), \'bits_per_level: "a", "b" or "c"\'\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> sentences = grammar.sample(40, seed=31)\n>>> [[pdda_accepts_rounded(s, bits) for s in sentences] for bits in (1, 2, 4)]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': '>>> [deepest_nesting(lambda s, bits=bits: pdda_accepts_rounded(s, bits), max_depth=24) for bits in (2, 5, 8, 13, 18)]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': '>>> [deepest_nesting(pdda_accepts, max_depth=80), deepest_nesting(lambda s: len(s) <= 111, max_depth=80)]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {'code': '>>> bits_per_level\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
