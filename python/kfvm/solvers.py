"""Linear solvers by kfvm name."""

import numbers as _numbers

from ._errors import Error


class Solver:
    """A linear solver of kfvm by name, with its parameters.

    ``Solver("cg", preconditioner="jacobi", tolerance=1e-8)``; names:
    kfvm.linear_solver_names() (the Krylov methods cg, fcg, bicgstab, gmres, fgmres, and
    belos:... / amesos2:... where Trilinos is built). Parameters: tolerance (relative to
    ||b||), criterion ("rhs" or "initial"), absolute_tolerance, max_iterations (FiPy's
    ``iterations`` is accepted too), preconditioner (kfvm.preconditioner_names(): jacobi,
    none, ilu0, block-jacobi, chebyshev, mg; Trilinos' names for Trilinos solvers),
    chebyshev_degree, chebyshev_eigen_iterations, chebyshev_boost, chebyshev_ratio,
    chebyshev_estimate (chebyshev), mg_degree, mg_sweeps, mg_coarse_cells,
    mg_coarse_degree, mg_levels, mg_cycle, mg_estimate, mg_sweep_loop, mg_smoother (mg:
    geometric multigrid on the grid, one process), restart (gmres, fgmres).
    ``matrix_free=True`` solves with the matrix-free stencil instead of the assembled
    matrix (kfvm's own methods, with a preconditioner that needs no matrix: jacobi,
    chebyshev, mg, none). A bad name or
    parameter raises kfvm.Error when the solver is first used.
    """

    def __init__(self, name="cg", **parameters):
        if not isinstance(name, str):
            raise Error("a solver name is a string, got %r" % (name,))
        if "iterations" in parameters:
            parameters["max_iterations"] = parameters.pop("iterations")
        if "precon" in parameters:
            parameters["preconditioner"] = parameters.pop("precon")
        self.name = name
        matrix_free = parameters.pop("matrix_free", False)
        if not isinstance(matrix_free, bool):
            raise Error("solver parameter matrix_free must be True or False, got %r"
                        % (matrix_free,))
        self.matrix_free = matrix_free
        self.parameters = {}
        for key, value in parameters.items():
            if isinstance(value, bool) or not isinstance(value, (_numbers.Real, str)):
                raise Error("solver parameter %s must be a number or a name, got %r"
                            % (key, value))
            self.parameters[key] = repr(float(value)) if isinstance(value, float) else str(value)

    def _key(self):
        return (self.name, self.matrix_free, tuple(sorted(self.parameters.items())))

    def __repr__(self):
        items = "".join(", %s=%s" % kv for kv in sorted(self.parameters.items()))
        if self.matrix_free:
            items += ", matrix_free=True"
        return "Solver(%r%s)" % (self.name, items)


def _solver_of(solver, default):
    if solver is None:
        return default
    if isinstance(solver, Solver):
        return solver
    if isinstance(solver, str):
        return Solver(solver)
    raise Error("solver must be a kfvm.Solver or a solver name, got %r" % (solver,))
