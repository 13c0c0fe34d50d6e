"""kfvm.fipy: FiPy's own solves against kfvm's, equation and solver level, for one
variable (coupled systems: test_fipy_coupled.py). FiPy comes from KFVM_FIPY_PATH
(fipy_setup.py)."""

import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
import pytest

from fipy_setup import FIPY_PATH, TIGHT, _hook, fipy, grid2d, kf, kfvm, relative  # noqa: F401
from fipy import (CellVariable, FaceVariable, Grid1D, Grid2D, Grid3D,  # noqa: E402
                  DiffusionTerm, ExplicitDiffusionTerm, ImplicitSourceTerm, TransientTerm)
from fipy import terms as fterms  # noqa: E402


def _both(build, steps=3, sweep=False):
    """The variable after `steps` solves with FiPy alone and with kfvm.fipy. FiPy's
    equation is built anew at every step: FiPy reusing an equation whose coefficient
    depends on phi keeps stale values at its Dirichlet faces (2.8% off its own answer
    with the equation rebuilt, in face-coefficient-of-phi); kfvm.fipy computes what the
    rebuilt equation does, reused or not."""
    answers, residuals = [], []
    for on in (False, True):
        (kf.activate if on else kf.deactivate)()
        make, phi, options = build()
        eq = make()
        r = []
        for _ in range(steps):
            if not on:
                eq = make()
            if getattr(phi, "_old", None) is not None:
                phi.updateOld()
            solver = fipy.LinearLUSolver(tolerance=TIGHT)
            if sweep:
                r.append(eq.sweep(var=phi, solver=solver, **options))
            eq.solve(var=phi, solver=solver, **options)
        answers.append(np.array(phi.value))
        residuals.append(np.array(r))
    kf.activate()
    return answers, residuals


def _case(mesh_of, rhs_of, lhs_of=lambda m: TransientTerm(), bcs=("left", "right", "top"),
          dt=0.01, has_old=True, options_of=lambda m: {},
          init=lambda m: 0.3 * m.cellCenters[0]):
    def build():
        mesh = mesh_of()
        phi = CellVariable(mesh=mesh, value=init(mesh), name="phi", hasOld=has_old)
        if "left" in bcs:
            phi.constrain(1.0, mesh.facesLeft)
        if "right" in bcs:
            phi.constrain(0.5 * mesh.faceCenters[mesh.dim - 1], mesh.facesRight)
        if "top" in bcs and mesh.dim > 1:
            phi.faceGrad.constrain([[0.0]] * (mesh.dim - 1) + [[0.3]], mesh.facesTop)
        steady = lhs_of(mesh) is None

        def make():
            lhs = lhs_of(mesh)
            return (rhs_of(mesh, phi) == 0) if steady else (lhs == rhs_of(mesh, phi))
        options = dict(options_of(mesh))
        if not steady:
            options["dt"] = dt
        return make, phi, options
    return build


def _diagonal_tensor(m):
    x = np.asarray(m.faceCenters[0])
    zero = np.zeros_like(x)
    return [[1.0 + x, zero], [zero, 0.3 + 0.0 * x]]


def _cahn_hilliard(m, p, mobility=1.0, kappa=0.01):
    """FiPy's Cahn-Hilliard form (examples/cahnHilliard): a second-order face
    coefficient D f''(phi_f), negative in the spinodal region (0.21 < phi < 0.79; phi
    runs from 0 to 0.3 and above here), and the fourth-order term."""
    f2 = 1 - 6 * p.arithmeticFaceValue * (1 - p.arithmeticFaceValue)
    return DiffusionTerm(coeff=f2) - DiffusionTerm(coeff=(mobility, kappa))


def _potential_fixed(m):
    """tanh1D's NthOrderBoundaryCondition(order=2): div(grad phi) = value on a side."""
    return {"boundaryConditions": (
        fipy.NthOrderBoundaryCondition(faces=m.facesLeft, value=0.0, order=2),
        fipy.NthOrderBoundaryCondition(faces=m.facesRight, value=0.3, order=2))}


CONVECTIONS = [fterms.UpwindConvectionTerm, fterms.CentralDifferenceConvectionTerm,
               fterms.PowerLawConvectionTerm, fterms.ExponentialConvectionTerm,
               fterms.HybridConvectionTerm]

CASES = {
    "diffusion-1d": _case(lambda: Grid1D(nx=20, dx=0.05), lambda m, p: DiffusionTerm(2.0),
                          bcs=("left", "right")),
    "diffusion-nonuniform-2d": _case(grid2d, lambda m, p: DiffusionTerm(1.0)),
    "diffusion-3d": _case(lambda: Grid3D(nx=4, ny=3, nz=5, dx=0.2, dy=0.3, dz=[0.1] * 5),
                          lambda m, p: DiffusionTerm(1.0)),
    "cell-coefficient": _case(grid2d, lambda m, p: DiffusionTerm(
        1.0 + CellVariable(mesh=m, value=m.x))),
    "face-coefficient-of-phi": _case(grid2d, lambda m, p: DiffusionTerm(
        1.0 + p.arithmeticFaceValue ** 2)),
    # FiPy's rank-2 coefficients, diagonal (examples/diffusion/steadyState/mesh20x20/
    # isotropy): G_aa on the faces normal to axis a.
    "diagonal-tensor": _case(grid2d, lambda m, p: DiffusionTerm(
        coeff=(((1.5, 0.0), (0.0, 0.5)),))),
    "diagonal-tensor-on-faces": _case(grid2d, lambda m, p: DiffusionTerm(coeff=(
        FaceVariable(mesh=m, elementshape=(2, 2), value=_diagonal_tensor(m)),))),
    "sources": _case(grid2d, lambda m, p: DiffusionTerm(1.0) + ImplicitSourceTerm(-0.5)
                     + 0.2 + p ** 2),
    # FiPy's rule: implicit where the coefficient adds to the diagonal, explicit elsewhere.
    "implicit-source-of-either-sign": _case(grid2d, lambda m, p: DiffusionTerm(1.0)
                                            + ImplicitSourceTerm(p - 0.5)),
    "steady": _case(grid2d, lambda m, p: DiffusionTerm(1.0) + ImplicitSourceTerm(-1.0),
                    lhs_of=lambda m: None),
    "steady-diffusion-on-the-left": _case(grid2d, lambda m, p: -DiffusionTerm(1.0) + 3.0,
                                          lhs_of=lambda m: None),
    "transient-coefficient": _case(grid2d, lambda m, p: DiffusionTerm(1.0),
                                   lhs_of=lambda m: TransientTerm(1.0 + m.x)),
    # FiPy's ExplicitDiffusionTerm at var.value, on the right-hand side: with hasOld it
    # reads var.old's constraints (none: zero flux), without it var's own.
    "crank-nicolson-as-fipy-writes-it": _case(
        grid2d, lambda m, p: DiffusionTerm(0.5) + ExplicitDiffusionTerm(0.5)),
    "explicit-diffusion-without-old": _case(
        grid2d, lambda m, p: DiffusionTerm(0.3) + ExplicitDiffusionTerm(
            1.0 + p.arithmeticFaceValue), has_old=False),
    "cahn-hilliard-nonuniform-2d": _case(grid2d, _cahn_hilliard, dt=1e-4),
    "cahn-hilliard-closed-1d": _case(lambda: Grid1D(nx=40, dx=0.025), _cahn_hilliard,
                                     bcs=(), dt=1e-3),
    "fourth-order-flux-condition-1d": _case(
        lambda: Grid1D(nx=30, dx=0.1), lambda m, p: -DiffusionTerm((1.0, 1.0)),
        bcs=("left", "right"), dt=1e-2, options_of=lambda m: {"boundaryConditions": (
            fipy.NthOrderBoundaryCondition(faces=m.facesRight, value=0.7, order=3),)}),
    # Cell-variable coefficients in the fourth-order term: FiPy's arithmetic face values,
    # passed to kfvm as face fields; with a second-order part and phi's value conditions,
    # and with tanh1D's potential conditions (order 2).
    "fourth-order-cell-coefficients-1d": _case(
        lambda: Grid1D(nx=30, dx=[0.1] * 15 + [0.05] * 15), lambda m, p: DiffusionTerm(0.3)
        - DiffusionTerm((CellVariable(mesh=m, value=1.0 + m.x),
                         CellVariable(mesh=m, value=0.5 + m.x ** 2))),
        bcs=("left", "right"), dt=1e-3),
    "cahn-hilliard-cell-mobility-2d": _case(
        grid2d, lambda m, p: _cahn_hilliard(m, p, CellVariable(mesh=m, value=1.0 + m.x)),
        dt=1e-4),
    "fourth-order-cell-kappa-potential-fixed-1d": _case(
        lambda: Grid1D(nx=40, dx=0.025), lambda m, p: -DiffusionTerm(
            (1.0, CellVariable(mesh=m, value=0.5 + m.x))), bcs=("left", "right"), dt=1e-3,
        options_of=_potential_fixed),
    "cahn-hilliard-potential-fixed-1d": _case(
        lambda: Grid1D(nx=40, dx=0.025), _cahn_hilliard, bcs=("left", "right"), dt=1e-3,
        options_of=_potential_fixed),
    # FiPy's order 0 and 1 (examples/diffusion/nthOrder/input4thOrder_line): phi's value
    # and flux in the inner operator (and order 0 in second-order terms).
    "fourth-order-all-orders-1d": _case(
        lambda: Grid1D(nx=30, dx=[0.1] * 15 + [0.05] * 15), lambda m, p: -DiffusionTerm((1.0, 0.5)),
        bcs=(), dt=1e-2, options_of=lambda m: {"boundaryConditions": (
            fipy.NthOrderBoundaryCondition(faces=m.facesLeft, value=0.2, order=0),
            fipy.NthOrderBoundaryCondition(faces=m.facesRight, value=0.4, order=1),
            fipy.NthOrderBoundaryCondition(faces=m.facesLeft, value=0.0, order=2),
            fipy.NthOrderBoundaryCondition(faces=m.facesRight, value=0.3, order=2))}),
    # The same orders with cell-variable coefficients: the flux conditions divide by
    # FiPy's face values of the coefficients on their faces.
    "fourth-order-cell-coefficients-all-orders-1d": _case(
        lambda: Grid1D(nx=30, dx=[0.1] * 15 + [0.05] * 15), lambda m, p: -DiffusionTerm(
            (CellVariable(mesh=m, value=1.0 + m.x), CellVariable(mesh=m, value=0.5 + m.x ** 2))),
        bcs=(), dt=1e-2, options_of=lambda m: {"boundaryConditions": (
            fipy.NthOrderBoundaryCondition(faces=m.facesLeft, value=0.2, order=0),
            fipy.NthOrderBoundaryCondition(faces=m.facesRight, value=0.4, order=1),
            fipy.NthOrderBoundaryCondition(faces=m.facesLeft, value=0.0, order=2),
            fipy.NthOrderBoundaryCondition(faces=m.facesRight, value=0.3, order=3))}),
    "fourth-order-steady-line-1d": _case(
        lambda: Grid1D(nx=40, dx=0.025), lambda m, p: DiffusionTerm((1.0, 1.0)),
        lhs_of=lambda m: None, bcs=(), options_of=lambda m: {"boundaryConditions": (
            fipy.NthOrderBoundaryCondition(m.facesLeft, 0.0, 0),
            fipy.NthOrderBoundaryCondition(m.facesRight, 1.0, 0),
            fipy.NthOrderBoundaryCondition(m.facesLeft, 0.0, 2),
            fipy.NthOrderBoundaryCondition(m.facesRight, 0.0, 2))}),
    "cahn-hilliard-value-condition-1d": _case(
        lambda: Grid1D(nx=40, dx=0.025), _cahn_hilliard, bcs=(), dt=1e-3,
        options_of=lambda m: {"boundaryConditions": (
            fipy.NthOrderBoundaryCondition(m.facesLeft, 0.1, 0),
            fipy.NthOrderBoundaryCondition(m.facesRight, 0.0, 2))}),
    "diffusion-value-condition-2d": _case(
        grid2d, lambda m, p: DiffusionTerm(1.0), bcs=("top",),
        options_of=lambda m: {"boundaryConditions": (
            fipy.NthOrderBoundaryCondition(m.facesLeft, 0.5 * m.faceCenters[1], 0),)}),
    "cahn-hilliard-3d": _case(lambda: Grid3D(nx=5, ny=4, nz=3, dx=0.1, dy=0.1, dz=0.1),
                              lambda m, p: _cahn_hilliard(m, p, -1.0, -0.01), dt=1e-4),
}
for _c in CONVECTIONS:
    CASES[_c.__name__] = _case(grid2d, lambda m, p: DiffusionTerm(0.1),
                               lhs_of=lambda m, c=_c: TransientTerm() + c(coeff=(1.0, 0.5)))
    CASES[_c.__name__ + "-closed"] = _case(
        grid2d, lambda m, p: DiffusionTerm(0.1), bcs=(),
        lhs_of=lambda m, c=_c: TransientTerm() + c(coeff=(-1.0, 0.5)))
# FiPy's explicit convection (old values on the right-hand side; its boundary: Dirichlet
# faces explicit, gradient faces implicit) and Van Leer's CFL-scaled limiter, whose
# gradients read var.old's face values: with hasOld none constrained, without it the
# Dirichlet values.
EXPLICIT_CONVECTIONS = [fterms.ExplicitUpwindConvectionTerm, fterms.VanLeerConvectionTerm]
for _c in EXPLICIT_CONVECTIONS:
    for _old in (True, False):
        _name = _c.__name__ + ("" if _old else "-without-old")
        CASES[_name] = _case(grid2d, lambda m, p: DiffusionTerm(0.02), has_old=_old,
                             lhs_of=lambda m, c=_c: TransientTerm() + c(coeff=(1.0, 0.5)))
        CASES[_name + "-closed"] = _case(
            grid2d, lambda m, p: DiffusionTerm(0.02), bcs=(), has_old=_old,
            lhs_of=lambda m, c=_c: TransientTerm() + c(coeff=(-1.0, 0.5)))
    # A square pulse and a wave, flowing left out of an open Dirichlet face: the limiter's
    # every branch (extrema, steep and smooth slopes).
    CASES[_c.__name__ + "-1d-pulse"] = _case(
        lambda: Grid1D(nx=40, dx=[0.02] * 20 + [0.03] * 20), lambda m, p: 0.0,
        bcs=("left",), dt=0.004, lhs_of=lambda m, c=_c: TransientTerm() + c(coeff=(-2.0,)),
        init=lambda m: (np.where(abs(m.x - 0.5) < 0.15, 1.0, 0.0)
                        + 0.2 * np.sin(20.0 * np.asarray(m.x))))
CASES["convection-face-velocity"] = _case(
    grid2d, lambda m, p: DiffusionTerm(0.1),
    lhs_of=lambda m: TransientTerm() + fterms.PowerLawConvectionTerm(
        coeff=FaceVariable(mesh=m, rank=1, value=(m.faceCenters[1], -m.faceCenters[0]))))


@pytest.mark.parametrize("name", sorted(CASES))
def test_translated_solve_is_fipys(name):
    (fipy_alone, on_kfvm), _ = _both(CASES[name])
    assert relative(fipy_alone, on_kfvm) < 1e-10
    where = {r["where"] for r in kf.report()}
    assert where == {"kfvm"}, kf.report()


def test_sweep_returns_fipys_residual():
    _, (fipy_alone, on_kfvm) = _both(CASES["sources"], sweep=True)
    assert np.allclose(fipy_alone, on_kfvm, rtol=1e-9, atol=1e-12)


def test_compiled_once_and_only_changes_move():
    mesh = Grid3D(nx=6, ny=5, nz=4)
    phi = CellVariable(mesh=mesh, value=0.0, hasOld=True)
    phi.constrain(1.0, mesh.facesLeft)
    eq = TransientTerm() == DiffusionTerm(1.0)
    for _ in range(4):
        phi.updateOld()
        eq.solve(var=phi, dt=0.1)
    (TransientTerm() == DiffusionTerm(1.0)).solve(var=phi, dt=0.1)  # rebuilt, same structure
    rows = kf.report()
    assert len(rows) == 1 and rows[0]["where"] == "kfvm"
    assert rows[0]["calls"] == 5 and rows[0]["compiles"] == 1
    compiled = next(iter(kf.engine.engine().compiled.values()))[1]
    # Constant coefficients: nothing but the old values moves to the device, when
    # updateOld changed them (phi is the last answer, already there): phi and old at
    # the first solve, old at the next three, nothing at the last (no updateOld).
    assert set(compiled.last) == {"phi", "old"}
    assert compiled.bytes_moved == 5 * mesh.numberOfCells * 8


@pytest.mark.parametrize("solver_of", [
    lambda: fipy.LinearLUSolver(criterion="initial", tolerance=1e-9),
    lambda: fipy.LinearCGSolver(criterion="initial", tolerance=1e-10, iterations=2000)])
def test_initial_criterion_at_the_equation_level(solver_of):
    """examples/diffusion/mesh1D's enormous step to the no-flux steady state: the initial
    residual dwarfs the right-hand side, so FiPy scales by it (kfvm's criterion
    'initial')."""
    answers = []
    for on in (False, True):
        (kf.activate if on else kf.deactivate)()
        mesh = Grid1D(nx=50, dx=1.0)
        phi = CellVariable(mesh=mesh, value=0.0)
        phi.setValue(1.0, where=(mesh.x > 20.0) & (mesh.x < 30.0))
        (TransientTerm() == DiffusionTerm(1.0)).solve(var=phi, dt=1e6 * 5.0,
                                                      solver=solver_of())
        answers.append(np.array(phi.value))
    kf.activate()
    assert np.allclose(answers[0], 0.2, atol=1e-5) and np.allclose(answers[1], 0.2, atol=1e-5)
    assert relative(answers[0], answers[1]) < 1e-6
    (row,) = kf.report()
    assert row["where"] == "kfvm", row


def test_untranslatable_falls_back_and_says_why():
    mesh = Grid1D(nx=10)

    def equation():
        return (TransientTerm() + fterms.UpwindConvectionTerm(coeff=(1.0,))
                + fterms.PowerLawConvectionTerm(coeff=(0.5,)) == DiffusionTerm(0.5))
    phi = CellVariable(mesh=mesh, value=0.0)
    phi.constrain(1.0, mesh.facesLeft)
    equation().solve(var=phi, dt=0.5)
    kf.deactivate()
    ref = CellVariable(mesh=mesh, value=0.0)
    ref.constrain(1.0, mesh.facesLeft)
    equation().solve(var=ref, dt=0.5)
    assert np.array_equal(phi.value, ref.value)
    (row,) = kf.report()
    assert row["where"] == "fipy" and "several schemes" in row["reason"]


def test_other_boundary_conditions_fall_back():
    mesh = Grid1D(nx=10)
    phi = CellVariable(mesh=mesh, value=0.0)
    bc = fipy.NthOrderBoundaryCondition(faces=mesh.facesLeft, value=0.0, order=2)
    (TransientTerm() == DiffusionTerm(1.0)).solve(var=phi, dt=0.1, boundaryConditions=(bc,))
    (row,) = kf.report()
    assert row["where"] == "fipy" and "without a fourth-order" in row["reason"]
    kf.reset()
    bc = fipy.NthOrderBoundaryCondition(faces=mesh.facesLeft, value=0.0, order=4)
    (TransientTerm() == -DiffusionTerm((1.0, 1.0))).solve(var=phi, dt=0.1,
                                                          boundaryConditions=(bc,))
    (row,) = kf.report()
    assert row["where"] == "fipy" and "of order 4" in row["reason"]
    kf.reset()
    bc = fipy.NthOrderBoundaryCondition(faces=mesh.facesLeft, value=0.0, order=1)
    (TransientTerm() == DiffusionTerm(0.5) - DiffusionTerm((1.0, 1.0))).solve(
        var=phi, dt=0.1, boundaryConditions=(bc,))
    (row,) = kf.report()
    assert row["where"] == "fipy" and "applies its flux to one" in row["reason"]


def test_a_flux_condition_where_the_field_mobility_is_zero_falls_back():
    mesh = Grid1D(nx=10)
    phi = CellVariable(mesh=mesh, value=mesh.x)
    bc = fipy.NthOrderBoundaryCondition(faces=mesh.facesLeft, value=0.1, order=3)
    mobility = CellVariable(mesh=mesh, value=np.where(mesh.x < 1.0, 0.0, 1.0 + mesh.x))
    (TransientTerm() == -DiffusionTerm((mobility, 1.0))).solve(
        var=phi, dt=1e-3, boundaryConditions=(bc,))
    (row,) = kf.report()
    assert row["where"] == "fipy" and "mobility is 0 on a face" in row["reason"]


def test_ill_posed_fourth_order_sign_falls_back():
    mesh = Grid1D(nx=10)
    phi = CellVariable(mesh=mesh, value=mesh.x)
    (TransientTerm() == DiffusionTerm((1.0, 1.0))).solve(var=phi, dt=1e-3)
    (row,) = kf.report()
    assert row["where"] == "fipy" and "ill-posed" in row["reason"]


def test_anisotropic_tensor_falls_back():
    mesh = Grid2D(nx=4, ny=3)
    phi = CellVariable(mesh=mesh, value=0.0)
    phi.constrain(1.0, mesh.facesLeft)
    DiffusionTerm(coeff=(((1.0, 0.2), (0.2, 1.0)),)).solve(var=phi)
    (row,) = kf.report()
    assert row["where"] == "fipy" and "anisotropic" in row["reason"]


def test_plain_subclasses_of_cell_variable_run_on_kfvm():
    """A CellVariable subclass that only adds attributes (examples/elphf's
    ComponentVariable) is a CellVariable to kfvm; one that redefines values or
    gradients (FiPy's ModularVariable) falls back."""
    class Component(CellVariable):
        def __init__(self, mesh, value=0.0, valence=0):
            CellVariable.__init__(self, mesh=mesh, value=value, name="c")
            self.valence = valence

        def copy(self):
            return Component(self.mesh, self.value, self.valence)

    mesh = Grid1D(nx=10)
    c = Component(mesh, value=0.5, valence=2)
    c.constrain(1.0, mesh.facesLeft)
    (TransientTerm() == DiffusionTerm(1.0)).solve(var=c, dt=0.5)
    theta = fipy.ModularVariable(mesh=mesh, value=0.1)
    (TransientTerm() == DiffusionTerm(1.0)).solve(var=theta, dt=0.5)
    rows = {r["equation"].split(":")[0]: r for r in kf.report()}
    assert rows["c"]["where"] == "kfvm"
    (modular,) = [r for name, r in rows.items() if name != "c"]
    assert modular["where"] == "fipy" and "ModularVariable" in modular["reason"]


def test_general_2d_meshes_take_fipys_geometry():
    """Tri2D and a SkewedGrid2D (quadrilaterals that are not parallelograms, where FiPy's
    centres are not the centroids) run on kfvm and give FiPy's answer."""
    for make in (lambda: fipy.Tri2D(nx=4, ny=3),
                 lambda: fipy.SkewedGrid2D(nx=5, ny=4, rand=0.2)):
        answers = []
        for on in (False, True):
            (kf.activate if on else kf.deactivate)()
            np.random.seed(7)
            mesh = make()
            phi = CellVariable(mesh=mesh, value=0.0)
            phi.constrain(1.0, mesh.facesLeft)
            phi.constrain(0.0, mesh.facesRight)
            (DiffusionTerm(1.0 + mesh.faceCenters[1]) == 0).solve(
                var=phi, solver=fipy.LinearLUSolver(tolerance=TIGHT))
            answers.append(np.array(phi.value))
        assert relative(*answers) < 1e-9
    kf.activate()
    assert {row["where"] for row in kf.report()} == {"kfvm"}, kf.report()


def _kuhn_tetrahedra(n):
    """The unit cube in n^3 cubes of 6 tetrahedra each (Kuhn's, conforming across the
    cubes), its nodes moved off the grid inside, as a FiPy 3D Mesh (no Gmsh needed)."""
    from fipy.meshes.mesh import Mesh
    from itertools import permutations
    axis = np.linspace(0.0, 1.0, n + 1)
    x, y, z = np.meshgrid(axis, axis, axis, indexing="ij")
    nodes = np.stack([x.ravel(), y.ravel(), z.ravel()])
    inside = np.all((nodes > 1e-9) & (nodes < 1 - 1e-9), axis=0)
    nodes[:, inside] += 0.06 / n * np.sin(7.0 * nodes[::-1, inside])
    index = lambda i, j, k: (i * (n + 1) + j) * (n + 1) + k
    faces, cells = {}, []
    for i in range(n):
        for j in range(n):
            for k in range(n):
                for order in permutations(range(3)):
                    corner, tet = [i, j, k], [index(i, j, k)]
                    for a in order:
                        corner[a] += 1
                        tet.append(index(*corner))
                    cell = []
                    for skip in range(4):
                        face = tuple(sorted(t for m, t in enumerate(tet) if m != skip))
                        cell.append(faces.setdefault(face, len(faces)))
                    cells.append(cell)
    face_vertices = np.array(sorted(faces, key=faces.get)).T
    return Mesh(vertexCoords=nodes, faceVertexIDs=face_vertices,
                cellFaceIDs=np.array(cells).T)


def test_3d_general_meshes_take_fipys_geometry():
    """FiPy 3D Meshes (two grids joined: hexahedra; distorted tetrahedra; Gmsh3D's, when
    gmsh is installed) run on kfvm and give FiPy's answer: steady diffusion between two
    Dirichlet sides and three transient steps."""
    def joined():
        return Grid3D(nx=2, ny=2, nz=2) + (Grid3D(nx=2, ny=2, nz=2) + ((2.0,), (0.0,), (0.0,)))

    makers = [joined, lambda: _kuhn_tetrahedra(3)]
    if shutil.which(os.environ.get("KFVM_GMSH", "gmsh")) is not None:
        makers.append(lambda: fipy.Gmsh3D("""
            Point(1) = {0, 0, 0, 0.3}; Point(2) = {1, 0, 0, 0.3};
            Point(3) = {1, 1, 0, 0.3}; Point(4) = {0, 1, 0, 0.3};
            Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
            Line Loop(5) = {1, 2, 3, 4}; Plane Surface(6) = {5};
            Extrude {0, 0, 1} { Surface{6}; }"""))
    for make in makers:
        answers = []
        for on in (False, True):
            (kf.activate if on else kf.deactivate)()
            mesh = make()
            x = mesh.faceCenters[0]
            low, high = float(min(x)), float(max(x))
            phi = CellVariable(mesh=mesh, value=0.0)
            phi.constrain(1.0, mesh.exteriorFaces & (x < low + 1e-9))
            phi.constrain(0.0, mesh.exteriorFaces & (x > high - 1e-9))
            (DiffusionTerm(1.0) == 0).solve(var=phi,
                                             solver=fipy.LinearLUSolver(tolerance=TIGHT))
            psi = CellVariable(mesh=mesh, value=0.0)
            psi.constrain(1.0, mesh.exteriorFaces & (x < low + 1e-9))
            for _ in range(3):
                (TransientTerm() == DiffusionTerm(0.5)).solve(
                    var=psi, dt=0.01, solver=fipy.LinearLUSolver(tolerance=TIGHT))
            answers.append(np.concatenate([phi.value, psi.value]))
        assert np.ptp(answers[0]) > 0.5
        assert relative(*answers) < 1e-9, type(mesh).__name__
        kf.activate()
        assert {row["where"] for row in kf.report()} == {"kfvm"}, kf.report()


@pytest.mark.parametrize("solver_class", ["LinearCGSolver", "LinearGMRESSolver",
                                          "LinearBicgstabSolver", "LinearLUSolver"])
@pytest.mark.parametrize("criterion", ["default", "unscaled", "initial", "matrix"])
def test_solver_level_solves_fipys_matrix(solver_class, criterion):
    kf.deactivate()  # FiPy assembles; the solver class alone is kfvm's
    mesh = Grid2D(nx=15, ny=15)
    results = []
    for solver in (fipy.LinearLUSolver(tolerance=1e-14),
                   getattr(kf, solver_class)(tolerance=1e-10, criterion=criterion,
                                             iterations=2000)):
        phi = CellVariable(mesh=mesh, value=0.0)
        phi.constrain(1.0, mesh.facesLeft)
        phi.constrain(0.0, mesh.facesRight)
        (DiffusionTerm(1.0) + ImplicitSourceTerm(-0.1)).solve(var=phi, solver=solver)
        results.append(np.array(phi.value))
    assert relative(*results) < 1e-6
    assert solver.last_report.converged


def test_solver_level_warns_as_fipy_when_it_stops_early():
    kf.deactivate()
    mesh = Grid1D(nx=200)
    phi = CellVariable(mesh=mesh, value=0.0)
    phi.constrain(1.0, mesh.facesLeft)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DiffusionTerm(1.0).solve(var=phi, solver=kf.LinearCGSolver(tolerance=1e-12,
                                                                   iterations=3))
    assert any("MAXIT" in str(w.message) for w in caught), \
        [str(w.message) for w in caught]


def test_equation_level_warns_when_kfvm_stops_early():
    mesh = Grid1D(nx=200)
    phi = CellVariable(mesh=mesh, value=0.0)
    phi.constrain(1.0, mesh.facesLeft)
    with pytest.warns(kf.ConvergenceWarning, match="did not converge"):
        DiffusionTerm(1.0).solve(var=phi, solver=fipy.LinearCGSolver(tolerance=1e-12,
                                                                      iterations=3))


def test_bad_matrices_are_named():
    system = kfvm.mesh._backend_module(None).CsrSystem("cg", {})
    with pytest.raises(kfvm.Error, match="indptr has 2 entries"):
        system.set_matrix(2, np.array([0, 1]), np.array([0]), np.array([1.0]))
    with pytest.raises(kfvm.Error, match="column 5 of entry 1"):
        system.set_matrix(2, np.array([0, 1, 2]), np.array([0, 5]), np.array([1.0, 1.0]))
    with pytest.raises(kfvm.Error, match="entry 0 is nan"):
        system.set_matrix(1, np.array([0, 1]), np.array([0]), np.array([np.nan]))
    with pytest.raises(kfvm.Error, match="set_matrix first"):
        system.solve(np.ones(1), np.zeros(1))
    with pytest.raises(kfvm.Error, match="ILU|Jacobi"):
        class Odd:
            pass
        kf.LinearCGSolver(precon=Odd())._solve_(
            __import__("scipy.sparse", fromlist=["eye"]).eye(2, format="csr"),
            np.zeros(2), np.ones(2))


def _script(tmp_path, body):
    script = tmp_path / "script.py"
    script.write_text(body)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([FIPY_PATH] + sys.path),
               KFVM_FIPY_REPORT="1")
    env.pop("KFVM_FIPY_QUIET", None)
    return subprocess.run([sys.executable, "-m", "kfvm.fipy", str(script), "7"], env=env,
                          capture_output=True, text=True, timeout=300)


def test_module_runs_a_script_unchanged(tmp_path):
    done = _script(tmp_path, "import sys\nfrom fipy import *\n"
                   "m = Grid1D(nx=int(sys.argv[1]))\nv = CellVariable(mesh=m)\n"
                   "v.constrain(1., m.facesLeft)\nDiffusionTerm().solve(var=v)\n"
                   "(TransientTerm() + UpwindConvectionTerm((1.,)) + PowerLawConvectionTerm("
                   "(1.,)) == DiffusionTerm()).solve(var=v, dt=1.)\n"
                   "print('answer', round(float(v.value.min()), 9))\n")
    assert done.returncode == 0, done.stderr
    assert "answer 1.0" in done.stdout
    assert "runs on FiPy" in done.stderr and "several schemes" in done.stderr
    assert "kfvm " in done.stderr  # the report's table


def test_module_fails_as_the_script_fails(tmp_path):
    done = _script(tmp_path, "raise SystemExit(3)\n")
    assert done.returncode == 3
    missing = subprocess.run([sys.executable, "-m", "kfvm.fipy", str(tmp_path / "no.py")],
                             capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                                 [FIPY_PATH] + sys.path)))
    assert missing.returncode == 2 and "no such script" in missing.stderr


def test_fipys_viewers_read_what_kfvm_wrote(tmp_path):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from fipy.viewers.matplotlibViewer.matplotlib2DGridViewer import Matplotlib2DGridViewer
    mesh = Grid2D(nx=16, ny=8)
    phi = CellVariable(mesh=mesh, value=0.0, name="phi")
    phi.constrain(1.0, mesh.facesLeft)
    phi.constrain(0.0, mesh.facesRight)
    viewer = Matplotlib2DGridViewer(vars=phi, datamin=0.0, datamax=1.0)
    DiffusionTerm(1.0).solve(var=phi)
    assert kf.report()[0]["where"] == "kfvm"
    picture = tmp_path / "phi.png"
    viewer.plot(filename=str(picture))
    assert picture.stat().st_size > 1000
    # The viewer's image holds the solved values (phi = 1 - x / 16, cell by cell).
    image = np.asarray(viewer._mappable.get_array())
    expected = (1.0 - np.asarray(mesh.x) / 16.0).reshape(8, 16)
    assert np.allclose(image, expected, atol=1e-8)


@pytest.mark.parametrize("fipy_class, method", [
    ("LinearCGSolver", "cg"), ("LinearPCGSolver", "cg"), ("LinearGMRESSolver", "gmres"),
    ("LinearBicgstabSolver", "bicgstab"), ("LinearCGSSolver", "bicgstab"),
    ("LinearLUSolver", "lu")])
def test_fipys_solvers_become_the_same_kfvm_method(fipy_class, method):
    """Each FiPy solver class is kfvm's method of the same kind, with FiPy's tolerance;
    FiPy's LU is kfvm's direct solver (no Krylov method stands in for it)."""
    from kfvm.fipy.solvers import kfvm_solver_of
    for cells in (100, 10 ** 7):
        name, parameters, asked = kfvm_solver_of(getattr(fipy, fipy_class)(tolerance=1e-7),
                                                 set(), cells)
        assert name == method and asked == method
        assert float(parameters["tolerance"]) == 1e-7
        assert parameters["preconditioner"] == "none"


def test_equation_level_cg_is_kfvms_own_cg():
    """FiPy's LinearCGSolver on an equation is kfvm's CG with the same settings: the
    same iterations, the same answer to the last bit as kfvm's own Python API."""
    n = 12
    mesh = Grid3D(nx=n, ny=n, nz=n, dx=1.0 / n, dy=1.0 / n, dz=1.0 / n)
    phi = CellVariable(mesh=mesh, value=0.0, hasOld=True)
    phi.constrain(1.0, mesh.facesLeft)
    native_mesh = kfvm.Grid3D(nx=n, ny=n, nz=n, dx=1.0 / n, dy=1.0 / n, dz=1.0 / n)
    native = kfvm.CellVariable(native_mesh, value=0.0, hasOld=True)
    native.constrain(1.0, native_mesh.facesLeft)
    native_eq = kfvm.TransientTerm() == kfvm.DiffusionTerm(coeff=1.0)
    for _ in range(2):
        phi.updateOld()
        (TransientTerm() == DiffusionTerm(1.0)).solve(var=phi, dt=0.01,
                                                      solver=fipy.LinearCGSolver())
        native.updateOld()
        native_eq.solve(var=native, dt=0.01, solver=kfvm.Solver(
            "cg", tolerance=1e-5, preconditioner="none"))
    assert np.array_equal(np.asarray(phi.value), native.value)


def test_fourth_order_cell_coefficients_give_fipys_answer_with_its_face_means():
    """FiPy's DiffusionTerm((D, kappa)) with CellVariable coefficients takes their
    arithmetic face means (arithmeticFaceValue); kfvm's term given those face values
    (its FaceField form of higherOrderDiffusion) reaches FiPy's own answer, on a
    non-uniform grid with a Dirichlet side. The same term given the cells themselves
    takes harmonic means, a different answer."""
    kf.deactivate()  # FiPy alone
    dx = [0.02] * 20 + [0.03] * 20
    mesh = Grid1D(dx=dx)
    x = np.asarray(mesh.cellCenters[0])
    start = 0.5 + 0.1 * np.sin(4 * x)
    D_cells, kappa_cells = 1.0 + x, 0.5 + x ** 2
    phi = CellVariable(mesh=mesh, value=start, hasOld=True)
    phi.constrain(0.7, mesh.facesLeft)
    D = CellVariable(mesh=mesh, value=D_cells)
    kappa = CellVariable(mesh=mesh, value=kappa_cells)
    eq = TransientTerm() == -DiffusionTerm(coeff=(D, kappa))
    for _ in range(4):
        phi.updateOld()
        eq.solve(var=phi, dt=1e-4, solver=fipy.LinearLUSolver(tolerance=TIGHT))
    fipy_answer = np.array(phi.value)
    D_faces = np.asarray(D.arithmeticFaceValue)
    kappa_faces = np.asarray(kappa.arithmeticFaceValue)

    def kfvm_answer(by_faces):
        m = kfvm.Grid1D(dx=dx)
        p = kfvm.CellVariable(m, value=start)
        p.constrain(0.7, m.facesLeft)
        if by_faces:
            coeff = (kfvm.FaceVariable(m, value=D_faces),
                     kfvm.FaceVariable(m, value=kappa_faces))
        else:
            coeff = (kfvm.CellVariable(m, value=D_cells),
                     kfvm.CellVariable(m, value=kappa_cells))
        e = kfvm.TransientTerm() == -kfvm.DiffusionTerm(coeff=coeff)
        solver = kfvm.Solver("gmres", preconditioner="ilu0", tolerance=1e-14)
        for _ in range(4):
            e.solve(var=p, dt=1e-4, solver=solver)
        return np.array(p.value)

    assert relative(fipy_answer, start) > 1e-3  # the steps moved it
    assert relative(fipy_answer, kfvm_answer(True)) < 1e-10
    assert relative(fipy_answer, kfvm_answer(False)) > 1e-6


def test_a_stand_in_that_misses_is_solved_again_by_the_direct_solver(monkeypatch):
    """Where a Krylov method stands in for FiPy's default solver (its LU) and misses its
    tolerance, the direct solver solves the system again before the sweep returns: the
    answer is FiPy's LU's, and report() says so. The stand-in is forced here (one GMRES
    iteration, the direct solver not the default at this size)."""
    import kfvm.fipy.solvers as translated
    monkeypatch.setattr(translated, "STAND_IN_ITERATIONS", 1)
    monkeypatch.setattr(translated._extension, "direct_solver_by_default",
                        lambda dim, cells: False)
    answers = []
    for on in (False, True):
        (kf.activate if on else kf.deactivate)()
        kf.reset()
        mesh = Grid2D(nx=12, ny=10, dx=1.0, dy=1.0)
        c = CellVariable(mesh=mesh, hasOld=True,
                         value=0.5 + 0.05 * np.sin(np.arange(mesh.numberOfCells) * 1.3))
        second = 1 - 6 * c.arithmeticFaceValue * (1 - c.arithmeticFaceValue)  # f''(c)
        eq = (fterms.TransientTerm() == fterms.DiffusionTerm(coeff=second)
              - fterms.DiffusionTerm(coeff=(1.0, 1.0)))
        c.updateOld()
        for _ in range(2):
            eq.sweep(var=c, dt=1.0)
        answers.append(np.array(c.value))
    kf.activate()
    assert relative(answers[0], answers[1]) < 1e-9
    [entry] = kf.report()
    assert entry["where"] == "kfvm" and entry["retries"] == 2, entry
    assert entry["solver"].startswith("lu"), entry
    from kfvm.fipy.engine import engine
    retries = engine().retries
    assert len(retries) == 2 and all(r["converged"] for r in retries)
    assert retries[0]["failed"].startswith("gmres") and "iteration" in retries[0]["reason"]
