OK_FORMAT = True

test = {   'name': 'q1',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': '>>> W, U, b = counter_weights()\n'
                                               ">>> got = count_trace(W, U, b, 'aab')\n"
                                               ">>> assert max((abs(c - want) for c, want in zip(got, [1, 2, 1]))) < 0.25, f'after a, aa, aab the cell should hold 1, 2, 1 steps: it holds {[round(c, "
                                               "3) for c in got]}'\n"
                                               '>>> got = counted_up_to(W, U, b, 10)\n'
                                               '>>> assert got == 10, f"the count is wrong for a^{got + 1} b^{got + 1}: look at count_trace(W, U, b, \'a\' * {got + 1} + \'b\' * {got + 1}); is any '
                                               'gate leaking?"\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
