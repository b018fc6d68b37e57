OK_FORMAT = True

test = {   'name': 'q1',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> _, _, U, b, W, alpha = decay_case(0)\n'
                                               '>>> got = dale_matrix(W)\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     want = library_cell(U, b, W, alpha).recurrent_matrix()\n'
                                               ">>> assert got.shape == W.shape, f'expected shape {tuple(W.shape)}, got {tuple(got.shape)}'\n"
                                               '>>> assert torch.allclose(got, want), "W_dale differs from the library\'s: ReLU(W) D scales the columns"\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': '>>> dale_matrix(decay_case(1)[4])\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> [dale_matrix(decay_case(2, hidden_size=H)[4]) for H in (7, 15)]\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> [dale_matrix(torch.tensor([[w]])) for w in (2.0, -2.0)]\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
