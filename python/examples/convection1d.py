"""Steady 1D convection-diffusion by the exponential scheme (FiPy's
examples/convection/exponential1D).

FiPy's problem is div(D grad(phi) + u phi) = 0 on 0 < x < L with D = 1, u = 10,
phi = 0 at x = 0 and phi = 1 at x = L, whose solution is

    phi(x) = (1 - exp(-u x / D)) / (1 - exp(-u L / D)).

kfvm's ConvectionTerm(v) is div(v phi), as FiPy's, and FiPy's equation

    DiffusionTerm(coeff=D) + ExponentialConvectionTerm(coeff=(u,)) == 0

is solved as it is written. kfvm's own form has the diffusion on the right (D >= 0):

    ExponentialConvectionTerm(coeff=(-u,)) == DiffusionTerm(coeff=D),

the same equation, i.e. a flow of velocity -u (towards x = 0, where the boundary
layer sits); both are solved.

Check: the exponential scheme is exact for this problem in 1D at any grid spacing, so
both forms match the formula to solver tolerance (max relative error below 1e-8).
For contrast the upwind scheme's error is printed (it is first order; not checked).

Run:  python3 convection1d.py [--small]
"""

import argparse
import sys

import numpy as np

import kfvm


def solve(mesh, equation):
    phi = kfvm.CellVariable(mesh, value=0.0, name="phi")
    phi.constrain(0.0, mesh.facesLeft)
    phi.constrain(1.0, mesh.facesRight)
    equation.solve(var=phi, solver=kfvm.Solver("gmres", preconditioner="ilu0",
                                               tolerance=1e-12))
    return phi.value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="the CI size (a few seconds)")
    args = parser.parse_args()

    # FiPy's values: D = 1, u = 10, L = 10 on 10 cells (--small); the full size has
    # 1000 cells, which resolve the boundary layer of width D / u = 0.1.
    D, u, L = 1.0, 10.0, 10.0
    nx = 10 if args.small else 1000
    mesh = kfvm.Grid1D(nx=nx, dx=L / nx)

    x = mesh.x
    exact = (1.0 - np.exp(-u * x / D)) / (1.0 - np.exp(-u * L / D))
    scale = float(np.max(np.abs(exact)))

    fipy_form = (kfvm.DiffusionTerm(coeff=D)
                 + kfvm.ExponentialConvectionTerm(coeff=(u,)) == 0)
    kfvm_form = kfvm.ExponentialConvectionTerm(coeff=(-u,)) == kfvm.DiffusionTerm(coeff=D)
    upwind = kfvm.UpwindConvectionTerm(coeff=(-u,)) == kfvm.DiffusionTerm(coeff=D)
    errors = [float(np.max(np.abs(solve(mesh, eq) - exact))) / scale
              for eq in (fipy_form, kfvm_form, upwind)]

    print("convection1d: nx=%d  exponential max relative error: FiPy's form %.3e, "
          "kfvm's form %.3e (tol 1e-8)  upwind %.3e (not checked)" % (nx, *errors))
    for form, error in zip(("FiPy's", "kfvm's"), errors):
        if not error < 1e-8:
            sys.exit("convection1d: exponential scheme, %s form: error %.3e is above 1e-8"
                     % (form, error))


if __name__ == "__main__":
    main()
