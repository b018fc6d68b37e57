OK_FORMAT = True

test = {   'name': 'q1',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': ">>> model = hand_set_reverser(TASK.vocab, ('0', '1'), '_', stack_depth=8, actions=False)\n"
                                               '>>> set_actions(model)\n'
                                               ">>> got, surest = actions_on(model, TASK.vocab, '0110____')\n"
                                               ">>> assert got == [2, 0, 0, 0, 0, 1, 1, 1, 1], f'<s> 0110 then 4 blanks: no-op, 4 pushes, 4 pops ([2, 0, 0, 0, 0, 1, 1, 1, 1]), got {got}'\n"
                                               ">>> assert surest > 0.999, f'every action must have probability above 0.999, the least sure has {surest:.4f}'\n"
                                               ">>> got = TASK.predict(model, ['0110', '001'])\n"
                                               ">>> assert got == [tuple('0110'), tuple('100')], f'the reversals of 0110 and 001, got {got}'\n"
                                               ">>> abc = Vocab(['a', 'b', 'c', '_'])\n"
                                               ">>> model = hand_set_reverser(abc, ('a', 'b', 'c'), '_', stack_depth=8, actions=False)\n"
                                               '>>> set_actions(model)\n'
                                               ">>> got, surest = actions_on(model, abc, 'cab____')\n"
                                               ">>> assert got == [2, 0, 0, 0, 1, 1, 1, 2], f'k = 3, <s> cab then 4 blanks: no-op, 3 pushes, 3 pops, no-op over the empty stack, got {got}'\n"
                                               ">>> assert surest > 0.999, f'k = 3: the least sure action has probability {surest:.4f}, not above 0.999'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
