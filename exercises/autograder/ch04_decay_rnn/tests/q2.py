OK_FORMAT = True

test = {   'name': 'q2',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> x, h, U, b, W, alpha = decay_case(0)\n'
                                               '>>> got = decay_step(x, h, U, b, W, alpha)\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     want = library_cell(U, b, W, alpha).step(h, x)\n'
                                               ">>> assert got.shape == want.shape, f'expected shape {tuple(want.shape)}, got {tuple(got.shape)}'\n"
                                               '>>> assert torch.allclose(got, want, atol=1e-05), "h_t differs from the library\'s DecayRNN.step"\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': '>>> decay_step(*decay_case(3))\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> decay_step(*decay_case(4, batch=1, input_size=2, hidden_size=15, scale=2.0))\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {   'code': '>>> x, h, U, b, W, alpha = decay_case(5, hidden_size=6, scale=0.5)\n>>> for _ in range(20):\n...     h = decay_step(x, h, U, b, W, alpha)\n>>> h\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
