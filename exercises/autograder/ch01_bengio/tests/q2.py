OK_FORMAT = True

test = {   'name': 'q2',
    'points': 4,
    'suites': [   {   'cases': [   {   'code': '>>> p = kn_unigram(toy)\n'
                                               ">>> vocabulary = {w for s in toy for w in s} | {'</s>', '<unk>'}\n"
                                               ">>> assert set(p) == vocabulary, f'the keys are the training words, </s> and <unk>: extra {sorted(set(p) - vocabulary)}, missing {sorted(vocabulary - "
                                               "set(p))}'\n"
                                               ">>> assert abs(sum(p.values()) - 1) < 1e-09, f'the probabilities sum to {sum(p.values())}, not 1'\n"
                                               '>>> lm = KneserNeyLM(order=2).fit(toy)\n'
                                               ">>> for w in ('san', 'francisco', '</s>', '<unk>'):\n"
                                               '...     want = lm.prob_by_order(w)[1]\n'
                                               "...     assert abs(p.get(w, 0) - want) < 1e-09, f'P_KN({w!r}) = {p.get(w)}, the library says {want}'\n"
                                               '>>> assert kn_favours in (\'francisco\', \'glasses\'), \'kn_favours: "francisco" or "glasses"\'\n'
                                               '>>> assert kn_reason in (\'a\', \'b\', \'c\'), \'kn_reason: "a", "b" or "c"\'\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {'code': ">>> [float(kn_unigram(toy)[w]) for w in ('francisco', 'glasses', 'san', '</s>', '<unk>')]\n", 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> {w: float(p) for w, p in kn_unigram(train, discount=0.5).items()}\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> p = kn_unigram(toy + train, discount=0.9)\n>>> sorted(p, key=lambda w: (-round(p[w], 9), w))[:6]\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> [kn_favours, kn_reason]\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
