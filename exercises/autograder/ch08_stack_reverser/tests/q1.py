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
                                       'points': 0},
                                   {   'code': ">>> model = hand_set_reverser(TASK.vocab, ('0', '1'), '_', stack_depth=300, actions=False)\n"
                                               '>>> set_actions(model)\n'
                                               '>>> string = TASK.transduction.sample(300, 1, seed=11)[0][0]\n'
                                               '>>> sum((w == x for w, x in zip(TASK.predict(model, [string])[0], string[::-1])))\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': ">>> model = hand_set_reverser(TASK.vocab, ('0', '1'), '_', stack_depth=20, actions=False)\n"
                                               '>>> set_actions(model)\n'
                                               ">>> actions_on(model, TASK.vocab, '1' * 5 + '_' * 7)[0]\n",
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': ">>> abcd = Vocab(['a', 'b', 'c', 'd', '_'])\n"
                                               ">>> model = hand_set_reverser(abcd, ('a', 'b', 'c', 'd'), '_', stack_depth=100, actions=False)\n"
                                               '>>> set_actions(model)\n'
                                               ">>> got, surest = actions_on(model, abcd, 'dcbaabcd' * 10 + '_' * 81)\n"
                                               '>>> [got, surest > 0.999]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': ">>> abc = Vocab(['a', 'b', 'c', '_'])\n"
                                               ">>> model = hand_set_reverser(abc, ('a', 'b', 'c'), '_', stack_depth=200, actions=False)\n"
                                               '>>> set_actions(model)\n'
                                               ">>> string = ['abc'[(i * i + 2 * i) % 3] for i in range(200)]\n"
                                               ">>> ids = torch.tensor([[abc.index(s) for s in ['<s>', *string, *'_' * 200]]])\n"
                                               ">>> logits = model.readout(model.trace(ids)['hidden'])[0, 201:, 3:6]\n"
                                               ">>> ''.join(('abc'[i] for i in logits.argmax(-1).tolist())) == ''.join(string[::-1])\n",
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
