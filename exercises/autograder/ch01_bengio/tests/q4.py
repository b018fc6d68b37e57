OK_FORMAT = True

test = {   'name': 'q4',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': '>>> got = mixture_weight([0.5, 0.5], [0.1, 0.1], [0.0, 0.5, 1.0])\n'
                                               ">>> assert got == 1.0, f'the MLP gives every token 0.5, the count model 0.1: all weight on the MLP, got {got}'\n"
                                               '>>> got = mixture_weight([0.9, 0.1], [0.1, 0.9], [0.0, 0.25, 0.5, 0.75, 1.0])\n'
                                               ">>> assert got == 0.5, f'each model is sure of one token and wrong about the other: λ = 0.5, got {got}'\n"
                                               '>>> got = mixture_weight([0.5], [0.5], [0.75, 0.25])\n'
                                               ">>> assert got == 0.75, f'both models give 0.5, every λ ties: the first of the grid, got {got}'\n"
                                               '>>> r = mixture_perplexities([0.5], [0.1], [0.25, 0.25], [0.5, 0.5], [0.0, 1.0])\n'
                                               ">>> assert set(r) == {'lambda', 'MLP', 'KN', 'mixture'}, f'the keys are lambda, MLP, KN, mixture: {sorted(r)}'\n"
                                               ">>> assert r['lambda'] == 1.0 and abs(r['MLP'] - 4) < 1e-09 and (abs(r['KN'] - 2) < 1e-09), f'λ from the validation tokens (1.0), perplexities 4 (MLP) "
                                               "and 2 (KN) on the test tokens: {r}'\n"
                                               '>>> assert abs(r[\'mixture\'] - 4) < 1e-09, f"with λ = 1 the mixture is the MLP: 4, got {r[\'mixture\']}"\n'
                                               '>>> assert mixture_reason in (\'a\', \'b\', \'c\'), \'mixture_reason: "a", "b" or "c"\'\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> g = torch.Generator().manual_seed(7)\n'
                                               '>>> a, b = (torch.rand(50, generator=g).tolist(), torch.rand(50, generator=g).tolist())\n'
                                               '>>> [mixture_weight(a, b, [i / 10 for i in range(11)]), mixture_weight(b, a, [0.0, 0.5, 1.0])]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {'code': '>>> mixture_weight(p_mlp_valid, p_kn_valid, [i / 20 for i in range(21)])\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> mixture_perplexities(p_mlp_valid, p_kn_valid, p_mlp_test, p_kn_test, [i / 20 for i in range(21)])\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> mixture_reason\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
