"""Every language is reachable by name and shares the same face."""

import pytest

from course_rnn.languages import EOS, LANGUAGES, Vocab, make_batch, make_language


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_every_language_has_the_common_face(name):
    lang = make_language(name)
    strings = lang.sample(5, seed=0)
    assert strings == lang.sample(5, seed=0)
    assert all(lang.is_member(s) for s in strings)
    assert EOS not in lang.alphabet
    # every sampled string ends where the language allows the end marker, and every prefix
    # allows the symbol that actually follows
    for s in strings:
        assert EOS in lang.valid_next(s)
        for t in range(len(s)):
            assert s[t] in lang.valid_next(s[:t])
    # and every language tokenises through the shared vocabulary
    batch = make_batch(Vocab(lang.alphabet), strings)
    assert batch.inputs.shape[0] == 5


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_foreign_symbols_are_named(name):
    lang = make_language(name)
    with pytest.raises(ValueError, match="NOT-A-SYMBOL"):
        lang.is_member(("NOT-A-SYMBOL",))


def test_unknown_language_lists_the_choices():
    with pytest.raises(ValueError, match="dyck"):
        make_language("klingon")
