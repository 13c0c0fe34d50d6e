#!/usr/bin/env python3
"""FiPy's exponential1D case discretized as FiPy does, in plain Python (no FiPy, no numpy).

0 = D phi'' + (u phi)' on [0, L], phi(0) = 0, phi(L) = 1, D = 1, u = 10, L = 10.
Face value phi_f = alpha phi_P + (1 - alpha) phi_A with FiPy's alpha(P) per scheme,
P = F / (D A / d); fixed-value faces use the boundary value as the neighbour at half a
cell. Prints the maximum error at the cell centres per scheme and mesh: the bounds in
tests/kfvm_ConvectionTest.cpp come from here.
"""
import math


def alpha(scheme, P):
    if scheme == "central":
        return 0.5
    if scheme == "upwind":
        return 1.0 if P > 0 else (0.0 if P < 0 else 0.5)
    if scheme == "exponential":
        if abs(P) < 1e-6:
            return 0.5 + P / 12
        if P > 50:
            return (P - 1) / P
        if P < -50:
            return -1 / P
        e = math.exp(P)
        return ((P - 1) * e + 1) / (P * (e - 1))
    if scheme == "hybrid":
        return (P - 1) / P if P > 2 else (-1 / P if P < -2 else 0.5)
    if scheme == "power-law":
        if abs(P) < 1e-3:
            return 0.5
        if P > 10:
            return (P - 1) / P
        if P < -10:
            return -1 / P
        if P > 0:
            t = 1 - P / 10
            return ((P - 1) + t**5) / P
        t = 1 + P / 10
        return (t**5 - 1) / P
    raise ValueError(scheme)


def solve(scheme, nx, D=1.0, u=10.0, L=10.0):
    # kfvm's sign: d(phi)/dt + div(v phi) = div(D grad phi) with v = -u.
    v = -u
    dx = L / nx
    lower, diag, upper, rhs = [0.0] * nx, [0.0] * nx, [0.0] * nx, [0.0] * nx
    for f in range(nx + 1):  # face f between cells f-1 and f
        if 0 < f < nx:
            k = D / dx
            F = v
            a = alpha(scheme, F / k)
            aO, aN = k + F * a, k - F * (1 - a)
            o, n = f - 1, f
            diag[o] += aO
            upper[o] -= aN
            diag[n] += aN
            lower[n] -= aO
        else:
            cell = 0 if f == 0 else nx - 1
            value = 0.0 if f == 0 else 1.0
            F = v * (-1 if f == 0 else 1)  # outward normal
            k = D / (dx / 2)
            a = alpha(scheme, F / k)
            diag[cell] += k + F * a
            rhs[cell] += k * value - F * (1 - a) * value
    # Thomas algorithm
    for i in range(1, nx):
        m = lower[i] / diag[i - 1]
        diag[i] -= m * upper[i - 1]
        rhs[i] -= m * rhs[i - 1]
    phi = [0.0] * nx
    phi[-1] = rhs[-1] / diag[-1]
    for i in range(nx - 2, -1, -1):
        phi[i] = (rhs[i] - upper[i] * phi[i + 1]) / diag[i]
    worst = 0.0
    for i in range(nx):
        x = (i + 0.5) * dx
        exact = (1 - math.exp(-u * x / D)) / (1 - math.exp(-u * L / D))
        worst = max(worst, abs(phi[i] - exact))
    return worst


if __name__ == "__main__":
    for nx in (10, 100):
        for scheme in ("central", "upwind", "power-law", "exponential", "hybrid"):
            print(f"nx={nx:4d} {scheme:12s} max error {solve(scheme, nx):.6e}")
