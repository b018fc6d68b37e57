OK_FORMAT = True

test = {   'name': 'q3',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> b_f = forget_bias_for_half_life(10)\n'
                                               '>>> cell = lstm_cell(torch.zeros(4, 2), torch.zeros(4, 1), torch.tensor([-100.0, b_f, 0.0, 0.0]))\n'
                                               '>>> C0 = torch.ones(1, 1, dtype=torch.float64, requires_grad=True)\n'
                                               '>>> state = (torch.zeros(1, 1, dtype=torch.float64), C0)\n'
                                               '>>> for _ in range(10):\n'
                                               '...     state = cell(torch.zeros(1, 2, dtype=torch.float64), state)\n'
                                               '>>> gradient, = torch.autograd.grad(state[1].sum(), C0)\n'
                                               ">>> assert abs(state[1].item() - 0.5) < 0.0001, f'after 10 steps C = {state[1].item():.4f}, not 0.5'\n"
                                               ">>> assert abs(gradient.item() - 0.5) < 0.0001, f'dC_10/dC_0 = {gradient.item():.4f}, not 0.5'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': '>>> [forget_bias_for_half_life(T) for T in (1, 3)]\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> forget_bias_for_half_life(100)\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> [forget_bias_for_half_life(T) for T in (2, 5, 1000)]\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
