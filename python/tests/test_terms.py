"""Every term and boundary condition against exact solutions."""

import numpy as np
import pytest

import kfvm

DOUBLE = kfvm.real_type == "float64"
TIGHT = 1e-9 if DOUBLE else 2e-4
#: Sweep tolerance: float's residuals stop near 1e-7 (as kfvm_TestSpace.hpp's
#: solverTolerance for the C++ suite).
SWEEPS = 1e-8 if DOUBLE else 1e-5
SOLVER = kfvm.Solver("cg", tolerance=1e-12 if kfvm.real_type == "float64" else 1e-6)
GMRES = kfvm.Solver("gmres", preconditioner="ilu0",
                    tolerance=1e-12 if kfvm.real_type == "float64" else 1e-6)


def test_steady_dirichlet_diffusion_is_linear_on_a_nonuniform_grid():
    dx = np.linspace(0.5, 1.5, 20) / 20
    mesh = kfvm.Grid1D(dx=dx)
    phi = kfvm.CellVariable(mesh, name="phi")
    phi.constrain(2.0, mesh.facesLeft)
    phi.constrain(5.0, mesh.facesRight)
    L = dx.sum()
    report = (kfvm.DiffusionTerm(coeff=3.0) == 0).solve(var=phi, solver=SOLVER)
    assert report.converged and report.iterations > 0
    assert np.max(np.abs(phi.value - (2 + 3 * mesh.x / L))) < TIGHT


def test_neumann_flux_and_faceGrad_constraint_give_the_slope():
    mesh = kfvm.Grid2D(nx=8, ny=5, dx=0.25, dy=0.2)
    for kind in ("normal", "faceGrad"):
        phi = kfvm.CellVariable(mesh)
        phi.constrain(1.0, mesh.facesLeft)
        if kind == "normal":
            phi.constrainNormalGradient(0.5, mesh.facesRight)
        else:
            phi.faceGrad.constrain([0.5, 0.0], mesh.facesRight)  # FiPy: a vector
        (kfvm.DiffusionTerm(coeff=2.0) == 0).solve(var=phi, solver=SOLVER)
        assert np.max(np.abs(phi.value - (1 + 0.5 * mesh.x))) < TIGHT, kind


def test_robin_condition():
    # phi'' = 0, phi(0) = 0, a phi + b phi' = g at x = 1: phi = g x / (a + b)
    mesh = kfvm.Grid1D(nx=10, dx=0.1)
    phi = kfvm.CellVariable(mesh)
    phi.constrain(0.0, mesh.facesLeft)
    phi.constrainRobin(2.0, 1.0, 1.5, mesh.facesRight)
    kfvm.DiffusionTerm().solve(var=phi, solver=SOLVER)  # FiPy's term.solve: term == 0
    assert np.max(np.abs(phi.value - 1.5 * mesh.x / 3.0)) < TIGHT


def test_per_face_dirichlet_values_on_every_side_reproduce_a_linear_field():
    mesh = kfvm.Grid2D(nx=6, ny=7, dx=1.0 / 6, dy=1.0 / 7)
    X, Y = mesh.faceCenters
    phi = kfvm.CellVariable(mesh)
    phi.constrain(1 + 2 * X - Y, mesh.exteriorFaces)  # one value per face of the mesh
    (kfvm.DiffusionTerm() == 0).solve(var=phi, solver=SOLVER)
    x, y = mesh.cellCenters
    assert np.max(np.abs(phi.value - (1 + 2 * x - y))) < TIGHT


def test_a_mask_that_cuts_a_patch():
    mesh = kfvm.Grid2D(nx=4, ny=4)
    X, Y = mesh.faceCenters
    phi = kfvm.CellVariable(mesh)
    phi.constrain(1.0, mesh.facesLeft & (Y < 2))
    phi.constrain(0.0, mesh.facesRight)
    (kfvm.DiffusionTerm() == 0).solve(var=phi, solver=SOLVER)
    v = phi.value.reshape(4, 4)
    assert v[0, 0] > v[3, 0] and v[0, 0] > v[0, 3] > 0


def test_transient_with_source_grows_linearly():
    mesh = kfvm.Grid1D(nx=5)
    phi = kfvm.CellVariable(mesh, value=1.0)
    eq = kfvm.TransientTerm(coeff=2.0) == kfvm.DiffusionTerm() + 3.0
    for _ in range(4):
        eq.solve(var=phi, dt=0.25, solver=SOLVER)
    assert np.max(np.abs(phi.value - (1 + 1.5))) < TIGHT


def test_implicit_source_decay_backward_euler_and_crank_nicolson():
    mesh = kfvm.Grid1D(nx=3)
    for scheme, factor in (("be", 1 / (1 + 0.1)), ("cn", (1 - 0.05) / (1 + 0.05))):
        phi = kfvm.CellVariable(mesh, value=1.0)
        eq = kfvm.TransientTerm() == kfvm.ImplicitSourceTerm(coeff=-1.0)
        for _ in range(10):
            eq.solve(var=phi, dt=0.1, scheme=scheme, solver=SOLVER)
        assert np.max(np.abs(phi.value - factor ** 10)) < TIGHT, scheme


def test_cellvariable_coefficients_are_read_live():
    mesh = kfvm.Grid1D(nx=4)
    c = kfvm.CellVariable(mesh, value=-1.0, name="c")
    phi = kfvm.CellVariable(mesh, value=1.0)
    eq = kfvm.TransientTerm() == kfvm.ImplicitSourceTerm(coeff=c)
    eq.solve(var=phi, dt=1.0, solver=SOLVER)
    c.value = -3.0  # the compiled equation reads c's memory
    eq.solve(var=phi, dt=1.0, solver=SOLVER)
    assert np.max(np.abs(phi.value - 1 / 2 / 4)) < TIGHT
    # and a negated field is refreshed before every solve
    eq2 = kfvm.TransientTerm() + kfvm.ImplicitSourceTerm(coeff=c) == 0
    phi.value = 1.0
    c.value = 1.0
    eq2.solve(var=phi, dt=1.0, solver=SOLVER)
    assert np.max(np.abs(phi.value - 0.5)) < TIGHT


def test_face_coefficient_and_harmonic_cell_coefficient():
    # layered medium: D = 1 left half, 4 right half; flux continuity gives the slopes
    mesh = kfvm.Grid1D(nx=10, dx=0.1)
    D = kfvm.CellVariable(mesh, value=np.where(mesh.x < 0.5, 1.0, 4.0))
    for coeff in (D, D.harmonicFaceValue):
        phi = kfvm.CellVariable(mesh)
        phi.constrain(0.0, mesh.facesLeft)
        phi.constrain(1.0, mesh.facesRight)
        (kfvm.DiffusionTerm(coeff=coeff) == 0).solve(var=phi, solver=SOLVER)
        # slopes s1, s2 with s1 = 4 s2 and (s1 + s2) / 2 = 1
        exact = np.where(mesh.x < 0.5, 1.6 * mesh.x, 0.8 + 0.4 * (mesh.x - 0.5))
        assert np.max(np.abs(phi.value - exact)) < TIGHT


def test_fourth_order_term_takes_cell_and_face_fields():
    """- DiffusionTerm((D, kappa)) with fields: constant ones give the numbers' steps;
    cell fields give the steps of their harmonic face means given per face; a negative
    value is an error naming it."""
    # dt / dx^4 = 1: a matrix float's GMRES solves too (at dx = 0.05 it did not).
    mesh = kfvm.Grid1D(nx=20, dx=0.1)
    start = 0.5 + 0.1 * np.sin(3 * mesh.x)
    D_cells, kappa_cells = 1.0 + mesh.x, 0.5 + mesh.x ** 2

    def steps(coeff):
        phi = kfvm.CellVariable(mesh, value=start)
        eq = kfvm.TransientTerm() == -kfvm.DiffusionTerm(coeff=coeff)
        for _ in range(3):
            eq.solve(var=phi, dt=1e-4, solver=GMRES)
        return np.array(phi.value)

    numbers = steps((1.0, 0.5))
    assert np.max(np.abs(numbers - start)) > 1e-3
    constant = steps((kfvm.CellVariable(mesh, value=1.0), 0.5))
    assert np.max(np.abs(constant - numbers)) < TIGHT
    D, kappa = kfvm.CellVariable(mesh, value=D_cells), kfvm.CellVariable(mesh, value=kappa_cells)
    by_cells = steps((D, kappa))
    by_faces = steps((D.harmonicFaceValue, kappa.harmonicFaceValue))
    assert np.max(np.abs(by_cells - numbers)) > 1e-4  # the fields matter
    assert np.max(np.abs(by_cells - by_faces)) < TIGHT
    with pytest.raises(kfvm.Error, match="higher-order diffusion kappa coefficient at cell 3"):
        steps((D, kfvm.CellVariable(mesh, value=np.where(np.arange(20) == 3, -1.0, 1.0))))
    with pytest.raises(kfvm.Error, match="both per cell or both per face"):
        steps((D, kappa.harmonicFaceValue))


@pytest.mark.parametrize("cls", [kfvm.ExponentialConvectionTerm])
def test_exponential_convection_is_exact_in_1d(cls):
    # FiPy's examples/convection/exponential1D, written FiPy's way
    D, u, L = 2.0, 10.0, 1.0
    mesh = kfvm.Grid1D(nx=25, dx=L / 25)
    phi = kfvm.CellVariable(mesh)
    phi.constrain(0.0, mesh.facesLeft)
    phi.constrain(1.0, mesh.facesRight)
    (kfvm.DiffusionTerm(coeff=D) + cls(coeff=(u,)) == 0).solve(var=phi, solver=GMRES)
    exact = (1 - np.exp(-u * mesh.x / D)) / (1 - np.exp(-u * L / D))
    assert np.max(np.abs(phi.value - exact)) < 1e-8 if kfvm.real_type == "float64" else 1e-4


@pytest.mark.parametrize("cls", [kfvm.UpwindConvectionTerm, kfvm.PowerLawConvectionTerm,
                                 kfvm.HybridConvectionTerm, kfvm.CentralDifferenceConvectionTerm,
                                 kfvm.VanLeerConvectionTerm, kfvm.MinmodConvectionTerm,
                                 kfvm.SuperbeeConvectionTerm])
def test_every_scheme_converges_to_the_boundary_layer(cls):
    errors = []
    for n in (50, 100):
        mesh = kfvm.Grid1D(nx=n, dx=1.0 / n)
        phi = kfvm.CellVariable(mesh)
        phi.constrain(0.0, mesh.facesLeft)
        phi.constrain(1.0, mesh.facesRight)
        (kfvm.DiffusionTerm(coeff=0.2) + cls(coeff=(1.0,)) == 0).solve(
            var=phi, solver=GMRES, sweep_tolerance=SWEEPS)
        exact = (1 - np.exp(-mesh.x / 0.2)) / (1 - np.exp(-1 / 0.2))
        errors.append(np.max(np.abs(phi.value - exact)))
    assert errors[1] < errors[0] < 0.05


def test_face_velocity_and_vector_velocity_agree():
    mesh = kfvm.Grid2D(nx=6, ny=6, dx=1 / 6, dy=1 / 6)
    u = np.array([1.0, 0.5])
    normal = kfvm.FaceVariable(mesh, value=u @ mesh.faceNormals)
    results = []
    for coeff in (tuple(u), normal, np.tile(u.reshape(2, 1), (1, mesh.numberOfFaces))):
        phi = kfvm.CellVariable(mesh)
        phi.constrain(1.0, mesh.facesLeft)
        (kfvm.TransientTerm() + kfvm.UpwindConvectionTerm(coeff=coeff)
         == kfvm.DiffusionTerm(0.1)).solve(var=phi, dt=0.1, solver=GMRES)
        results.append(phi.value)
    assert np.max(np.abs(results[0] - results[1])) < TIGHT
    assert np.max(np.abs(results[0] - results[2])) < TIGHT


def test_polynomial_diffusion_kirchhoff():
    # (D(phi) phi')' = 0 with D = 1 + phi: phi + phi^2/2 is linear in x
    errors = []
    for n in (20, 40):
        mesh = kfvm.Grid1D(nx=n, dx=1.0 / n)
        phi = kfvm.CellVariable(mesh)
        phi.constrain(0.0, mesh.facesLeft)
        phi.constrain(1.0, mesh.facesRight)
        report = (kfvm.DiffusionTerm(coeff=kfvm.Polynomial([1, 1])) == 0).solve(
            var=phi, solver=GMRES, sweep_tolerance=SWEEPS)
        assert report.sweeps > 1
        errors.append(np.max(np.abs(-1 + np.sqrt(1 + 3 * mesh.x) - phi.value)))
    assert errors[1] < 0.5 * errors[0]  # at least first order; measured second


def test_sweeps_reduce_the_residual_like_fipys():
    mesh = kfvm.Grid1D(nx=30, dx=1 / 30)
    phi = kfvm.CellVariable(mesh, hasOld=True)
    phi.constrain(1.0, mesh.facesLeft)
    eq = kfvm.TransientTerm() == kfvm.DiffusionTerm(coeff=kfvm.Polynomial([1, 2]))
    phi.updateOld()
    residuals = [eq.sweep(var=phi, dt=0.01, solver=GMRES) for _ in range(8)]
    assert all(b < a for a, b in zip(residuals, residuals[1:])), residuals  # Picard sweeps
    assert residuals[-1] < 1e-4 * residuals[0]
    assert eq.last_report.sweeps == 1


def test_explicit_forward_euler_matches_backward_euler_to_first_order():
    mesh = kfvm.Grid1D(nx=20, dx=0.05)
    init = np.sin(np.pi * mesh.x)
    values = {}
    for scheme in ("fe", "rk2", "be"):
        phi = kfvm.CellVariable(mesh, value=init)
        phi.constrain(0.0, mesh.exteriorFaces)
        eq = kfvm.TransientTerm() == kfvm.DiffusionTerm(0.1)
        for _ in range(20):
            eq.solve(var=phi, dt=0.005, scheme=scheme, solver=SOLVER)
        values[scheme] = phi.value
    exact = np.exp(-0.1 * np.pi ** 2 * 0.1) * init
    for v in values.values():
        assert np.max(np.abs(v - exact)) < 2e-3
    with pytest.raises(kfvm.Error, match="stable"):
        phi = kfvm.CellVariable(mesh)
        (kfvm.TransientTerm() == kfvm.DiffusionTerm(0.1)).solve(var=phi, dt=10.0, scheme="fe")


def test_coupled_system_and_its_report():
    mesh = kfvm.Grid1D(nx=20, dx=0.05)
    u = kfvm.CellVariable(mesh, value=1.0, name="u")
    v = kfvm.CellVariable(mesh, value=0.0, name="v")
    eq = ((kfvm.TransientTerm(var=u) == kfvm.ImplicitSourceTerm(-1.0, var=u) + kfvm.ImplicitSourceTerm(1.0, var=v))
          & (kfvm.TransientTerm(var=v) == kfvm.ImplicitSourceTerm(1.0, var=u) + kfvm.ImplicitSourceTerm(-1.0, var=v)))
    report = eq.solve(dt=0.1, solver=GMRES)
    assert report.converged
    # u + v is conserved; u - v decays by 1 / (1 + 2 dt)
    assert np.max(np.abs(u.value + v.value - 1)) < TIGHT
    assert np.max(np.abs(u.value - v.value - 1 / 1.2)) < TIGHT


def test_coupled_crank_nicolson_decays_by_its_amplification_factor():
    """u - v decays at rate 2: per Crank-Nicolson step by (1 - dt) / (1 + dt), where
    backward Euler gives 1 / (1 + 2 dt); u + v is conserved either way."""
    mesh = kfvm.Grid1D(nx=20, dx=0.05)
    u = kfvm.CellVariable(mesh, value=1.0, name="u")
    v = kfvm.CellVariable(mesh, value=0.0, name="v")
    eq = ((kfvm.TransientTerm(var=u) == kfvm.ImplicitSourceTerm(-1.0, var=u) + kfvm.ImplicitSourceTerm(1.0, var=v))
          & (kfvm.TransientTerm(var=v) == kfvm.ImplicitSourceTerm(1.0, var=u) + kfvm.ImplicitSourceTerm(-1.0, var=v)))
    dt = 0.1
    for _ in range(3):
        assert eq.solve(dt=dt, solver=GMRES, scheme="crank-nicolson").converged
    assert np.max(np.abs(u.value + v.value - 1)) < TIGHT
    assert np.max(np.abs(u.value - v.value - ((1 - dt) / (1 + dt)) ** 3)) < TIGHT
    with pytest.raises(kfvm.Error, match="unknown time scheme 'fe'"):
        eq.solve(dt=dt, solver=GMRES, scheme="fe")


def test_coupled_system_with_field_coefficients():
    """An exchange at a rate k(x) (a CellVariable, changed between steps) and a source
    field s(x): one backward-Euler step conserves u + v up to dt s, and u - v decays by
    1 / (1 + 2 k dt) per cell."""
    mesh = kfvm.Grid1D(nx=20, dx=0.05)
    x = mesh.x
    u = kfvm.CellVariable(mesh, value=1.0 + x, name="u")
    v = kfvm.CellVariable(mesh, value=0.5 - x, name="v")
    k = kfvm.CellVariable(mesh, value=1.0 + 2.0 * x, name="k")
    s = kfvm.CellVariable(mesh, value=np.sin(3.0 * x), name="s")
    eq = ((kfvm.TransientTerm(var=u) == -kfvm.ImplicitSourceTerm(k, var=u)
           + kfvm.ImplicitSourceTerm(k, var=v) + s)
          & (kfvm.TransientTerm(var=v) == kfvm.ImplicitSourceTerm(k, var=u)
             - kfvm.ImplicitSourceTerm(k, var=v)))
    dt = 0.1
    for rate in (1.0 + 2.0 * x, 3.0 - x):
        k.value = rate
        total, difference = u.value + v.value, u.value - v.value
        assert eq.solve(dt=dt, solver=GMRES).converged
        assert np.max(np.abs(u.value + v.value - (total + dt * s.value))) < TIGHT
        assert np.max(np.abs(u.value - v.value - (difference + dt * s.value)
                             / (1 + 2 * rate * dt))) < TIGHT
    for bad in (k, np.ones(mesh.numberOfCells)):  # cell values for a face coefficient
        with pytest.raises(kfvm.Error, match="FaceVariable"):
            ((kfvm.TransientTerm(var=u) == kfvm.DiffusionTerm(bad, var=v))
             & (kfvm.TransientTerm(var=v) == kfvm.DiffusionTerm(1.0, var=u))).solve(dt=dt)
    face = kfvm.FaceVariable(mesh, value=1.0)
    with pytest.raises(kfvm.Error, match="cell values"):
        ((kfvm.TransientTerm(var=u) == kfvm.ImplicitSourceTerm(face, var=v))
         & (kfvm.TransientTerm(var=v) == kfvm.DiffusionTerm(1.0, var=u))).solve(dt=dt)


def test_failed_solve_raises_with_the_report_or_returns_it():
    mesh = kfvm.Grid1D(nx=50)
    phi = kfvm.CellVariable(mesh)
    phi.constrain(1.0, mesh.facesLeft)
    eq = kfvm.DiffusionTerm() == 0
    with pytest.raises(kfvm.ConvergenceError) as error:
        eq.solve(var=phi, solver=kfvm.Solver("cg", max_iterations=2))
    assert not error.value.report.converged and error.value.report.iterations == 2
    assert isinstance(error.value, kfvm.Error) and isinstance(error.value, ValueError)
    report = eq.solve(var=phi, solver=kfvm.Solver("cg", max_iterations=2), check=False)
    assert not report and "2" in report.reason


@pytest.mark.parametrize("method", ["cg", "fcg", "bicgstab", "gmres", "fgmres"])
@pytest.mark.parametrize("preconditioner", ["none", "jacobi", "chebyshev"])
def test_matrix_free_steps_equal_matrix_steps(method, preconditioner):
    mesh = kfvm.Grid2D(nx=12, ny=9, dx=0.1, dy=0.15)
    D = kfvm.CellVariable(mesh, value=1.0 + 0.5 * np.sin(3 * mesh.x))
    answers = []
    for matrix_free in (False, True):
        phi = kfvm.CellVariable(mesh, value=np.cos(2 * mesh.y))
        phi.constrain(1.0, mesh.facesLeft)
        eq = kfvm.TransientTerm() == kfvm.DiffusionTerm(coeff=D)
        solver = kfvm.Solver(method, preconditioner=preconditioner,
                             tolerance=1e-12 if DOUBLE else 1e-6, matrix_free=matrix_free)
        for _ in range(3):
            report = eq.solve(var=phi, dt=0.01, solver=solver)
            assert report.converged, report.reason
        answers.append(phi.value.copy())
    assert np.max(np.abs(answers[0] - answers[1])) < TIGHT


def test_multigrid_steps_equal_jacobi_steps_in_fewer_iterations():
    mesh = kfvm.Grid3D(nx=24, ny=20, nz=16, dx=1 / 24, dy=1 / 20, dz=1 / 16)
    answers, iterations = [], []
    for preconditioner, matrix_free in (("jacobi", True), ("mg", True), ("mg", False)):
        phi = kfvm.CellVariable(mesh, value=np.sin(3 * mesh.x) * np.cos(2 * mesh.y))
        phi.constrain(1.0, mesh.facesLeft)
        eq = kfvm.TransientTerm() == kfvm.DiffusionTerm(coeff=1.0 + 0.5 * mesh.z)
        solver = kfvm.Solver("cg", preconditioner=preconditioner, matrix_free=matrix_free,
                             tolerance=1e-12 if DOUBLE else 1e-6)
        report = eq.solve(var=phi, dt=1.0, solver=solver)
        assert report.converged, report.reason
        answers.append(phi.value.copy())
        iterations.append(report.iterations)
    for answer in answers[1:]:
        assert np.max(np.abs(answer - answers[0])) < (1e-9 if DOUBLE else 1e-3)
    # The matrix-free stencil and the assembled matrix take the same multigrid.
    assert iterations[1] * 4 < iterations[0] and abs(iterations[2] - iterations[1]) <= 1, iterations


def test_the_solver_stack_names_and_a_matrix_free_solver_that_needs_a_matrix():
    assert kfvm.preconditioner_names() == ["none", "jacobi", "ilu0", "block-jacobi",
                                           "chebyshev", "mg"]
    assert {"fcg", "fgmres"} <= set(kfvm.linear_solver_names())
    mesh = kfvm.Grid1D(nx=10)
    phi = kfvm.CellVariable(mesh)
    eq = kfvm.TransientTerm() == kfvm.DiffusionTerm()
    with pytest.raises(kfvm.Error, match="'ilu0' needs an assembled matrix"):
        eq.solve(var=phi, dt=0.1, solver=kfvm.Solver("cg", preconditioner="ilu0",
                                                     matrix_free=True))
    with pytest.raises(kfvm.Error, match="matrix_free must be True or False"):
        kfvm.Solver("cg", matrix_free=1)
