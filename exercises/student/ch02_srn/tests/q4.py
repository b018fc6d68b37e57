OK_FORMAT = True

test = {   'name': 'q4',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': ">>> fixed = lambda prefix: {'man': 0.5, 'eat': 0.25, '</s>': 0.25}\n"
                                               '>>> got = sample_sentence(fixed, [0.1, 0.6, 0.8, 0.2])\n'
                                               '>>> assert tuple(got) == (\'man\', \'eat\'), f"0.1 < 0.5: man; 0.6 < 0.75: eat; 0.8 < 1.0: </s> (the end): (\'man\', \'eat\'), got {got}"\n'
                                               '>>> got = sample_sentence(fixed, [0.0] * 11, max_words=3)\n'
                                               ">>> assert tuple(got) == ('man', 'man', 'man'), f'stop after max_words words: got {got}'\n"
                                               '>>> got = sample_sentence(elman.next_distribution, [0.0] * 11)\n'
                                               '>>> assert elman.is_member(got), f"the grammar\'s own distribution makes sentences: got {got}"\n'
                                               ">>> share = grammatical_share([('man', 'eat', 'cookie'), ('cookie', 'eat'), ('man',), ()])\n"
                                               ">>> assert abs(share - 0.25) < 1e-09, f'one grammatical sentence of four: 0.25, got {share}'\n"
                                               '>>> assert teacher_forcing in (\'a\', \'b\', \'c\'), \'teacher_forcing: "a", "b" or "c"\'\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
