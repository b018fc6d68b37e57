OK_FORMAT = True

test = {   'name': 'q1',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': '>>> case = bengio_case(0)\n'
                                               '>>> got = bengio_logits(*case)\n'
                                               '>>> with torch.no_grad():\n'
                                               '...     want = library_model(*case[1:])(case[0])\n'
                                               ">>> assert got.shape == want.shape, f'expected shape {tuple(want.shape)}, got {tuple(got.shape)}'\n"
                                               ">>> assert torch.allclose(got, want, atol=1e-05), 'y differs from BengioMLP: check the order of x'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': ">>> for case, missing in [(bengio_case(0, direct=False), 'without W (None)'), (bengio_case(0, hidden=0), 'without a hidden layer (H, d, U None)')]:\n"
                                               '...     with torch.no_grad():\n'
                                               '...         want = library_model(*case[1:])(case[0])\n'
                                               "...     assert torch.allclose(bengio_logits(*case), want, atol=1e-05), f'{missing}, y is wrong'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': '>>> bengio_logits(*bengio_case(1))\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> bengio_logits(*bengio_case(2, vocab_size=11, context=4, embedding_dim=3, direct=False))\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> bengio_logits(*bengio_case(3, hidden=0))\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> bengio_logits(*bengio_case(4, batch=1, vocab_size=3, context=1, embedding_dim=5, hidden=2))\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
