import pytest
import torch

from course_rnn.utils import current_scale, pick_device, seed_everything


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
    assert current_scale() == "default"
    assert current_scale("paper") == "paper"
    monkeypatch.setenv("COURSE_RNN_SCALE", "paper")
    assert current_scale() == "paper"
    with pytest.raises(ValueError, match="unknown scale"):
        current_scale("huge")
