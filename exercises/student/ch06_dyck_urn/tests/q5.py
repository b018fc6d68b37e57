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
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
