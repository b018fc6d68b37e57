OK_FORMAT = True

test = {   'name': 'q3',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': '>>> lm = KneserNeyLM(order=2).fit(train)\n'
                                               '>>> got = kn_perplexity(lm, test)\n'
                                               ">>> assert 1 < got < len(lm.vocabulary), f'perplexity {got} should lie between 1 and |V|'\n"
                                               '>>> want = lm.perplexity(test)\n'
                                               ">>> assert abs(got - want) < 1e-09, f'perplexity {got}, the library says {want}: count every token'\n"
                                               '>>> assert longer_context in (\'a\', \'b\', \'c\'), \'longer_context: "a", "b" or "c"\'\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
