OK_FORMAT = True

test = {   'name': 'q3',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> b_f = forget_bias_for_half_life(10)\n'
                                               '>>> b = torch.tensor([-100.0, b_f, 0.0, 0.0])\n'
                                               '>>> h, c = (torch.zeros(1, 1), torch.ones(1, 1))\n'
                                               '>>> for _ in range(10):\n'
                                               '...     h, c = lstm_step(torch.zeros(1, 1), h, c, torch.zeros(4, 1), torch.zeros(4, 1), b)\n'
                                               ">>> assert abs(c.item() - 0.5) < 0.0001, f'after 10 steps C = {c.item():.4f}, not 0.5'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
