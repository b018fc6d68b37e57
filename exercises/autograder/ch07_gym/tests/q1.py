OK_FORMAT = True

test = {   'name': 'q1',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': ">>> for kind in ('srn', 'gru', 'lstm'):\n"
                                               '...     want = build_model(kind, vocab_size=5, hidden_size=8).num_parameters()\n'
                                               '...     got = parameter_count(kind, 5, 8)\n'
                                               '...     assert got == want, f"{kind}, V = 5, H = 8: the library\'s model has {want} parameters, you count {got}"\n'
                                               '>>> assert gate_ratio in (\'a\', \'b\', \'c\'), \'gate_ratio: "a", "b" or "c"\'\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': ">>> [parameter_count(kind, 7, 16) for kind in ('srn', 'gru', 'lstm')]\n", 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': ">>> [parameter_count(kind, 95, 50) for kind in ('srn', 'gru', 'lstm')]\n", 'hidden': True, 'locked': False, 'points': 1},
                                   {   'code': ">>> {name: parameter_count('lstm', V, GYM_HIDDEN) / parameter_count('srn', V, GYM_HIDDEN) for name, V in GYM_VOCAB.items()}\n",
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {'code': '>>> gate_ratio\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
