OK_FORMAT = True

test = {   'name': 'q1',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> x, h, W, U, b = srn_case(0)\n'
                                               '>>> h_t = srn_step(x, h, W, U, b)\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     h_ref = torch_cell(W, U, b)(x, h)\n'
                                               ">>> assert h_t.shape == h_ref.shape, f'h_t has shape {tuple(h_t.shape)}, expected {tuple(h_ref.shape)}'\n"
                                               ">>> assert torch.allclose(h_t, h_ref, atol=1e-05), 'h_t differs from torch.nn.RNNCell'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
