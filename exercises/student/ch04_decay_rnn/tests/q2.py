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
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
