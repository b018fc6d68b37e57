OK_FORMAT = True

test = {   'name': 'q4',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> lm = KneserNeyLM(order=2).fit(train)\n'
                                               '>>> got = kn_perplexity(lm, test)\n'
                                               ">>> assert 1 < got < len(lm.vocabulary), f'perplexity {got} should lie between 1 and |V|'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
