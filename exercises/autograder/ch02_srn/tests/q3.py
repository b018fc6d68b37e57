OK_FORMAT = True

test = {   'name': 'q3',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': '>>> grads = [torch.tensor([3.0, 0.0]), torch.tensor([[0.0], [4.0]])]\n'
                                               '>>> got = clip_gradients(grads, 1.0)\n'
                                               ">>> assert abs(got - 5.0) < 1e-09, f'the global norm of (3, 0) and (0, 4) is 5, got {got}'\n"
                                               ">>> assert torch.allclose(grads[0], torch.tensor([0.6, 0.0])) and torch.allclose(grads[1], torch.tensor([[0.0], [0.8]])), f'scaled by 1/5 in place: "
                                               "got {grads}'\n"
                                               '>>> grads = [torch.tensor([0.3, 0.4])]\n'
                                               '>>> got = clip_gradients(grads, 1.0)\n'
                                               ">>> assert abs(got - 0.5) < 1e-09 and torch.equal(grads[0], torch.tensor([0.3, 0.4])), 'a norm below max_norm: return it, leave the gradient alone'\n"
                                               '>>> losses, norms = train_relu_srn(1.0, steps=3)\n'
                                               ">>> assert len(norms) == 3 and norms[0] > 1, f'the first gradient norm, measured by you: {norms}'\n"
                                               '>>> assert divergence in (\'a\', \'b\', \'c\'), \'divergence: "a", "b" or "c"\'\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> g = torch.Generator().manual_seed(4)\n'
                                               '>>> grads = [torch.randn(3, 2, generator=g, dtype=torch.float64), torch.randn(5, generator=g, dtype=torch.float64)]\n'
                                               '>>> norm = clip_gradients(grads, 0.5)\n'
                                               '>>> [norm, grads]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': '>>> grads = [torch.tensor([0.1, -0.2], dtype=torch.float64), torch.tensor([0.2], dtype=torch.float64)]\n'
                                               '>>> [clip_gradients(grads, 2.0), grads, clip_gradients([torch.tensor([0.001])], 0.001)]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': '>>> losses, norms = train_relu_srn(1.0)\n>>> [losses[:10], norms[:10], all(map(math.isfinite, losses)), sum(losses[-10:]) / 10 < 2.9]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {'code': '>>> losses, norms = train_relu_srn(math.inf)\n>>> [norms[0], math.isfinite(losses[-1]), divergence]\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
