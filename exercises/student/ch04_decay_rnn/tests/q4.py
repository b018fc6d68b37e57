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
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
