"""FiPy's terms and their algebra: ``TransientTerm() == DiffusionTerm(D) + S`` is an
:class:`kfvm.Equation`; ``eq1 & eq2`` a coupled system."""

import numbers as _numbers

import numpy as _np

from . import _extension
from ._errors import Error


class Term:
    """A term of an equation. Terms add, subtract, scale by numbers and compare with
    ``==`` into an Equation (left side minus right side = 0)."""

    __hash__ = object.__hash__
    kind = None
    __array_ufunc__ = None  # numpy defers to the terms' own algebra

    def __init__(self, coeff=1.0, var=None):
        self.coeff = coeff
        self.var = var

    # The algebra: every expression is a _Sum of (scale, term) parts.
    def _parts(self):
        return [(1.0, self)]

    def __add__(self, other):
        return _Sum(self._parts() + _as_term(other)._parts())

    def __radd__(self, other):
        return _Sum(_as_term(other)._parts() + self._parts())

    def __sub__(self, other):
        return _Sum(self._parts() + [(-s, t) for s, t in _as_term(other)._parts()])

    def __rsub__(self, other):
        return _Sum(_as_term(other)._parts() + [(-s, t) for s, t in self._parts()])

    def __neg__(self):
        return _Sum([(-s, t) for s, t in self._parts()])

    def __pos__(self):
        return self

    def __mul__(self, other):
        if not isinstance(other, _numbers.Real):
            raise Error("a term scales by a number only, got %r (put fields into "
                        "the coefficient)" % (other,))
        return _Sum([(float(other) * s, t) for s, t in self._parts()])

    __rmul__ = __mul__

    def __eq__(self, other):
        from .equation import Equation
        return Equation(self._parts() + [(-s, t) for s, t in _as_term(other)._parts()])

    def solve(self, var=None, **options):
        """FiPy's term.solve(var=...): solves term == 0 (see Equation.solve)."""
        return (self == 0).solve(var=var, **options)

    def sweep(self, var=None, **options):
        """FiPy's term.sweep(var=...): one sweep of term == 0 (see Equation.sweep)."""
        return (self == 0).sweep(var=var, **options)

    def __repr__(self):
        return "%s(coeff=%r%s)" % (type(self).__name__, self.coeff,
                                   "" if self.var is None else ", var=%s" % self.var.name)


class _Sum(Term):
    def __init__(self, parts):
        super().__init__()
        self.parts = parts

    def _parts(self):
        return list(self.parts)

    def __repr__(self):
        return " + ".join("%g*%r" % (s, t) for s, t in self.parts)


class SourceTerm(Term):
    """An explicit source s: a number, a CellVariable, an array of cell values, or a
    kfvm.Polynomial S(phi) (linearized at every sweep: its falling part implicit). A plain
    number, array or variable added to terms becomes one; SourceTerm(S, var=v) names the
    variable of a coupled system's source."""

    kind = "source"


def _as_term(value):
    if isinstance(value, Term):
        return value
    return SourceTerm(value)


class TransientTerm(Term):
    """rho dphi/dt: coeff rho a number or a CellVariable."""

    kind = "transient"


class DiffusionTerm(Term):
    """div(D grad phi). coeff D: a number, a CellVariable (averaged to faces
    harmonically), a FaceVariable (used as it is), or a kfvm.Polynomial D(phi); a
    symmetric positive-definite tensor in FiPy's layout, given as a 1-tuple: (dim, dim),
    or one per cell or face, (dim, dim, cells) or (dim, dim, faces) (anisotropic
    diffusion: the cross terms go to the right-hand side and the equation sweeps); a pair
    (D, kappa) is FiPy's fourth-order term div(D grad(div(kappa grad phi))), which
    phase-field equations write as ``- DiffusionTerm(coeff=(D, kappa))`` on the right."""

    kind = "diffusion"

    def __init__(self, coeff=1.0, var=None):
        if isinstance(coeff, (tuple, list)):
            if len(coeff) == 1:
                coeff = coeff[0]
            elif len(coeff) == 2:
                self.kind = "diffusion4"
            else:
                raise Error("DiffusionTerm takes one coefficient or a pair (D, kappa), "
                            "got %d" % len(coeff))
        super().__init__(coeff, var)


class DiffusionTermCorrection(DiffusionTerm):
    """DiffusionTerm with the non-orthogonal correction (kfvm's over-relaxed deferred
    correction, least-squares gradients): exact for linear fields on any mesh, second
    order on distorted ones; the equation then sweeps. On a Cartesian grid (orthogonal)
    it is the plain term."""

    correction = "over-relaxed"


#: FiPy's DiffusionTerm is the uncorrected one.
DiffusionTermNoCorrection = DiffusionTerm


class ImplicitSourceTerm(Term):
    """c phi, implicit (into the matrix): coeff c a number or a CellVariable."""

    kind = "implicit"


class ConvectionTerm(Term):
    """div(u phi). coeff u: a vector (one number per axis), a FaceVariable of normal
    velocities u . n per face, or an array of shape (dim, faces). scheme: one of
    kfvm.convection_scheme_names(); FiPy's ConvectionTerm is the power law."""

    kind = "convection"
    scheme = "power-law"

    def __init__(self, coeff=(1.0,), var=None, scheme=None):
        super().__init__(coeff, var)
        if scheme is not None:
            self.scheme = str(scheme)
        if self.scheme not in _extension.names("convection_scheme_names"):
            raise Error("unknown convection scheme '%s' (known: %s)"
                        % (self.scheme, ", ".join(_extension.names("convection_scheme_names"))))


def _scheme_class(name, scheme, doc):
    cls = type(name, (ConvectionTerm,), {"scheme": scheme, "__doc__": doc})
    cls.__init__ = lambda self, coeff=(1.0,), var=None: ConvectionTerm.__init__(self, coeff, var)
    return cls


CentralDifferenceConvectionTerm = _scheme_class(
    "CentralDifferenceConvectionTerm", "central", "ConvectionTerm with central face values.")
UpwindConvectionTerm = _scheme_class(
    "UpwindConvectionTerm", "upwind", "ConvectionTerm with upwind face values.")
PowerLawConvectionTerm = _scheme_class(
    "PowerLawConvectionTerm", "power-law", "ConvectionTerm by Patankar's power law.")
ExponentialConvectionTerm = _scheme_class(
    "ExponentialConvectionTerm", "exponential",
    "ConvectionTerm by the exponential scheme (exact in 1D steady state).")
HybridConvectionTerm = _scheme_class(
    "HybridConvectionTerm", "hybrid", "ConvectionTerm by the hybrid scheme.")
VanLeerConvectionTerm = _scheme_class(
    "VanLeerConvectionTerm", "van-leer",
    "TVD ConvectionTerm with van Leer's limiter (deferred correction: sweeps).")
MinmodConvectionTerm = _scheme_class(
    "MinmodConvectionTerm", "minmod", "TVD ConvectionTerm with the minmod limiter.")
SuperbeeConvectionTerm = _scheme_class(
    "SuperbeeConvectionTerm", "superbee", "TVD ConvectionTerm with the superbee limiter.")
