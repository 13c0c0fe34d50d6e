"""A FiPy equation read as kfvm's: its terms, their coefficients evaluated by FiPy to
arrays, and the variable's constraints, in kfvm's form and numbering.

kfvm's form is rho dphi/dt + div(u phi) = div(D grad phi) + c phi + s. FiPy's equation
is a sum of terms equal to zero, each term's sign folded into its coefficient; the
translation multiplies the sum by sigma = +-1 so that rho >= 0 (or, steady, D >= 0).
"""

import numpy as _np

from fipy import terms as _terms
from fipy.terms.binaryTerm import _BinaryTerm
from fipy.terms.explicitSourceTerm import _ExplicitSourceTerm
from fipy.variables.variable import Variable as _Variable

from .meshes import Untranslatable

_DIFFUSION = (_terms.DiffusionTerm, _terms.DiffusionTermCorrection,
              _terms.DiffusionTermNoCorrection, _terms.ImplicitDiffusionTerm)
#: FiPy's implicit convection terms and kfvm's scheme of the same discretisation.
_SCHEMES = {
    _terms.CentralDifferenceConvectionTerm: "central",
    _terms.UpwindConvectionTerm: "upwind",
    _terms.PowerLawConvectionTerm: "power-law",
    _terms.ExponentialConvectionTerm: "exponential",
    _terms.HybridConvectionTerm: "hybrid",
}
#: FiPy's explicit convection terms and kfvm's ExplicitConvectionScheme of each.
_EXPLICIT_SCHEMES = {
    _terms.ExplicitUpwindConvectionTerm: "upwind",
    _terms.VanLeerConvectionTerm: "van-leer",
}
_KIND_OF = dict([(c, "diffusion") for c in _DIFFUSION]
                + [(c, "convection") for c in _SCHEMES]
                + [(c, "explicit-convection") for c in _EXPLICIT_SCHEMES]
                + [(_terms.TransientTerm, "transient"),
                   (_terms.ImplicitSourceTerm, "implicit"),
                   (_terms.ExplicitDiffusionTerm, "explicit-diffusion"),
                   (_ExplicitSourceTerm, "source")])


#: What a subclass of CellVariable may define and still be one to kfvm: its own
#: constructor, attributes and copy (examples/elphf's ComponentVariable). A class that
#: redefines values, face values, gradients or old values (ModularVariable,
#: DistanceVariable, SurfactantVariable) computes what kfvm does not.
_PLAIN_MEMBERS = {"__init__", "copy", "__module__", "__qualname__", "__doc__", "__dict__",
                  "__weakref__", "__repr__", "__annotations__"}


def is_plain_cell_variable(var):
    """True for a FiPy CellVariable, or a subclass that only adds attributes."""
    from fipy.variables.cellVariable import CellVariable
    if not isinstance(var, CellVariable):
        return False
    for cls in type(var).__mro__:
        if cls is CellVariable:
            return True
        if set(cls.__dict__) - _PLAIN_MEMBERS:
            return False
    return False


def leaves(term):
    """The unary terms of a FiPy equation (a tree of _BinaryTerm)."""
    if isinstance(term, _BinaryTerm):
        return leaves(term.term) + leaves(term.other)
    return [term]


class Value:
    """A coefficient evaluated now: a number fixed in the equation's structure
    (constant), or values per cell or face (array) or one value that may change
    (a FiPy Variable of one value)."""

    def __init__(self, constant=None, array=None):
        self.constant = constant
        self.array = array

    @property
    def is_constant(self):
        return self.array is None


def _evaluate(coeff, size, what):
    if isinstance(coeff, (int, float, _np.floating, _np.integer)):
        return Value(constant=float(coeff))
    if isinstance(coeff, _Variable):
        value = coeff.value
        unit = getattr(value, "unit", None)
        if unit is not None and not getattr(unit, "isDimensionless", lambda: True)():
            raise Untranslatable("%s carries physical units" % what)
        array = _np.asarray(value, dtype=float)
        if array.shape == () or array.shape == (1,):
            # One value (FiPy wraps numbers so): a number of the compiled structure; a
            # new value compiles anew.
            return Value(constant=float(array.reshape(-1)[0]))
        if array.shape != (size,):
            raise Untranslatable("%s has shape %s (kfvm takes a number or one value per "
                                 "%s)" % (what, array.shape,
                                          "cell" if size else "face"))
        return Value(array=array)
    try:
        array = _np.asarray(coeff, dtype=float)
    except (TypeError, ValueError):
        raise Untranslatable("%s is a %s" % (what, type(coeff).__name__)) from None
    if array.shape == ():
        return Value(constant=float(array))
    if array.shape == (size,):
        return Value(array=array)
    raise Untranslatable("%s has shape %s" % (what, array.shape))


def face_coefficient(coeff, grid, what):
    """A diffusion coefficient on faces: a number or face values, or FiPy's rank-2 tensor
    (dim, dim) or (dim, dim, faces). FiPy's face coefficient of a tensor is n . G . n
    plus a source from its off-diagonal part; on kfvm's grids every face normal is an
    axis, so a diagonal tensor is G_aa on the faces normal to axis a, exactly. An
    off-diagonal part (anisotropic diffusion) is not translated: FiPy takes its cross
    terms with the harmonic face mean of its Gauss cell gradient, kfvm with least-squares
    gradients interpolated linearly (kfvm's own DiffusionTerm takes tensors), so the two
    give different numbers on the same mesh."""
    dim = grid.dim
    faces = grid.fipy_faces
    value = coeff.value if isinstance(coeff, _Variable) else coeff
    try:
        array = _np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return _evaluate(coeff, faces, what)
    if array.ndim < 2 or array.shape[:2] != (dim, dim) or array.shape[2:] not in ((), (faces,)):
        return _evaluate(coeff, faces, what)
    diagonal = _np.array([array[a, a] for a in range(dim)])
    off = array.copy()
    for a in range(dim):
        off[a, a] = 0
    if _np.any(off != 0):
        raise Untranslatable("%s is an anisotropic tensor (off-diagonal entries: kfvm's "
                             "cross terms are not FiPy's)" % what)
    if array.ndim == 2 and _np.all(diagonal == diagonal[0]):
        return Value(constant=float(diagonal[0]))
    normals = grid.kfvm_normals_in_fipy_order[:dim]
    per_axis = diagonal.reshape(dim, -1)
    return Value(array=_np.sum(normals ** 2 * per_axis, axis=0))


def sum_values(values, size):
    """The sum of Values: a number when all are numbers, else an array of size."""
    if not values:
        return Value(constant=0.0)
    if all(v.is_constant for v in values):
        return Value(constant=sum(v.constant for v in values))
    total = _np.zeros(size)
    for v in values:
        total = total + (v.constant if v.is_constant else v.array)
    return Value(array=total)


def scaled(value, factor):
    if value.is_constant:
        return Value(constant=factor * value.constant)
    return Value(array=factor * value.array)


def _signature_of(value):
    return ("number", value.constant) if value.is_constant else ("array",)


def diagonal_sign_of(equation, var):
    """FiPy's diagonal sign of `equation` for var, as ImplicitSourceTerm reads it."""
    transient = equation._getTransientGeomCoeff(var)
    diffusion = equation._getDiffusionGeomCoeff(var)
    return lambda leaf: leaf._getDiagonalSign(transient, diffusion)


def implicit_sources(entries, diagonal_sign_of, sigma, values, grid):
    """FiPy's rule for ImplicitSourceTerms acting on a variable whose current values (in
    FiPy's cell order) are `values` (entries: (leaf, Value)); diagonal_sign_of(leaf) is
    FiPy's diagonal sign of the equation for that variable (from its transient and
    diffusion geometric coefficients): implicit where the term adds to the diagonal (its
    sign agrees with the diagonal sign), explicit elsewhere (its coefficient times the
    variable's current values, a source). Returns kfvm's (implicit coefficient c' = -sigma c, in kfvm's cell order;
    its form, 'matrix' or 'diagonal-only'; the explicit part -sigma c phi in FiPy's cell
    order, or None)."""
    if not entries:
        return Value(constant=0.0), "matrix", None
    cells = grid.kfvm.numberOfCells
    if len(entries) == 1:
        leaf, value = entries[0]
        diagonal_sign = _np.asarray(diagonal_sign_of(leaf))
        if _np.all(sigma * diagonal_sign == 1):
            # FiPy's diagonal is kfvm's positive one: its rule is kfvm's
            # ImplicitSourceForm::DiagonalOnly (c' = -sigma c <= 0 in the matrix).
            if value.is_constant:
                return Value(constant=-sigma * value.constant), "diagonal-only", None
            return (Value(array=grid.cells_to_kfvm(-sigma * value.array)), "diagonal-only",
                    None)
    implicit = _np.zeros(cells)
    explicit = _np.zeros(cells)
    all_implicit = True
    for leaf, value in entries:
        diagonal_sign = diagonal_sign_of(leaf)
        c = _np.full(cells, value.constant) if value.is_constant else value.array
        on_diagonal = (_np.asarray(diagonal_sign) * _np.sign(c)) >= 0
        on_diagonal = _np.broadcast_to(on_diagonal, (cells,))
        all_implicit = all_implicit and bool(on_diagonal.all())
        implicit += _np.where(on_diagonal, c, 0.0)
        explicit += _np.where(on_diagonal, 0.0, c * values)
    # In kfvm's form: c' = -sigma c (implicit), s' = -sigma c phi (explicit part).
    if all_implicit and all(v.is_constant for _, v in entries):
        return Value(constant=-sigma * float(implicit[0])), "matrix", None
    return (Value(array=grid.cells_to_kfvm(-sigma * implicit)), "matrix",
            None if all_implicit else -sigma * explicit)


class Translation:
    """The FiPy equation `term` for `var` on kfvm's grid `grid`, evaluated now.

    signature: what a compiled kfvm equation depends on (the terms' kinds, the numbers
    fixed in them, the constraints' faces); the other attributes are the values of this
    call, in kfvm's numbering.
    """

    def __init__(self, term, var, grid):
        self.grid = grid
        cells = grid.kfvm.numberOfCells
        faces = grid.fipy_faces
        parts = {"transient": [], "diffusion": [], "implicit": [], "source": [],
                 "convection": [], "explicit-diffusion": [], "explicit-convection": []}
        schemes = set()
        explicit_schemes = set()
        fourth = []
        for leaf in leaves(term):
            if leaf.var is not None and leaf.var is not var:
                raise Untranslatable("a term acts on another variable (%s)" % leaf.var.name)
            kind = _KIND_OF.get(type(leaf))
            if kind is None:
                raise Untranslatable("kfvm does not translate FiPy's %s yet"
                                     % type(leaf).__name__)
            if kind == "explicit-diffusion":
                if leaf.order != 2:
                    raise Untranslatable("an ExplicitDiffusionTerm of order %d" % leaf.order)
                parts[kind].append((leaf, face_coefficient(
                    leaf.nthCoeff, grid, "an ExplicitDiffusionTerm's coefficient")))
            elif kind == "diffusion":
                if leaf.order == 4:
                    fourth.append(leaf)
                    continue
                if leaf.order != 2:
                    raise Untranslatable("a DiffusionTerm of order %d" % leaf.order)
                parts[kind].append((leaf, face_coefficient(
                    leaf.nthCoeff, grid, "a DiffusionTerm's coefficient")))
            elif kind == "convection":
                schemes.add(_SCHEMES[type(leaf)])
                parts[kind].append((leaf, self._velocity(leaf.coeff, grid)))
            elif kind == "explicit-convection":
                explicit_schemes.add(_EXPLICIT_SCHEMES[type(leaf)])
                parts[kind].append((leaf, self._velocity(leaf.coeff, grid)))
            else:
                parts[kind].append((leaf, _evaluate(leaf.coeff, cells,
                                                    "a %s's coefficient" % type(leaf).__name__)))
        if len(schemes) > 1:
            raise Untranslatable("convection terms of several schemes (%s)"
                                 % ", ".join(sorted(schemes)))
        if len(explicit_schemes) > 1:
            raise Untranslatable("explicit convection terms of several schemes (%s)"
                                 % ", ".join(sorted(explicit_schemes)))
        self.scheme = schemes.pop() if schemes else None
        self.explicit_scheme = explicit_schemes.pop() if explicit_schemes else None
        self._parts = parts
        rho = sum_values([v for _, v in parts["transient"]], cells)
        D = sum_values([v for _, v in parts["diffusion"]], faces)
        sigma = 1.0
        if parts["transient"]:
            r = rho.constant if rho.is_constant else rho.array
            if _np.all(_np.asarray(r) <= 0):
                sigma = -1.0
        elif parts["diffusion"]:
            d = D.constant if D.is_constant else D.array
            if _np.all(_np.asarray(d) >= 0):
                sigma = -1.0
        self.sigma = sigma
        self.fourth = self._fourth_order(fourth, sigma)
        self.rho = scaled(rho, sigma)
        self.D = scaled(D, -sigma)
        self._check_signs(var)
        self.implicit, explicit_part = self._implicit_sources(var, term, cells)
        self.source = scaled(sum_values([v for _, v in parts["source"]], cells), -sigma)
        if explicit_part is not None:
            base = self.source.array if not self.source.is_constant else \
                _np.full(cells, self.source.constant)
            self.source = Value(array=base + explicit_part)
        if not self.source.is_constant:  # in kfvm's cell order, as every coefficient here
            self.source = Value(array=grid.cells_to_kfvm(self.source.array))
        # FiPy's ExplicitDiffusionTerm reads the constraints of var.old: none when var
        # has an old copy (hasOld=True), var's own otherwise.
        self.explicit_D = scaled(
            sum_values([v for _, v in parts["explicit-diffusion"]], faces), -sigma)
        if not self.explicit_D.is_constant:
            self.explicit_D = Value(array=grid.faces_to_kfvm(self.explicit_D.array))
        self.has_explicit_diffusion = bool(parts["explicit-diffusion"])
        self.explicit_boundary = ("zero-flux" if getattr(var, "_old", None) is not None
                                  else "conditions")
        self.velocity = None
        if parts["convection"]:
            self.velocity = self._sum_velocity([v for _, v in parts["convection"]], sigma)
        self.explicit_velocity = None
        if parts["explicit-convection"]:
            self.explicit_velocity = self._sum_velocity(
                [v for _, v in parts["explicit-convection"]], sigma)
        # FiPy's VanLeer gradient reads var.old's face values: the Dirichlet values of
        # var itself without hasOld, the cells' own with it (var.old has no constraints).
        self.gradient_boundary = ("cell-values" if getattr(var, "_old", None) is not None
                                  else "dirichlet-values")
        self.has_transient = bool(parts["transient"])
        # What the compiled kfvm equation depends on: which coefficients are numbers
        # (and which numbers) and which are arrays, in kfvm's form.
        self.signature = (
            self.has_transient, self.scheme, sigma,
            tuple(_signature_of(v) for v in (self.rho, self.D, self.implicit, self.source)),
            None if self.velocity is None else _signature_of(self.velocity),
            self.D_sign,
            None if self.fourth is None else
            (_signature_of(self.fourth[0]), _signature_of(self.fourth[1]), self.fourth[2]),
            self.implicit_form,
            (_signature_of(self.explicit_D), self.explicit_boundary)
            if self.has_explicit_diffusion else None,
            None if self.explicit_velocity is None else
            (self.explicit_scheme, _signature_of(self.explicit_velocity),
             self.gradient_boundary))

    # -- coefficients ------------------------------------------------------------------
    def _fourth_order(self, leaves_of_order_4, sigma):
        """FiPy's DiffusionTerm(coeff=(c1, c2)), div(c1 grad div(c2 grad phi)) on the
        left of FiPy's '= 0', as kfvm's higherOrderDiffusion(D, kappa): the term
        div(D grad mu), mu = -div(kappa grad phi), on the right of kfvm's form, so
        D kappa = sigma c1 c2 with D, kappa >= 0. Numbers stay numbers; otherwise D and
        kappa are FiPy's own face values of the two (a CellVariable's arithmeticFaceValue)
        in kfvm's face order. Returns (D, kappa, sign of c2), D and kappa Values, or
        None."""
        if not leaves_of_order_4:
            return None
        if len(leaves_of_order_4) > 1:
            raise Untranslatable("it has %d fourth-order DiffusionTerms (kfvm takes one)"
                                 % len(leaves_of_order_4))
        leaf = leaves_of_order_4[0]
        what = "a fourth-order DiffusionTerm's coefficient"
        if all(_np.size(getattr(c, "value", c)) == 1 for c in leaf.coeff):
            c1, c2 = (_evaluate(c, 0, what).constant for c in leaf.coeff)
            inner_sign = 1.0 if c2 >= 0 else -1.0
            D, kappa = inner_sign * sigma * c1, inner_sign * c2
            if D < 0:
                raise Untranslatable("its fourth-order DiffusionTerm has the ill-posed "
                                     "sign (+div(grad div(grad phi)) against the time "
                                     "derivative)")
            return (Value(constant=D), Value(constant=kappa), inner_sign)
        faces = self.grid.fipy_faces

        def on_faces(coefficient):  # FiPy's face values: an array, or one value
            value = _evaluate(coefficient, faces, what + " on the faces")
            return value.array if value.array is not None else _np.full(faces, value.constant)
        outer = on_faces(leaf.nthCoeff)
        inner = on_faces(leaf.lowerOrderDiffusionTerm.nthCoeff)
        if _np.any(inner > 0) and _np.any(inner < 0):
            raise Untranslatable("its fourth-order DiffusionTerm's inner coefficient "
                                 "changes sign")
        inner_sign = -1.0 if _np.any(inner < 0) else 1.0
        D, kappa = inner_sign * sigma * outer, inner_sign * inner
        if _np.any(D < 0):
            raise Untranslatable("its fourth-order DiffusionTerm has the ill-posed sign "
                                 "(+div(grad div(grad phi)) against the time derivative)")
        return (Value(array=self.grid.faces_to_kfvm(_np.array(D))),
                Value(array=self.grid.faces_to_kfvm(_np.array(kappa))), inner_sign)

    def _check_signs(self, var):
        rho = self.rho.constant if self.rho.is_constant else self.rho.array
        if self._parts["transient"] and _np.any(_np.asarray(rho) < 0):
            raise Untranslatable("its TransientTerm's coefficient changes sign")
        D = self.D.constant if self.D.is_constant else self.D.array
        # FiPy's face coefficient may be negative (Cahn-Hilliard's D f''(phi) in the
        # spinodal region): kfvm's DiffusionSign::Either, what FiPy computes with.
        self.D_sign = "either" if _np.any(_np.asarray(D) < 0) else "non-negative"
        if not self.D.is_constant:
            self.D = Value(array=self.grid.faces_to_kfvm(self.D.array))
        for name in ("rho",):
            value = getattr(self, name)
            if not value.is_constant:
                setattr(self, name, Value(array=self.grid.cells_to_kfvm(value.array)))

    def _implicit_sources(self, var, term, cells):
        implicit, self.implicit_form, explicit = implicit_sources(
            self._parts["implicit"], diagonal_sign_of(term, var), self.sigma,
            _np.asarray(var.value, dtype=float), self.grid)
        return implicit, explicit

    def _velocity(self, coeff, grid):
        """A convection coefficient: a constant vector, or (dim, faces) face vectors."""
        dim = grid.dim
        faces = grid.fipy_faces
        if isinstance(coeff, _Variable):
            array = _np.asarray(coeff.value, dtype=float)
            constant = False
        else:
            array = _np.asarray(coeff, dtype=float)
            constant = True
        if array.ndim == 2 and array.shape[1] == 1:
            array = array[:, 0]
        if array.ndim == 1 and array.shape[0] == dim:
            if constant:
                return Value(constant=tuple(float(u) for u in array))
            array = _np.broadcast_to(array.reshape(dim, 1), (dim, faces))
        if array.shape != (dim, faces):
            raise Untranslatable("a convection coefficient of shape %s" % (array.shape,))
        return Value(array=array)

    def _sum_velocity(self, values, sigma):
        if all(v.is_constant for v in values):
            u = _np.sum([v.constant for v in values], axis=0) * sigma
            padded = _np.zeros(3)
            padded[:len(u)] = u
            return Value(constant=tuple(float(x) for x in padded))
        grid = self.grid
        total = _np.zeros((grid.dim, grid.fipy_faces))
        for v in values:
            total = total + (_np.asarray(v.constant).reshape(-1, 1) if v.is_constant
                             else v.array)
        normal = sigma * _np.sum(total * grid.kfvm_normals_in_fipy_order, axis=0)
        return Value(array=grid.faces_to_kfvm(normal))
