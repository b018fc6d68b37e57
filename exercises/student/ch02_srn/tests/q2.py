OK_FORMAT = True

test = {   'name': 'q2',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> xs = torch.randn(6, 2, 4, generator=torch.Generator().manual_seed(0))\n'
                                               '>>> _, h0, W, U, b = srn_case(0, batch=2)\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     from_zero = torch_rnn(W, U, b)(xs)[0]\n'
                                               '...     from_h0 = torch_rnn(W, U, b)(xs, h0[None])[0]\n'
                                               '>>> out = srn_run(xs, W, U, b)\n'
                                               ">>> assert out.shape == (6, 2, 5), f'expected shape (6, 2, 5), got {tuple(out.shape)}'\n"
                                               ">>> assert torch.allclose(out, from_zero, atol=1e-05), 'from zero, the states differ from torch.nn.RNN'\n"
                                               '>>> out = srn_run(xs, W, U, b, h0)\n'
                                               ">>> assert torch.allclose(out, from_h0, atol=1e-05), 'starting from h0, the states differ'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
