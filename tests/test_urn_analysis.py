"""The URN embedding analyses on hand-built rotations, where the answers are known."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from course_rnn.analysis.urn import (
    average_effect,
    frobenius_similarity,
    matrix_distance,
    pair_effect,
    pairwise_distances,
    phrase_matrices,
    plane_similarities,
    plane_similarity,
    rotation_planes,
    signature,
)
from course_rnn.languages.vocab import Vocab
from course_rnn.models.urn import URN

FAST = settings(max_examples=25, deadline=None)


def givens(n: int, *rotations: tuple[int, int, float]) -> np.ndarray:
    """Rotations by θ in the (i, j) coordinate planes, e.g. givens(4, (0, 1, θ))."""
    q = np.eye(n)
    for i, j, theta in rotations:
        r = np.eye(n)
        r[i, i] = r[j, j] = np.cos(theta)
        r[i, j], r[j, i] = -np.sin(theta), np.sin(theta)
        q = r @ q
    return q


def random_orthogonal(n: int, seed: int) -> np.ndarray:
    q, _ = np.linalg.qr(np.random.default_rng(seed).normal(size=(n, n)))
    return q


# -- average effect and distances ---------------------------------------------------------------


@FAST
@given(n=st.integers(2, 9), theta=st.floats(0.01, np.pi - 0.01), seed=st.integers(0, 10_000))
def test_one_plane_rotation_has_signature_theta_and_effect_4_minus_4cos(n, theta, seed):
    basis = random_orthogonal(n, seed)  # the same rotation seen in any orthonormal basis
    q = basis @ givens(n, (0, 1, theta)) @ basis.T
    assert signature(q) == pytest.approx([theta], abs=1e-6)
    assert signature(q, degrees=True) == pytest.approx([np.degrees(theta)], abs=1e-4)
    # the plane changes 2 coordinates by (cos θ − 1) and adds 2 off-diagonal sin θ:
    # 2(1 − cos θ)² + 2 sin² θ = 2(2 − 2 cos θ)
    assert average_effect(q) == pytest.approx(2 * (2 - 2 * np.cos(theta)))
    assert average_effect(q) == pytest.approx(2 * (n - np.trace(q)))


def test_average_effect_is_n_times_the_mean_displacement_of_a_unit_state():
    q = givens(6, (0, 3, 1.1), (1, 4, 2.5))
    states = np.random.default_rng(0).normal(size=(200_000, 6))
    states /= np.linalg.norm(states, axis=1, keepdims=True)
    displacement = np.mean(np.sum((states @ q.T - states) ** 2, axis=1))
    assert average_effect(q) == pytest.approx(6 * displacement, rel=0.01)


def test_distances_and_similarities_of_orthogonal_matrices():
    p, q = givens(5, (0, 1, 0.4)), givens(5, (1, 2, 1.3), (3, 4, 0.2))
    n = 5
    assert matrix_distance(p, q) == pytest.approx(2 * (n - frobenius_similarity(p, q)))
    assert frobenius_similarity(q, q) == pytest.approx(n)
    assert matrix_distance(q, q) == 0.0
    d = pairwise_distances([p, q, torch.eye(5)])
    assert d.shape == (3, 3)
    assert np.allclose(d, d.T) and np.allclose(np.diag(d), 0)
    assert d[0, 2] == pytest.approx(average_effect(p))


def test_pair_effect_is_the_effect_of_the_close_after_open_product():
    o = givens(4, (0, 1, 0.9))
    c_inverse = o.T
    assert pair_effect(o, c_inverse) == pytest.approx(0.0, abs=1e-20)  # a perfect matching pair
    a, b = givens(4, (0, 1, 0.7)), givens(4, (1, 2, 1.2))  # they do not commute
    assert pair_effect(a, b) == pytest.approx(np.sum((b @ a - np.eye(4)) ** 2))
    assert pair_effect(a, b) != pytest.approx(np.sum((a @ b - np.eye(4)) ** 2) + 1.0)
    assert pair_effect(a, a) == pytest.approx(average_effect(givens(4, (0, 1, 1.4))))


# -- signatures and planes ------------------------------------------------------------------------


def test_signature_lists_one_angle_per_plane_largest_first():
    q = givens(7, (0, 1, 0.3), (2, 5, 2.9), (3, 6, 1.0))
    assert signature(q) == pytest.approx([2.9, 1.0, 0.3])
    assert len(signature(np.eye(6))) == 0
    assert signature(givens(4, (0, 2, np.pi))) == pytest.approx([np.pi])  # eigenvalues −1, −1
    assert signature(torch.tensor(givens(3, (1, 2, 0.5)), dtype=torch.float32)) == pytest.approx(
        [0.5], abs=1e-6
    )


def test_rotation_planes_recover_the_planes_and_angles():
    basis = random_orthogonal(6, seed=3)
    q = basis @ givens(6, (0, 1, 0.4), (2, 3, 2.0), (4, 5, np.pi)) @ basis.T
    angles, planes = rotation_planes(q)
    assert angles == pytest.approx([np.pi, 2.0, 0.4])
    assert planes.shape == (3, 2, 6)
    expected = [basis[:, [4, 5]].T, basis[:, [2, 3]].T, basis[:, [0, 1]].T]
    for plane, truth in zip(planes, expected, strict=True):
        assert plane_similarity(plane, truth) == pytest.approx(2.0)
    # each plane is rotated within itself: Q maps its span to its span
    for plane in planes:
        assert plane_similarity(plane, (q @ plane.T).T) == pytest.approx(2.0)


def test_plane_similarity_is_2_for_equal_planes_and_0_for_orthogonal_ones():
    e = np.eye(4)
    xy, zw = e[[0, 1]], e[[2, 3]]
    turned = np.stack([(e[0] + e[1]) / np.sqrt(2), (e[0] - e[1]) / np.sqrt(2)])  # same plane
    assert plane_similarity(xy, turned) == pytest.approx(2.0)
    assert plane_similarity(xy, zw) == pytest.approx(0.0)
    assert plane_similarity(xy, e[[0, 2]]) == pytest.approx(1.0)  # one shared axis
    tilted = np.stack([e[0], (e[1] + e[2]) / np.sqrt(2)])  # tilted by 45° about the x axis
    assert plane_similarity(xy, tilted) == pytest.approx(1 + np.cos(np.pi / 4))


def test_plane_similarities_compare_every_plane_of_one_embedding_with_every_plane_of_another():
    a = givens(6, (0, 1, 2.0), (2, 3, 0.5))
    b = givens(6, (0, 1, 1.0), (4, 5, 0.2), (2, 3, 3.0))
    table = plane_similarities(a, b)
    # rows: planes of a (2.0 in xy, 0.5 in zw); columns: planes of b (3.0, 1.0, 0.2)
    assert table == pytest.approx(np.array([[0, 2, 0], [2, 0, 0]]), abs=1e-9)
    assert plane_similarities(np.eye(4), a[:4, :4]).shape == (0, 2)


def test_a_k_truncated_urn_rotates_at_most_k_planes():
    full = URN(6, hidden_size=10, init_range=1.0, seed=0)
    truncated = URN(6, hidden_size=10, k=2, init_range=1.0, seed=0)
    for symbol in range(6):
        assert len(signature(truncated.embedding(symbol))) <= 2
        assert len(rotation_planes(truncated.embedding(symbol))[0]) <= 2
    assert max(len(signature(full.embedding(s))) for s in range(6)) > 2


def test_phrase_matrices_of_a_model():
    vocab = Vocab("()[]")
    model = URN(len(vocab), hidden_size=6, init_range=0.7, seed=1).eval()
    mats = phrase_matrices(model, vocab, ["(", ")", "( )", "( [ ] )"])
    o, c = mats["("], mats[")"]
    assert np.allclose(mats["( )"], c @ o, atol=1e-6)
    assert pair_effect(o, c) == pytest.approx(average_effect(mats["( )"]), rel=1e-5)
    with pytest.raises(ValueError, match="'x'"):
        phrase_matrices(model, vocab, ["( x"])


# -- bad input ------------------------------------------------------------------------------------


def test_bad_matrices_get_clear_errors():
    with pytest.raises(ValueError, match="square matrix"):
        average_effect(np.ones((2, 3)))
    with pytest.raises(ValueError, match="square matrix"):
        signature(np.ones(4))
    with pytest.raises(ValueError, match="not orthogonal"):
        signature(2 * np.eye(3))
    with pytest.raises(ValueError, match="reflection"):
        signature(np.diag([1.0, 1.0, -1.0]))
    with pytest.raises(ValueError, match="different sizes"):
        matrix_distance(np.eye(2), np.eye(3))
    with pytest.raises(ValueError, match="orthonormal"):
        plane_similarity(np.ones((2, 3)), np.eye(3)[:2])
    with pytest.raises(ValueError, match="\\[2, n\\]"):
        plane_similarity(np.eye(3), np.eye(3)[:2])
    with pytest.raises(TypeError, match="real matrix"):
        average_effect({"not": "a matrix"})
    with pytest.raises(ValueError, match="at least one"):
        pairwise_distances([])
