"""Reading a URN's embeddings as matrices (Bernardy & Lappin 2022, §3 and §5.1; 2023, §6.1).

A URN's word embeddings are orthogonal matrices, and the matrix of a phrase is the product of
its words' matrices, so a trained model can be studied with linear algebra alone, with no data:

* :func:`average_effect` – ‖Q − I‖², how much Q moves the state on average;
* :func:`matrix_distance` / :func:`pairwise_distances` – ‖P − Q‖² between words or phrases;
* :func:`signature` – the rotation angles of Q (one per rotation plane);
* :func:`rotation_planes` / :func:`plane_similarity` / :func:`plane_similarities` – *which*
  planes two embeddings rotate, and how much those planes overlap;
* :func:`pair_effect` – ‖Q(c) Q(o) − I‖², how close a matching bracket pair is to doing nothing;
* :func:`phrase_matrices` – the matrices of phrases written as strings, from a model and a vocab.

Every function takes matrices as torch tensors or numpy arrays and returns numpy values (float64),
so they work the same on hand-built rotations and on ``model.embedding(i)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import scipy.linalg
import torch

from course_rnn.models.urn import compose_matrices


def _as_matrix(matrix, name: str = "matrix") -> np.ndarray:
    """A square float64 numpy matrix from a tensor or an array-like, with a clear error."""
    if isinstance(matrix, torch.Tensor):
        matrix = matrix.detach().cpu().double().numpy()
    try:
        matrix = np.asarray(matrix, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a real matrix, got {type(matrix).__name__}") from None
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {matrix.shape}")
    return matrix


def _as_rotation(matrix, name: str = "matrix", tol: float = 1e-4) -> np.ndarray:
    """Like :func:`_as_matrix`, and check QᵀQ = I and det Q = +1 (within ``tol``)."""
    q = _as_matrix(matrix, name)
    error = np.abs(q.T @ q - np.eye(len(q))).max()
    if error > tol:
        raise ValueError(f"{name} is not orthogonal: max |QᵀQ − I| = {error:.2g} > {tol:g}")
    if np.linalg.det(q) < 0:
        raise ValueError(f"{name} is a reflection (det = −1), not a rotation: it has no signature")
    return q


def _same_size(p: np.ndarray, q: np.ndarray) -> None:
    if p.shape != q.shape:
        raise ValueError(f"matrices of different sizes cannot be compared: {p.shape} vs {q.shape}")


# -- distances ----------------------------------------------------------------------------------


def frobenius_similarity(p, q) -> float:
    """⟨P, Q⟩ = Σ_ij P_ij Q_ij, the matrix analogue of cosine similarity (B&L 2022, §3).

    For orthogonal P, Q: E_s ⟨Ps, Qs⟩ = ⟨P, Q⟩ / n over unit states s, and ⟨Q, Q⟩ = n.
    """
    p, q = _as_matrix(p, "p"), _as_matrix(q, "q")
    _same_size(p, q)
    return float(np.sum(p * q))


def matrix_distance(p, q) -> float:
    """‖P − Q‖² (squared Frobenius norm), the distance of B&L 2022 Table 2.

    For orthogonal P, Q it equals 2(n − ⟨P, Q⟩), and E_s ‖Ps − Qs‖² = ‖P − Q‖² / n over states s
    drawn uniformly from the unit sphere.
    """
    p, q = _as_matrix(p, "p"), _as_matrix(q, "q")
    _same_size(p, q)
    return float(np.sum((p - q) ** 2))


def average_effect(q) -> float:
    """‖Q − I‖², the *average effect* of an embedding (B&L 2022, §3, Table 1 and Table 4).

    It is n times the mean squared displacement E_s ‖Qs − s‖² of a random unit state, and for an
    orthogonal Q it equals 2(n − tr Q). A rotation by θ in one plane has effect 2(2 − 2cos θ).
    """
    q = _as_matrix(q, "q")
    return matrix_distance(q, np.eye(len(q)))


def pairwise_distances(matrices: Sequence) -> np.ndarray:
    """``D[i, j] = ‖M_i − M_j‖²`` for a list of matrices (B&L 2022, Table 2)."""
    mats = [_as_matrix(m, f"matrices[{i}]") for i, m in enumerate(matrices)]
    if not mats:
        raise ValueError("pairwise_distances needs at least one matrix")
    return np.array([[matrix_distance(a, b) for b in mats] for a in mats])


def pair_effect(q_open, q_close) -> float:
    """‖Q(c) Q(o) − I‖², the average effect of the phrase ``o c`` (B&L 2022, Table 4).

    The phrase matrix of ``o`` then ``c`` is Q(c) Q(o) (the later symbol acts last). A trained
    Dyck URN makes every matching pair close to the identity (≈0.06 against ≈14 for one bracket):
    a closed pair leaves the state where it found it.
    """
    q_open, q_close = _as_matrix(q_open, "q_open"), _as_matrix(q_close, "q_close")
    _same_size(q_open, q_close)
    return average_effect(compose_matrices([q_open, q_close]))


# -- rotations ----------------------------------------------------------------------------------


def signature(q, degrees: bool = False, tol: float = 1e-4) -> np.ndarray:
    """The rotation angles of Q, largest first, zero angles omitted (B&L 2022, §3 "Signature").

    An orthogonal Q with det +1 is a set of independent rotations in ⌊n/2⌋ orthogonal planes; a
    rotation by θ contributes the conjugate eigenvalue pair e^{±iθ}. So the angles are the
    |arg λ| of the eigenvalues, each counted once per pair. Angles below ``tol`` radians are
    dropped, as the paper omits zero angles; a k-truncated embedding has at most k of them.
    """
    q = _as_rotation(q, "q")
    angles = np.sort(np.abs(np.angle(np.linalg.eigvals(q))))[::-1]
    per_plane = angles[::2]  # e^{+iθ} and e^{−iθ} give the same |θ|: keep one of each pair
    per_plane = per_plane[per_plane > tol]
    return np.degrees(per_plane) if degrees else per_plane


def rotation_planes(q, tol: float = 1e-4) -> tuple[np.ndarray, np.ndarray]:
    """The planes Q rotates: ``(angles [r], planes [r, 2, n])``, largest angle first.

    ``planes[i]`` holds two orthonormal rows spanning the plane rotated by ``angles[i]``. They
    come from the real Schur form Q = Z T Zᵀ: for an orthogonal Q, T is block-diagonal, each 2×2
    block [[cos θ, −sin θ], [sin θ, cos θ]] (up to sign) acting on two columns of Z. Eigenvalues
    −1 come in pairs (det +1), each pair a rotation by π. (The seeds' code builds the same planes
    from complex eigenvectors.)
    """
    q = _as_rotation(q, "q")
    schur_form, basis = scipy.linalg.schur(q, output="real")
    n = len(q)
    angles, planes, half_turns = [], [], []
    i = 0
    while i < n:
        if i + 1 < n and abs(schur_form[i + 1, i]) > 1e-12:  # a 2×2 rotation block
            block = schur_form[i : i + 2, i : i + 2]
            sin = np.sqrt(abs(block[0, 1] * block[1, 0]))
            angles.append(np.arctan2(sin, (block[0, 0] + block[1, 1]) / 2))
            planes.append(basis[:, i : i + 2].T)
            i += 2
        else:  # a real eigenvalue, +1 (no rotation) or −1 (half of a rotation by π)
            if schur_form[i, i] < 0:
                half_turns.append(basis[:, i])
            i += 1
    for a, b in zip(half_turns[::2], half_turns[1::2], strict=True):
        angles.append(np.pi)
        planes.append(np.stack([a, b]))
    angles = np.array(angles)
    order = np.argsort(-angles, kind="stable")
    keep = [j for j in order if angles[j] > tol]
    return angles[keep], np.array([planes[j] for j in keep]).reshape(len(keep), 2, n)


def plane_similarity(plane_a, plane_b) -> float:
    """How much two planes overlap: the sum of the singular values of A Bᵀ (B&L 2022, Table 3).

    ``plane_a`` and ``plane_b`` are ``[2, n]`` with orthonormal rows. The singular values are
    the cosines of the two principal angles between the planes, so the similarity is 2 when the
    planes are equal (whatever basis spans them) and 0 when they are orthogonal. This is the
    seeds' ``coplanarity``, the value of a Procrustes problem.
    """
    a, b = _as_plane(plane_a, "plane_a"), _as_plane(plane_b, "plane_b")
    if a.shape != b.shape:
        raise ValueError(f"planes live in spaces of different sizes: {a.shape} vs {b.shape}")
    return float(np.sum(np.linalg.svd(a @ b.T, compute_uv=False)))


def _as_plane(plane, name: str) -> np.ndarray:
    if isinstance(plane, torch.Tensor):
        plane = plane.detach().cpu().double().numpy()
    plane = np.asarray(plane, dtype=np.float64)
    if plane.ndim != 2 or plane.shape[0] != 2:
        raise ValueError(f"{name} must be [2, n] (two basis rows), got shape {plane.shape}")
    if np.abs(plane @ plane.T - np.eye(2)).max() > 1e-4:
        raise ValueError(f"the rows of {name} must be orthonormal")
    return plane


def plane_similarities(q_a, q_b, tol: float = 1e-4) -> np.ndarray:
    """``S[i, j]`` = similarity of the i-th rotation plane of ``q_a`` and the j-th of ``q_b``
    (planes ordered by angle, largest first, as in :func:`signature`). B&L 2022, Table 3."""
    _, planes_a = rotation_planes(q_a, tol)
    _, planes_b = rotation_planes(q_b, tol)
    return np.array([[plane_similarity(a, b) for b in planes_b] for a in planes_a]).reshape(
        len(planes_a), len(planes_b)
    )


# -- phrases of a trained model -----------------------------------------------------------------


def phrase_matrices(model, vocab, phrases: Iterable[str]) -> dict[str, np.ndarray]:
    """``{phrase: ⟦phrase⟧}`` for phrases written as strings (``"("``, ``"( )"``, ``"the keys"``).

    ⟦w_1 … w_t⟧ = Q(w_t) ⋯ Q(w_1) comes from ``model.compose``; foreign symbols raise the
    vocabulary's ``ValueError``.
    """
    with torch.no_grad():
        return {p: model.compose(vocab.encode(p)).cpu().double().numpy() for p in phrases}
