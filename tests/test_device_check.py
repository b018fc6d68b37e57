"""The checked device (``COURSE_RNN_DEVICE=checked``): the CPU's numbers, a GPU's refusals.

Each test switches the check on for itself (``checking()``, through tests/conftest.py's
``checked_device``), so that the rest of the suite in this process runs as it would without it.
What CUDA does in each case is written beside it."""

import os
import pickle
import subprocess
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pytest
import torch

from course_rnn.device_check import CheckedTensor
from course_rnn.languages import Vocab
from course_rnn.models import build_model
from course_rnn.training import fit, load_checkpoint, save_checkpoint
from course_rnn.utils import pick_device

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 – after the backend is chosen

VOCAB = Vocab("ab")
PERIODIC = ["ab" * n for n in range(1, 8)]


@pytest.fixture
def device(checked_device):
    """The checked device for one test (tests/conftest.py: skipped beside a real GPU)."""
    return checked_device


def on_device(device, *shape):
    return torch.arange(float(np.prod(shape))).reshape(shape).to(device)


def tiny_fit(device, epochs=6):
    model = build_model("srn", vocab_size=len(VOCAB), hidden_size=6, seed=0)
    history = fit(model, VOCAB, PERIODIC, epochs=epochs, batch_size=4, lr=0.05, valid=PERIODIC,
                  progress=False, device=device)
    return model, history


def without_clocks(history):
    return [{k: v for k, v in epoch.items() if k != "seconds"} for epoch in history.epochs]


def test_pick_device_names_it(device, monkeypatch):
    assert pick_device("checked") == device
    monkeypatch.setenv("COURSE_RNN_DEVICE", "checked")
    assert pick_device().type == "checked"
    assert pick_device("cpu").type == "cpu"  # an explicit device still wins


def test_numpy_of_a_device_tensor_fails_naming_the_fix(device):
    x = on_device(device, 2, 3)
    with pytest.raises(TypeError, match=r"Tensor\.cpu\(\)"):
        x.numpy()  # CUDA: "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() …"
    with pytest.raises(TypeError, match="numpy"):
        np.asarray(x)


def test_cpu_brings_it_back_as_a_plain_tensor(device):
    x = on_device(device, 2, 3)
    back = x.cpu()
    assert type(back) is torch.Tensor and back.device.type == "cpu"
    assert np.array_equal(back.numpy(), np.arange(6.0).reshape(2, 3))
    assert type(x.to("cpu")) is torch.Tensor
    assert x.numpy(force=True).shape == (2, 3)  # CUDA copies across for force=True too


def test_numbers_come_out_as_on_cuda(device):
    x = on_device(device, 2, 3)
    assert x[1, 2].item() == 5.0
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert float(x.sum()) == 15.0
    assert "device='checked'" in repr(x)


def test_results_stay_on_the_device(device):
    x = on_device(device, 2, 3)
    for result in (x * 2, x.sum(), x[0], x.T @ x, torch.softmax(x, -1), x.to(torch.float64),
                   torch.zeros(3, device=x.device), torch.zeros_like(x)):
        assert isinstance(result, CheckedTensor) and result.device == device


def test_a_cpu_tensor_mixed_with_a_device_tensor_fails(device):
    x = on_device(device, 2, 3)
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        x + torch.ones(2, 3)  # CUDA: the same words, "… cuda:0 and cpu!"
    with pytest.raises(RuntimeError, match="same device"):
        torch.ones(3) * x.sum()  # a 0-dim tensor on the GPU is not a CPU number
    with pytest.raises(RuntimeError, match="same device"):
        torch.equal(x, x.cpu())  # a test comparing across devices
    with pytest.raises(AssertionError, match="device"):
        torch.testing.assert_close(x, x.cpu())
    layer = torch.nn.Linear(3, 2)  # left on the CPU
    with pytest.raises(RuntimeError, match="same device"):
        layer(x)


def test_what_cuda_allows_across_devices_is_allowed(device):
    x = on_device(device, 3, 2)
    assert (x + torch.tensor(1.0)).device == device  # a 0-dim CPU tensor is a number
    assert x[torch.tensor([0, 2])].shape == (2, 2)  # CPU index tensors are copied over
    assert x[torch.tensor([True, False, True])].shape == (2, 2)
    y = x.clone()
    y[0:2] = torch.ones(2, 2)  # a plain slice copies across
    y[torch.tensor([0])] = torch.tensor(7.0)  # … and so does a 0-dim value
    assert y.cpu()[:, 0].tolist() == [7.0, 1.0, 4.0] and y[2, 1].item() == 5.0
    target = torch.zeros(3, 2)
    target.copy_(x)
    assert type(target) is torch.Tensor and target.equal(x.cpu())


def test_what_cuda_refuses_across_devices_is_refused(device):
    x = on_device(device, 3, 2)
    with pytest.raises(RuntimeError, match="same device"):
        x[torch.tensor([0, 1])] = torch.ones(2, 2)  # a CPU value through index tensors
    with pytest.raises(RuntimeError, match="same device"):
        torch.zeros(3)[torch.tensor([0, 1]).to(device)]  # a device index into a CPU tensor
    with pytest.raises(RuntimeError, match="same device"):
        torch.tensor(0.0).add_(x.sum())  # writing a device result into a CPU tensor
    with pytest.raises(RuntimeError, match="generator"):
        torch.multinomial(torch.softmax(x, -1), 1, generator=torch.Generator())
    with pytest.raises(RuntimeError, match="generator"):
        torch.randn(2, device=device, generator=torch.Generator())


def test_a_plot_of_a_device_tensor_fails_and_of_its_cpu_copy_works(device):
    x = on_device(device, 5)
    figure, axes = plt.subplots()
    try:
        with pytest.raises(TypeError, match=r"Tensor\.cpu\(\)"):
            axes.plot(x)
        axes.plot(x.cpu())
    finally:
        plt.close(figure)


def test_fit_gives_the_cpu_numbers_and_leaves_the_model_on_the_device(device):
    cpu_model, cpu_history = tiny_fit("cpu")
    model, history = tiny_fit(device)
    assert without_clocks(history) == without_clocks(cpu_history)
    assert history.settings["device"] == "checked"
    for name, parameter in model.named_parameters():
        assert isinstance(parameter, CheckedTensor) and isinstance(parameter, torch.nn.Parameter)
        assert parameter.device == device and isinstance(parameter.grad, CheckedTensor)
        assert torch.equal(parameter.cpu(), dict(cpu_model.named_parameters())[name].detach())


def test_a_model_moves_there_and_back(device):
    model = torch.nn.LSTM(3, 4)
    model.to(device)
    assert all(isinstance(p, CheckedTensor) for p in model.parameters())
    model.to("cpu")
    assert all(type(p) is torch.nn.Parameter for p in model.parameters())
    like = torch.nn.Linear(2, 2).to(torch.zeros(1).to(device))  # to(tensor): where it is
    assert isinstance(like.weight, CheckedTensor)


def test_a_checkpoint_saves_and_loads(device, tmp_path):
    model, history = tiny_fit(device, epochs=2)
    path = save_checkpoint(model, VOCAB, tmp_path / "model.pt", history)
    saved = torch.load(path, weights_only=True)  # plain tensors: the file of a CPU run
    assert all(type(t) is torch.Tensor for t in saved["state_dict"].values())
    loaded, _ = load_checkpoint(path, device=device)
    assert all(isinstance(p, CheckedTensor) for p in loaded.parameters())
    on_cpu, _ = load_checkpoint(path, device="cpu")
    for a, b in zip(loaded.parameters(), on_cpu.parameters()):
        assert torch.equal(a.cpu(), b.detach())


def test_a_pickled_device_tensor_comes_back_on_the_device(device):
    """As a GPU worker's result does (experiments' worker processes pickle their results)."""
    model = torch.nn.Linear(2, 2).to(device)
    again = pickle.loads(pickle.dumps(model))
    assert all(isinstance(p, CheckedTensor) and isinstance(p, torch.nn.Parameter)
               for p in again.parameters())
    assert torch.equal(again.weight.cpu(), model.weight.cpu())


def test_cuda_after_the_check_is_a_clear_error(device, monkeypatch):
    """Once the spare device type is named "checked", PyTorch takes it for the accelerator and a
    backward pass on CUDA fails deep inside its engine (an H200, session 33): pick_device says so
    first, whether CUDA is asked for or chosen because it is there."""
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    with pytest.raises(ValueError, match="'cuda' cannot be used in this process.*checked"):
        pick_device("cuda")
    monkeypatch.delenv("COURSE_RNN_DEVICE", raising=False)
    with pytest.raises(ValueError, match="'cuda' cannot be used in this process.*checked"):
        pick_device()


def test_the_check_after_cuda_is_a_clear_error():
    """The other order: a process that has used CUDA cannot name the spare device type."""
    code = ("import torch\ntorch.cuda.is_initialized = lambda: True\n"
            "from course_rnn.device_check import checked_device\nchecked_device()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1
    assert "RuntimeError: the checked device cannot be used in a process that has used CUDA" in (
        done.stderr), done.stderr[-2000:]


def test_outside_the_check_nothing_changes():
    x = torch.ones(2)
    assert type(x * 2) is torch.Tensor and x.numpy().tolist() == [1.0, 1.0]


def test_make_test_runs_the_library_tests_checked_so_a_numpy_of_a_device_tensor_fails(tmp_path):
    """`make test`'s main pytest line sets the check; under it a GPU mistake fails a test that
    passes on the plain CPU."""
    makefile = (Path(__file__).resolve().parents[1] / "Makefile").read_text()
    recipe = makefile.split("\ntest:")[1].split("\n\n")[0].replace("\\\n", " ")
    line = next(ln for ln in recipe.splitlines() if "pytest -n 2" in ln)
    assert "COURSE_RNN_DEVICE=checked" in line
    mistake = tmp_path / "test_a_gpu_mistake.py"
    mistake.write_text("import torch\nfrom course_rnn.utils import pick_device\n\n\n"
                       "def test_it():\n    torch.zeros(2).to(pick_device()).numpy()\n")

    def run(device: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               str(mistake)], cwd=tmp_path, capture_output=True, text=True,
                              env=os.environ | {"COURSE_RNN_DEVICE": device})

    assert run("cpu").returncode == 0  # on the plain CPU the mistake passes unseen
    checked = run("checked")
    assert checked.returncode == 1 and "Tensor.cpu()" in checked.stdout, checked.stdout[-2000:]


def test_make_test_builds_the_chapters_checked_so_a_notebook_s_numpy_of_a_device_tensor_fails(
        tmp_path):
    """`make test`'s book build (and `make notebooks-elsewhere`) execute the chapters under the
    check; there a chapter cell's GPU mistake fails, as it would on a GPU (session 31's first
    checked build found one in chapter 3 part 2)."""
    makefile = (Path(__file__).resolve().parents[1] / "Makefile").read_text()
    for target in ("book-elsewhere", "notebooks-elsewhere"):
        recipe = makefile.split(f"\n{target}:")[1].split("\n\n")[0]
        assert "COURSE_RNN_DEVICE=checked" in recipe, target
    import nbformat

    cell = ("import torch\nfrom course_rnn.utils import pick_device\n"
            "states = torch.zeros(2, 3).to(pick_device())\nstates[0].numpy()")
    notebook = tmp_path / "chapter.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)]), notebook)

    def run(device: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "--nbval-lax", "--nbval-current-env", str(notebook)],
                              cwd=tmp_path, capture_output=True, text=True, timeout=300,
                              env=os.environ | {"COURSE_RNN_DEVICE": device})

    assert run("cpu").returncode == 0  # on the plain CPU the mistake passes unseen
    checked = run("checked")
    assert checked.returncode == 1 and "Tensor.cpu()" in checked.stdout, checked.stdout[-2000:]
