OK_FORMAT = True

test = {   'name': 'q2',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': '>>> xs, w = ([0.3, -1.0, 0.8, 0.1, 2.0, -0.4], 1.3)\n'
                                               '>>> states = [torch.zeros((), dtype=torch.float64, requires_grad=True)]\n'
                                               '>>> for x in xs:\n'
                                               '...     states.append(torch.tanh(w * states[-1] + x))\n'
                                               '...     states[-1].retain_grad()\n'
                                               '>>> states[-1].backward()\n'
                                               '>>> want = [float(s.grad) for s in states[:-1]] + [1.0]\n'
                                               '>>> got = state_gradients(xs, w)\n'
                                               ">>> assert len(got) == len(xs) + 1, f'T = {len(xs)}: T + 1 = {len(xs) + 1} gradients, got {len(got)}'\n"
                                               '>>> for t, (g, a) in enumerate(zip(got, want)):\n'
                                               "...     assert abs(g - a) < 1e-09, f'dh_T/dh_{t} = {g}, autograd says {a}'\n"
                                               '>>> got = memory_span([0.0] * 10, 0.5)\n'
                                               ">>> assert got == 6, f'the state stays at 0, each step halves the gradient: 0.5^6 >= 0.01 > 0.5^7, a span of 6; got {got}'\n"
                                               '>>> assert vanishing_reason in (\'a\', \'b\', \'c\'), \'vanishing_reason: "a", "b" or "c"\'\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
