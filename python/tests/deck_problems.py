"""The example decks' problems (apps/decks/*.toml, with their [check]), built with the
Python API: the C++ suite's analytical cases, read from the same files, not retyped."""

import tomllib

import numpy as np

import kfvm


def read(path):
    with open(path, "rb") as f:
        return tomllib.load(f)


def _mesh(deck):
    m = deck["mesh"]
    dim = m["dimension"]
    cells, length = m["cells"], m["length"]
    if len(cells) == 1 and dim > 1:
        cells = cells * dim
    if len(length) == 1 and dim > 1:
        length = length * dim
    kw = {}
    for a, axis in enumerate("xyz"[:dim]):
        kw["n" + axis] = cells[a]
        kw["d" + axis] = length[a] / cells[a]
    return [kfvm.Grid1D, kfvm.Grid2D, kfvm.Grid3D][dim - 1](**kw)


def _centres(mesh):
    c = mesh.cellCenters
    return [c[a] if a < mesh.dim else np.zeros(mesh.numberOfCells) for a in range(3)]


def _initial(mesh, spec):
    x, y, z = _centres(mesh)
    kind = spec.get("type", "constant")
    if kind == "constant":
        return np.full(mesh.numberOfCells, float(spec.get("value", 0.0)))
    if kind == "expression":
        return kfvm.Expression(spec["value"])(x, y, z)
    if kind == "box":
        inside = np.ones(mesh.numberOfCells, dtype=bool)
        for a, p in enumerate((x, y, z)[:mesh.dim]):
            inside &= (p >= spec["lower"][a]) & (p <= spec["upper"][a])
        return np.where(inside, spec["inside"], spec["outside"])
    if kind == "random":
        rng = np.random.default_rng(spec.get("seed", 0))
        return spec.get("mean", 0.0) + spec["amplitude"] * (2 * rng.random(mesh.numberOfCells) - 1)
    raise NotImplementedError("initial type " + kind)


def _coefficient(mesh, value):
    if isinstance(value, str):
        return kfvm.CellVariable(mesh, value=kfvm.Expression(value)(*_centres(mesh)), name="coefficient")
    return float(value)


def _constrain(var, mesh, b):
    where = mesh.patch(b["patch"])
    if b["type"] == "dirichlet":
        var.constrain(b["value"], where)
    elif b["type"] == "neumann":
        var.constrainNormalGradient(b["value"], where)
    elif b["type"] == "robin":
        var.constrainRobin(b["a"], b["b"], b["value"], where)
    else:
        raise NotImplementedError(b["type"])


def _solver(deck):
    s = dict(deck.get("solver", {}))
    s.update(s.pop("parameters", {}))  # [solver.parameters]: any other solver parameter
    sweeps = s.pop("sweeps", None), s.pop("sweep_tolerance", None)
    return kfvm.Solver(s.pop("name", "cg"), **s), sweeps


def _scalar_equation(mesh, e):
    lhs = 0
    rhs = 0
    if "transient" in e:
        lhs = lhs + kfvm.TransientTerm(coeff=_coefficient(mesh, e["transient"]))
    if "convection" in e:
        c = e["convection"]
        lhs = lhs + kfvm.ConvectionTerm(coeff=c["velocity"], scheme=c.get("scheme", "upwind"))
    if "diffusion" in e:
        rhs = rhs + kfvm.DiffusionTerm(coeff=_coefficient(mesh, e["diffusion"]))
    if "higher_order" in e:
        h = e["higher_order"]
        g = kfvm.Polynomial(h.get("potential", [0.0]))
        derivative = kfvm.Polynomial([k * c for k, c in enumerate(g.coefficients)][1:] or [0.0])
        rhs = (rhs + kfvm.DiffusionTerm(coeff=kfvm.Polynomial([h["mobility"] * c for c in derivative.coefficients]))
               - kfvm.DiffusionTerm(coeff=(h["mobility"], h["kappa"])))
    if "implicit_source" in e:
        rhs = rhs + kfvm.ImplicitSourceTerm(coeff=_coefficient(mesh, e["implicit_source"]))
    if "source_polynomial" in e:
        rhs = rhs + kfvm.Polynomial(e["source_polynomial"])
    if "source" in e:
        rhs = rhs + _coefficient(mesh, e["source"])
    return lhs == rhs


def _coupled_equation(variables, e):
    byname = {v.name: v for v in variables}
    lhs, rhs = 0, 0
    for name, value in e.get("transient", {}).items():
        lhs = lhs + kfvm.TransientTerm(coeff=value, var=byname[name])
    for name, value in e.get("diffusion", {}).items():
        rhs = rhs + kfvm.DiffusionTerm(coeff=value, var=byname[name])
    for name, value in e.get("implicit_source", {}).items():
        rhs = rhs + kfvm.ImplicitSourceTerm(coeff=value, var=byname[name])
    for name, value in e.get("source_polynomial", {}).items():
        rhs = rhs + kfvm.SourceTerm(kfvm.Polynomial(value), var=byname[name])
    return lhs == rhs


def _PolySource(coefficients, var):
    from kfvm.terms import _Source
    return _Source(kfvm.Polynomial(coefficients), var)


def _times(time):
    """The deck's steps as dts: dt, steps, end, dt_growth, dt_max."""
    if "adaptive" in time:
        raise NotImplementedError("adaptive time steps (kfvm.run_deck runs them)")
    dt = time["dt"]
    growth, dt_max = time.get("dt_growth", 1.0), time.get("dt_max", float("inf"))
    if "steps" in time:
        end = None
        count = time["steps"]
    else:
        end, count = time["end"], None
    t, dts = 0.0, []
    while (count is None and t < end * (1 - 1e-12)) or (count is not None and len(dts) < count):
        step = dt if end is None else min(dt, end - t)
        dts.append(step)
        t += step
        dt = min(dt * growth, dt_max)
    return dts


def run(path):
    """Solves the deck's problem through kfvm's Python API; returns (error, tolerance,
    what) of its [check]."""
    deck = read(path)
    mesh = _mesh(deck)
    specs = deck.get("variable")
    if isinstance(specs, list):
        variables = [kfvm.CellVariable(mesh, value=_initial(mesh, v.get("initial", {})), name=v["name"])
                     for v in specs]
    else:
        specs = specs or {}
        variables = [kfvm.CellVariable(mesh, value=_initial(mesh, specs.get("initial", {})),
                                       name=specs.get("name", "phi"))]
    for b in deck.get("boundary", []):
        if b.get("on") == "potential":
            raise NotImplementedError("boundary conditions of the fourth-order term's potential")
        var = next(v for v in variables if v.name == b.get("variable", variables[0].name))
        _constrain(var, mesh, b)
    solver, (sweeps, sweep_tolerance) = _solver(deck)
    coupled = isinstance(deck["equation"], list)
    if coupled:
        eq = None
        for e in deck["equation"]:
            term = _coupled_equation(variables, e)
            eq = term if eq is None else eq & term
        solve = lambda dt: eq.solve(dt=dt, solver=solver, sweeps=sweeps, sweep_tolerance=sweep_tolerance)  # noqa: E731
    else:
        eq = _scalar_equation(mesh, deck["equation"])
        scheme = deck.get("time", {}).get("scheme", "backward-euler")
        solve = lambda dt: eq.solve(var=variables[0], dt=dt, solver=solver, scheme=scheme,  # noqa: E731
                                    sweeps=sweeps, sweep_tolerance=sweep_tolerance)
    check = deck["check"]
    checked = next(v for v in variables if v.name == check.get("variable", variables[0].name))
    integral0 = checked.integrate()
    t = 0.0
    if deck.get("time", {}).get("steady", False):
        solve(None)
    else:
        for dt in _times(deck["time"]):
            solve(dt)
            t += dt
    if "exact" in check:
        exact = kfvm.Expression(check["exact"])(*_centres(mesh), t=t)
        return float(np.max(np.abs(checked.value - exact))), check["tolerance"], "max error"
    volume = float(np.sum(mesh.cellVolumes))
    return abs(checked.integrate() - integral0) / volume, check["integral_drift"], "integral drift"
