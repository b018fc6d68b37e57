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
                                       'points': 0},
                                   {   'code': ">>> untrained = build_model('lstm', vocab_size=len(TASK.vocab), hidden_size=6, seed=4)\n"
                                               '>>> [reversal_accuracy(untrained, n, samples=40, seed=n) for n in (1, 3, 9)]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': '>>> [reversal_accuracy(hand_set_reverser(TASK.vocab, stack_depth=d), 60, samples=5, seed=2) for d in (20, 60)]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': '>>> [break_length({3: 0.2, 2: 0.3, 9: 0.99}), break_length({4: 0.95, 5: 0.94}), break_length({1: 0.8}, threshold=0.5), break_length({2: 0.6, 7: 0.7}, '
                                               'threshold=0.65)]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
