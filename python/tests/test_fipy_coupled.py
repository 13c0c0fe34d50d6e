"""kfvm.fipy: FiPy's coupled systems (eq1 & eq2, and the vector forms) solved by FiPy
alone and through kfvm.fipy. FiPy comes from KFVM_FIPY_PATH (fipy_setup.py)."""

import numpy as np
import pytest

from fipy_setup import TIGHT, _hook, fipy, grid2d, kf, relative  # noqa: F401
from fipy import (CellVariable, FaceVariable, Grid1D,  # noqa: E402
                  DiffusionTerm, ImplicitSourceTerm, TransientTerm)
from fipy import terms as fterms  # noqa: E402


def _coupled_cahn_hilliard(m, v):
    """examples/cahnHilliard/mesh2DCoupled's eq1 & eq2: a cell-field ImplicitSourceTerm
    of either sign on phi in psi's equation (FiPy's rule by block), an explicit source,
    no hasOld."""
    phi, psi = v
    dfdphi = phi * (1 - phi) * (1 - 2 * phi)
    d2fdphi2 = 1 - 6 * phi * (1 - phi)
    eq1 = TransientTerm(var=phi) == DiffusionTerm(coeff=1.0, var=psi)
    eq2 = (ImplicitSourceTerm(coeff=1.0, var=psi)
           == ImplicitSourceTerm(coeff=d2fdphi2, var=phi) - d2fdphi2 * phi + dfdphi
           - DiffusionTerm(coeff=0.01, var=phi))
    return eq1 & eq2


def _coupled_cross_diffusion(m, v):
    """examples/diffusion/coupled's second form: cross-diffusion blocks of either sign,
    each variable's constraints in every block acting on it."""
    v0, v1 = v
    eqn0 = TransientTerm(var=v0) == DiffusionTerm(0.01, var=v0) - DiffusionTerm(1, var=v1)
    eqn1 = TransientTerm(var=v1) == DiffusionTerm(1, var=v0) + DiffusionTerm(0.01, var=v1)
    return eqn0 & eqn1


def _coupled_three(m, v):
    """Three variables: a transient coefficient field, face coefficients of either sign
    from a variable, steady third equation, sources of either sign off the diagonal."""
    a, b, c = v
    face = 0.5 - b.arithmeticFaceValue
    return ((TransientTerm(1.0 + m.x, var=a) == DiffusionTerm(0.2, var=a)
             + DiffusionTerm(face, var=b) + ImplicitSourceTerm(b - 0.3, var=c))
            & (TransientTerm(2.0, var=b) == DiffusionTerm(0.3, var=b)
               - ImplicitSourceTerm(a, var=a) + 0.1)
            & (DiffusionTerm(1.0, var=c) + ImplicitSourceTerm(-1.0, var=c)
               + ImplicitSourceTerm(0.5, var=a) == 0))


def _coupled_case(mesh_of, equations_of, names, has_old, constrain, dt=1e-3):
    def build():
        mesh = mesh_of()
        x = mesh.cellCenters[0]
        v = [CellVariable(mesh=mesh, name=n, hasOld=has_old,
                          value=0.5 + 0.1 * np.sin(7.0 * (k + 1) * x)) for k, n in
             enumerate(names)]
        constrain(mesh, v)
        return (lambda: equations_of(mesh, v)), v, {"dt": dt}
    return build


def _constrain_ends(m, v):
    v[0].constrain(0.0, m.facesLeft)
    v[0].constrain(1.0, m.facesRight)
    v[1].constrain(1.0, m.facesLeft)
    v[1].constrain(0.0, m.facesRight)


def _constrain_mixed(m, v):
    v[0].constrain(1.0, m.facesLeft)
    v[1].faceGrad.constrain([[0.0]] * (m.dim - 1) + [[0.4]], m.facesTop)
    v[2].constrain(0.2 * m.faceCenters[1], m.facesRight)


COUPLED_CASES = {
    "cahn-hilliard-coupled-nonuniform-2d": _coupled_case(
        grid2d, _coupled_cahn_hilliard, ("phi", "psi"), False, lambda m, v: None),
    "cross-diffusion-1d": _coupled_case(lambda: Grid1D(nx=50, Lx=1.0),
                                        _coupled_cross_diffusion, ("v0", "v1"), True,
                                        _constrain_ends, dt=1e-2),
    "three-variables-2d": _coupled_case(grid2d, _coupled_three, ("a", "b", "c"), True,
                                        _constrain_mixed, dt=1e-2),
}


def _vector_cahn_hilliard(m, var):
    """mesh2DCoupled's vector form: (2, 2) coefficients, one block per entry."""
    v0 = var[0]
    dfdphi = v0 * (1 - v0) * (1 - 2 * v0)
    d2fdphi2 = 1 - 6 * v0 * (1 - v0)
    source = (- d2fdphi2 * v0 + dfdphi) * (0, 1)
    implicit = d2fdphi2 * ((0, 0), (1., 0)) + ((0, 0), (0, -1.))
    return (TransientTerm(((1., 0.), (0., 0.)))
            == DiffusionTerm([((0., 1.0), (-0.01, 0.))]) + ImplicitSourceTerm(implicit)
            + source)


def _vector_cross_diffusion(m, var):
    """examples/diffusion/coupled's vector form, with a (2, 2) face coefficient of x."""
    x = np.asarray(m.faceCenters[0])
    one = np.ones_like(x)
    D = FaceVariable(mesh=m, elementshape=(2, 2),
                     value=[[0.01 * one, -1 + 0.5 * x], [one, 0.01 + 0.1 * x]])
    return TransientTerm([[1, 0], [0, 1]]) == DiffusionTerm([D])


def _vector_case(mesh_of, equation_of, has_old, constrain, dt):
    def build():
        mesh = mesh_of()
        x = mesh.cellCenters[0]
        var = CellVariable(mesh=mesh, name="v", hasOld=has_old, elementshape=(2,),
                           value=[0.5 + 0.1 * np.sin(7.0 * x), 0.5 - 0.1 * np.cos(5.0 * x)])
        constrain(mesh, var)
        return (lambda: equation_of(mesh, var)), [var], {"dt": dt, "var": var}
    return build


def _constrain_vector_ends(m, var):
    var.constrain([[0], [1]], m.facesLeft)
    var.constrain([[1], [0]], m.facesRight)


COUPLED_CASES.update({
    "vector-cahn-hilliard-nonuniform-2d": _vector_case(
        grid2d, _vector_cahn_hilliard, False, lambda m, v: None, 1e-3),
    "vector-cross-diffusion-1d": _vector_case(lambda: Grid1D(nx=50, Lx=1.0),
                                              _vector_cross_diffusion, True,
                                              _constrain_vector_ends, 1e-2),
})


def _both_coupled(build, steps=3, sweep=False):
    """The variables after `steps` solves with FiPy alone and with kfvm.fipy (the
    equation built anew at every step, as in _both)."""
    answers, residuals = [], []
    for on in (False, True):
        (kf.activate if on else kf.deactivate)()
        make, variables, options = build()
        r = []
        for _ in range(steps):
            for var in variables:
                if getattr(var, "_old", None) is not None:
                    var.updateOld()
            solver = fipy.LinearLUSolver(tolerance=TIGHT)
            if sweep:
                r.append(make().sweep(solver=solver, **options))
            make().solve(solver=solver, **options)
        answers.append(np.concatenate([np.array(v.value).reshape(-1) for v in variables]))
        residuals.append(np.array(r))
    kf.activate()
    return answers, residuals


@pytest.mark.parametrize("name", sorted(COUPLED_CASES))
def test_translated_coupled_solve_is_fipys(name):
    (fipy_alone, on_kfvm), _ = _both_coupled(COUPLED_CASES[name])
    assert relative(fipy_alone, on_kfvm) < 1e-10
    assert {r["where"] for r in kf.report()} == {"kfvm"}, kf.report()


def test_coupled_sweep_returns_fipys_residual():
    _, (fipy_alone, on_kfvm) = _both_coupled(COUPLED_CASES["three-variables-2d"],
                                             sweep=True)
    assert np.allclose(fipy_alone, on_kfvm, rtol=1e-9, atol=1e-12)


def test_coupled_system_compiled_once():
    mesh = grid2d()
    phi = CellVariable(mesh=mesh, value=0.5 + 0.01 * np.sin(9.0 * mesh.x), name="phi")
    psi = CellVariable(mesh=mesh, name="psi")
    for _ in range(3):
        _coupled_cahn_hilliard(mesh, (phi, psi)).solve(dt=1e-3)
    (row,) = kf.report()
    assert row["where"] == "kfvm" and row["calls"] == 3 and row["compiles"] == 1


def test_coupled_convection_falls_back():
    mesh = Grid1D(nx=10)
    a, b = CellVariable(mesh=mesh, value=0.0), CellVariable(mesh=mesh, value=1.0)
    eq = ((TransientTerm(var=a) + fterms.UpwindConvectionTerm((1.0,), var=a)
           == DiffusionTerm(1.0, var=b))
          & (TransientTerm(var=b) == DiffusionTerm(1.0, var=a)))
    eq.solve(dt=0.1)
    (row,) = kf.report()
    assert row["where"] == "fipy" and "UpwindConvectionTerm" in row["reason"]
