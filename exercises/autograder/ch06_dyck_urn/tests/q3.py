OK_FORMAT = True

test = {   'name': 'q3',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> h = torch.randn(4, 6, generator=torch.Generator().manual_seed(0))\n'
                                               '>>> params = torch.randn(15, generator=torch.Generator().manual_seed(1))\n'
                                               '>>> out = urn_step(h, params, 6)\n'
                                               ">>> assert out.shape == (4, 6), f'expected shape (4, 6), got {tuple(out.shape)}'\n"
                                               ">>> assert torch.allclose(out.norm(dim=1), h.norm(dim=1), atol=1e-05), 'Q is a rotation: norms must stay'\n"
                                               ">>> assert not torch.allclose(out, h), 'the state did not move'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': '>>> urn_step(torch.eye(5)[:1], torch.randn(10, generator=torch.Generator().manual_seed(3)), 5)\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {   'code': '>>> g = torch.Generator().manual_seed(4)\n>>> urn_step(torch.randn(3, 6, generator=g), torch.randn(5 + 4, generator=g), 6)\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': '>>> g = torch.Generator().manual_seed(5)\n'
                                               '>>> h = torch.eye(4)[:1]\n'
                                               '>>> for x in torch.randn(6, 6, generator=g) * 0.5:\n'
                                               '...     h = urn_step(h, x, 4)\n'
                                               '>>> h\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
