OK_FORMAT = True

test = {   'name': 'q4',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': ">>> words = tuple('the key to the cabinets is old'.split())\n"
                                               '>>> got = count_attractors(words, 1, 5)\n'
                                               '>>> assert got == 1, f"\'cabinets\' is the one attractor of \'key\', got {got}"\n'
                                               ">>> ex = agreement.annotate('the keys near the table that the guards like are old')\n"
                                               '>>> assert count_attractors(ex.sentence, ex.subject_index, ex.verb_index) == 1, "\'table\' is an attractor, \'guards\' agrees with \'keys\'"\n'
                                               '>>> assert balanced_reason in (\'a\', \'b\', \'c\'), \'balanced_reason: "a", "b" or "c"\'\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> [int(count_attractors(e.sentence, e.subject_index, e.verb_index)) for e in agreement.sample_examples(60, seed=3)]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': ">>> sentences = ['the authors said the key near the doors behind the cars is old', 'no pilot that the surgeons admire has ever been popular', 'the "
                                               "farmers the teacher sees smile', 'the box is new']\n"
                                               '>>> [int(count_attractors(ex.sentence, ex.subject_index, ex.verb_index)) for ex in map(agreement.annotate, sentences)]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': '>>> examples = agreement.sample_examples(500, seed=4)\n'
                                               '>>> counts = [int(count_attractors(e.sentence, e.subject_index, e.verb_index)) for e in examples]\n'
                                               '>>> [counts.count(k) / len(counts) for k in range(4)]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {'code': '>>> balanced_reason\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
