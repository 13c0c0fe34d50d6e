"""Anisotropic diffusion from Python: one tensor, or one per cell or per face in FiPy's
(dim, dim, n) layout; FiPy's anisotropy example on its own Gmsh mesh."""

import os

import numpy as np
import pytest

import kfvm

DOUBLE = kfvm.real_type == "float64"
SOLVE = 1e-13 if DOUBLE else 1e-6
SWEEP = 1e-11 if DOUBLE else 1e-5
TIGHT = 1e-9 if DOUBLE else 2e-4
GAMMA = np.array([[1.0, 0.4], [0.4, 0.6]])


def side_to_side(mesh, coeff):
    """div(coeff grad phi) = 0 with phi = 0 on the left and 1 on the right."""
    phi = kfvm.CellVariable(mesh, name="phi")
    phi.constrain(0.0, mesh.facesLeft)
    phi.constrain(1.0, mesh.facesRight)
    kfvm.DiffusionTermCorrection(coeff).solve(phi, solver=kfvm.Solver("bicgstab", tolerance=SOLVE),
                                              sweep_tolerance=SWEEP)
    return np.asarray(phi.value)


def test_tensors_per_cell_and_per_face_take_fipys_layout():
    mesh = kfvm.Grid2D(nx=6, ny=5, dx=1.0 / 6, dy=0.2)
    constant = side_to_side(mesh, (GAMMA,))
    cells = np.repeat(GAMMA[:, :, None], mesh.numberOfCells, axis=2)
    faces = np.repeat(GAMMA[:, :, None], mesh.numberOfFaces, axis=2)
    assert np.allclose(side_to_side(mesh, (cells,)), constant, atol=TIGHT, rtol=0)
    assert np.allclose(side_to_side(mesh, (faces,)), constant, atol=TIGHT, rtol=0)
    assert np.max(np.abs(constant - side_to_side(mesh, 1.0))) > 1e-3  # cross terms matter
    # An isotropic tensor per cell is the scalar cell coefficient (harmonic face means).
    D = 1.0 + 9.0 * (mesh.x > 0.5)
    isotropic = np.einsum("ab,c->abc", np.eye(2), D)
    assert np.allclose(side_to_side(mesh, (isotropic,)),
                       side_to_side(mesh, kfvm.CellVariable(mesh, value=D)), atol=TIGHT, rtol=0)


def test_bad_tensor_fields_are_errors():
    mesh = kfvm.Grid2D(nx=3, ny=2)
    with pytest.raises(kfvm.Error, match=r"shape \(2, 2\), \(2, 2, 6 cells\) or \(2, 2, 17 faces\)"):
        side_to_side(mesh, (np.ones((2, 2, 5)),))
    bad = np.repeat(np.eye(2)[:, :, None], 6, axis=2)
    bad[:, :, 4] = [[1.0, 2.0], [2.0, 1.0]]
    with pytest.raises(kfvm.Error, match="diffusion tensor at cell 4 .* not positive definite"):
        side_to_side(mesh, (bad,))
    bad[:, :, 4] = [[1.0, 0.5], [0.4, 1.0]]
    with pytest.raises(kfvm.Error, match="not symmetric"):
        side_to_side(mesh, (bad,))


def test_fipy_anisotropy_example_on_its_own_gmsh_mesh():
    """FiPy's examples/diffusion/anisotropy.py: a point source on its Gmsh disc under the
    rotated tensor R diag(0.2, 1) R^T, 20 steps of dt = 0.00025, within its 8% of the
    analytical Gaussian."""
    fipy = os.environ.get("KFVM_FIPY_PATH")
    path = os.path.join(fipy or "", "examples", "diffusion", "anisotropy.msh")
    if not fipy or not os.path.exists(path):
        pytest.skip("FiPy's examples (KFVM_FIPY_PATH) are not here")
    mesh = kfvm.GmshMesh(path)
    x, y = mesh.cellCenters
    var = kfvm.CellVariable(mesh)
    value = np.zeros(mesh.numberOfCells)
    value[np.argmin(x ** 2 + y ** 2)] = 1.0
    var.value = value
    theta = np.pi / 4
    rotation = np.array(((np.cos(theta), np.sin(theta)), (-np.sin(theta), np.cos(theta))))
    gamma_prime = np.array(((0.2, 0.0), (0.0, 1.0)))
    gamma = rotation @ gamma_prime @ rotation.T
    eq = kfvm.TransientTerm() == kfvm.DiffusionTermCorrection((gamma,))
    mass = float(np.sum(np.asarray(var) * mesh.cellVolumes))
    time, dt = 0.0, 0.00025
    for _ in range(20):
        eq.solve(var, dt=dt, solver=kfvm.Solver("gmres", tolerance=1e-10 if DOUBLE else 1e-6),
                 sweep_tolerance=1e-8 if DOUBLE else 1e-5)
        time += dt
    X, Y = rotation.T @ np.vstack([x, y])  # x^T Gamma^-1 x = (R^T x)^T Gamma'^-1 (R^T x)
    solution = mass * np.exp(-(X ** 2 / gamma_prime[0][0] + Y ** 2 / gamma_prime[1][1])
                             / (4 * time)) / (4 * np.pi * time * np.sqrt(np.prod(np.diag(gamma_prime))))
    error = np.max(np.abs(np.asarray(var) - solution)) / np.max(solution)
    print("anisotropy: max error / max solution = %.4f (FiPy's bound 0.08)" % error)
    assert error < 0.08
    assert np.isclose(np.sum(np.asarray(var) * mesh.cellVolumes), mass,
                      rtol=1e-10 if DOUBLE else 1e-5)
