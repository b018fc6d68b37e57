OK_FORMAT = True

test = {   'name': 'q3',
    'points': 3,
    'suites': [   {   'cases': [   {   'code': '>>> from course_rnn.training import History\n'
                                               ">>> assert isinstance(lstm_history, History), f'lstm_history: the History that fit returns, got {type(lstm_history).__name__}'\n"
                                               ">>> assert lstm_history.converged, 'the LSTM must fit the training lengths first (history.converged): train as stated'\n"
                                               ">>> assert sorted(lstm_accuracies) == list(range(1, 16)), f'lstm_accuracies: lengths 1 … 15, got {sorted(lstm_accuracies)}'\n"
                                               ">>> assert lstm_break == break_length(lstm_accuracies), 'lstm_break: break_length(lstm_accuracies)'\n"
                                               '>>> assert where_it_breaks in (\'a\', \'b\', \'c\'), \'where_it_breaks: "a", "b" or "c"\'\n',
                                       'hidden': False,
                                       'locked': False,
                                       'points': 0},
                                   {   'code': '>>> [sorted(vars(lstm_history)), lstm_history.converged, lstm_history.convergence.stopped, lstm_break, [lstm_accuracies[n] >= 0.95 for n in (1, 2, 3, '
                                               '4, 5, 12, 13, 14, 15)]]\n',
                                       'hidden': True,
                                       'locked': False,
                                       'points': 1},
                                   {'code': '>>> stack_break\n', 'hidden': True, 'locked': False, 'points': 1},
                                   {'code': '>>> where_it_breaks\n', 'hidden': True, 'locked': False, 'points': 1}],
                      'scored': True,
                      'setup': '',
                      'teardown': '',
                      'type': 'doctest'}]}
