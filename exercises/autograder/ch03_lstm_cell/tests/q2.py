OK_FORMAT = True

test = {   'name': 'q2',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> xs = torch.randn(6, 2, 4, generator=torch.Generator().manual_seed(0))\n'
                                               '>>> _, _, _, W, U, b = lstm_case(0)\n'
                                               '>>> net = torch.nn.LSTM(4, 5)\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     _ = (net.weight_ih_l0.copy_(W), net.weight_hh_l0.copy_(U), net.bias_ih_l0.copy_(b))\n'
                                               '...     _ = net.bias_hh_l0.zero_()\n'
                                               '...     expected = net(xs)[0]\n'
                                               '>>> out = lstm_run(xs, W, U, b)\n'
                                               ">>> assert out.shape == (6, 2, 5), f'expected shape (6, 2, 5), got {tuple(out.shape)}'\n"
                                               ">>> assert torch.allclose(out, expected, atol=1e-05), 'the hidden states differ from torch.nn.LSTM'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> _, _, _, W, U, b = lstm_case(4)\n>>> lstm_run(torch.randn(9, 3, 4, generator=torch.Generator().manual_seed(4)), W, U, b)\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': '>>> _, _, _, W, U, b = lstm_case(5, input_size=2, hidden_size=3)\n'
                                               '>>> lstm_run(torch.randn(1, 1, 2, generator=torch.Generator().manual_seed(5)), W, U, b)\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': '>>> _, _, _, W, U, b = lstm_case(6, hidden_size=2, scale=3.0)\n'
                                               '>>> lstm_run(torch.randn(25, 2, 4, generator=torch.Generator().manual_seed(6)), W, U, b)[-1]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
