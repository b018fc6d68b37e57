OK_FORMAT = True

test = {   'name': 'q3',
    'points': 2,
    'suites': [   {   'cases': [   {   'code': '>>> assert deepest_embedding((\'a\', \'b\', \'c\')) == 1, "\'a b c\' embeds one level"\n'
                                               ">>> assert deepest_embedding(nested(4)) == 4, 'a^4 (b c)^4 embeds four levels'\n",
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
