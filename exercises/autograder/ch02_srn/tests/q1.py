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
                                       'points': 0},
                                   {'code': '>>> srn_step(*srn_case(1))\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> srn_step(*srn_case(2, batch=1, input_size=1, hidden_size=1))\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> srn_step(*srn_case(3, batch=2, hidden_size=7, scale=3.0))\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
