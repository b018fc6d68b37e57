OK_FORMAT = True

test = {   'name': 'q1',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': '>>> x, h, c, W, U, b = lstm_case(0)\n'
                                               '>>> h_t, c_t = lstm_step(x, h, c, W, U, b)\n'
                                               '>>> h_ref, c_ref = torch_cell(W, U, b)(x, (h, c))\n'
                                               ">>> assert h_t.shape == h_ref.shape, f'h_t has shape {tuple(h_t.shape)}, expected {tuple(h_ref.shape)}'\n"
                                               ">>> assert torch.allclose(c_t, c_ref, atol=1e-05), 'C_t differs from torch.nn.LSTMCell: check i, f, g'\n"
                                               ">>> assert torch.allclose(h_t, h_ref, atol=1e-05), 'C_t is right but h_t is not: check o_t * tanh(C_t)'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': '>>> lstm_step(*lstm_case(1))[1]\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> lstm_step(*lstm_case(1))[0]\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> lstm_step(*lstm_case(2, batch=1, input_size=1, hidden_size=1))\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> lstm_step(*lstm_case(3, batch=2, hidden_size=7, scale=4.0))\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
