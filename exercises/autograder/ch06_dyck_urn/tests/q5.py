OK_FORMAT = True

test = {   'name': 'q5',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': '>>> flip = lambda h, s: -h\n'
                                               ">>> got = [float(d) for d in return_distances(flip, torch.tensor([[3.0, 4.0]]), '(', 4)]\n"
                                               ">>> assert len(got) == 4, f'one distance per push, k_max = 4: got {len(got)}'\n"
                                               ">>> assert max((abs(d - w) for d, w in zip(got, [10.0, 0.0, 10.0, 0.0]))) < 1e-09, f'h -> -h from (3, 4): 10, 0, 10, 0 away from the start; got "
                                               "{got}'\n"
                                               ">>> got = float(return_distances(contracting_push, h0, '(', 1)[0])\n"
                                               ">>> assert abs(got - 1 / 3) < 1e-09, f'one contracting push of ( moves (1, 0, 0, 0) to (4/3, 0, 0, 0): 1/3, got {got}'\n"
                                               '>>> assert rotation_reason in (\'a\', \'b\', \'c\'), \'rotation_reason: "a", "b" or "c"\'\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> turn = torch.tensor([[math.cos(1.0), -math.sin(1.0)], [math.sin(1.0), math.cos(1.0)]], dtype=torch.float64)\n'
                                               ">>> [float(d) for d in return_distances(lambda h, s: h @ turn.T, torch.tensor([[0.0, 2.0]], dtype=torch.float64), 'x', 7)]\n",
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': '>>> closest = []\n'
                                               ">>> for symbol in '([':\n"
                                               '...     d = [float(x) for x in return_distances(urn_push, h0, symbol, 200)]\n'
                                               '...     closest += [min(d), d.index(min(d)) + 1]\n'
                                               '>>> closest\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {   'code': ">>> d = [float(x) for x in return_distances(contracting_push, h0, '[', 100)]\n>>> [d[0], d[9], d[99], min(d)]\n",
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {'code': '>>> rotation_reason\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
