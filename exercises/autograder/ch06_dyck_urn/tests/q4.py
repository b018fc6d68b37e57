OK_FORMAT = True

test = {   'name': 'q4',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> acc = shortcut_accuracy_by_attractors(strings)\n'
                                               ">>> assert set(acc) == {k for s in strings for k in attractors(s)}, 'one entry for every attractor count that occurs at a closing bracket, and no "
                                               "other'\n"
                                               ">>> assert acc[0] == 1.0, f'with no attractor the shortcut is always right, got {acc[0]}'\n"
                                               ">>> assert all((0.0 <= a <= 1.0 for a in acc.values())), 'accuracies lie in [0, 1]'\n"
                                               '>>> assert shortcut_reason in (\'a\', \'b\', \'c\'), \'shortcut_reason: "a", "b" or "c"\'\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': '>>> shortcut_accuracy_by_attractors(strings)\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {   'code': '>>> acc = shortcut_accuracy_by_attractors(dyck.sample(300, seed=7, length=16))\n>>> [min(acc, key=acc.get), acc]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {'code': '>>> shortcut_reason\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
