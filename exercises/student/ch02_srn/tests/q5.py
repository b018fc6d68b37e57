OK_FORMAT = True

test = {   'name': 'q5',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': ">>> bound = loss_lower_bound()\n>>> assert 0 < bound < math.log(len(elman.alphabet) + 1), f'{bound} is not between 0 and log(30)'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
