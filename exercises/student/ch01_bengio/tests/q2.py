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
                                       'points': 0}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
