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
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
