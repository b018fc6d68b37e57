OK_FORMAT = True

test = {   'name': 'q2',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> from course_rnn.training import length_generalisation\n'
                                               ">>> untrained = build_model('lstm', vocab_size=len(TASK.vocab), hidden_size=4, seed=0)\n"
                                               '>>> want = length_generalisation(untrained, TASK, [6], 5, samples=50, seed=3).at(6)\n'
                                               '>>> got = reversal_accuracy(untrained, 6, samples=50, seed=3)\n'
                                               ">>> assert abs(float(got) - want) < 1e-09, f'an untrained LSTM at length 6 (50 strings, seed 3): {want:.4f}, got {got}'\n"
                                               ">>> assert break_length({1: 1.0, 2: 0.97, 3: 0.9, 4: 0.99}) == 3, 'the first length below 0.95 of {1: 1.0, 2: 0.97, 3: 0.9, 4: 0.99} is 3'\n"
                                               '>>> assert break_length({5: 0.5, 1: 0.99}) == 5, "the smallest length below the threshold, whatever the dict\'s order: {5: 0.5, 1: 0.99} → 5"\n'
                                               ">>> assert break_length({1: 1.0, 2: 0.96}) is None, 'no accuracy below 0.95: None'\n"
                                               ">>> assert break_length({1: 1.0, 2: 0.96}, threshold=0.99) == 2, 'threshold=0.99: 0.96 is below it'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
