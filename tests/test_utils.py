import pytest
import torch

from course_rnn.utils import (
    current_scale,
    machine_class,
    machine_facts,
    pick_device,
    seed_everything,
    seed_offset,
)


def test_seed_everything_reproduces_torch_draws():
    seed_everything(3)
    a = torch.rand(4)
    seed_everything(3)
    assert torch.equal(a, torch.rand(4))


def test_seed_must_be_an_integer():
    with pytest.raises(ValueError, match="seed"):
        seed_everything("3")


def test_device_is_automatic_and_overridable(monkeypatch):
    monkeypatch.delenv("COURSE_RNN_DEVICE", raising=False)
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert pick_device().type == expected
    assert pick_device("cpu").type == "cpu"
    monkeypatch.setenv("COURSE_RNN_DEVICE", "cpu")
    assert pick_device().type == "cpu"
    with pytest.raises(ValueError, match="unknown device"):
        pick_device("tpu-please")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the no-GPU error")
def test_cuda_without_gpu_is_a_clear_error():
    with pytest.raises(ValueError, match="no CUDA"):
        pick_device("cuda")


def test_scales(monkeypatch):
    monkeypatch.delenv("COURSE_RNN_SCALE", raising=False)
    assert current_scale() == "quick"
    assert current_scale("paper") == "paper"
    monkeypatch.setenv("COURSE_RNN_SCALE", "paper")
    assert current_scale() == "paper"
    with pytest.raises(ValueError, match="unknown scale"):
        current_scale("huge")
    # one name per scale: the book's is "quick", and its old name is refused, saying so
    monkeypatch.setenv("COURSE_RNN_SCALE", "default")
    with pytest.raises(ValueError, match="unknown scale 'default'.*called 'quick'"):
        current_scale()


def test_a_seed_offset_shifts_every_seed_the_library_draws_from(monkeypatch):
    """$COURSE_RNN_SEED_OFFSET = N: seed s draws what seed s + N draws without it — weights,
    data and batch order alike — and results.json records N."""
    from course_rnn.languages import AnBn
    from course_rnn.languages.vocab import batch_order
    from course_rnn.models import build_model

    def draws(seed):
        weights = build_model("srn", vocab_size=4, hidden_size=3, seed=seed).state_dict()
        return (torch.cat([w.flatten() for w in weights.values()]),
                AnBn(1, 20).sample(5, seed=seed), batch_order(30, 7, seed=seed)[0],
                seed_everything(seed).initial_seed())

    monkeypatch.delenv("COURSE_RNN_SEED_OFFSET", raising=False)
    plain = draws(1000)
    monkeypatch.setenv("COURSE_RNN_SEED_OFFSET", "1000")
    shifted = draws(0)
    assert torch.equal(plain[0], shifted[0]) and plain[1] == shifted[1]
    assert torch.equal(plain[2], shifted[2]) and plain[3] == shifted[3]
    assert machine_facts()["seed_offset"] == 1000
    monkeypatch.setenv("COURSE_RNN_SEED_OFFSET", "0")
    assert not torch.equal(draws(0)[0], shifted[0])


@pytest.mark.parametrize("bad", ["-1", "x", "1.5"])
def test_a_bad_seed_offset_is_a_clear_error(monkeypatch, bad):
    monkeypatch.setenv("COURSE_RNN_SEED_OFFSET", bad)
    with pytest.raises(ValueError, match="COURSE_RNN_SEED_OFFSET: expected an integer"):
        seed_offset()
    with pytest.raises(ValueError, match="COURSE_RNN_SEED_OFFSET"):
        seed_everything(0)


def test_machine_facts_name_what_decides_the_last_bits():
    facts = machine_facts()
    assert facts["kernel_capability"] == torch.backends.cpu.get_cpu_capability()
    assert set(machine_class(facts)) == {"cpu", "architecture", "kernel_capability",
                                          "mkl_cbwr", "torch"}
