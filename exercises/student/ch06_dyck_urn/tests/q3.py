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
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
