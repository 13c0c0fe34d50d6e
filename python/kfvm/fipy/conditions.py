"""FiPy's constraints and old-style boundary conditions on a variable, as kfvm's Robin
coefficients a phi + b dphi/dn = g per boundary slot (kfvm's numbering)."""

import numpy as _np

from .meshes import Untranslatable


def _boundary_faces(where, grid, what):
    """The FiPy faces a mask selects (None: all) and their kfvm boundary slots; a mask
    reaching an interior face is not translated."""
    faces = grid.fipy.numberOfFaces
    mask = _np.ones(faces, dtype=bool) if where is None else \
        _np.asarray(getattr(where, "value", where), dtype=bool)
    if mask.shape != (faces,):
        raise Untranslatable("%s's mask has shape %s" % (what, mask.shape))
    chosen = _np.flatnonzero(mask)
    slots = grid.boundary_slot_of_fipy_face[chosen]
    if _np.any(slots == -2):
        raise Untranslatable("%s on the unused end faces of a periodic grid (FiPy keeps "
                             "them; kfvm has none)" % what)
    if _np.any(slots < 0):
        raise Untranslatable("%s on interior faces (kfvm constrains boundary faces)" % what)
    return chosen, slots


def _values_on(value, chosen, grid, what):
    """A FiPy value (a number, or one per face or per chosen face) on the chosen faces."""
    value = _np.asarray(getattr(value, "value", value), dtype=float)
    if value.ndim == 1 and value.shape[0] == grid.fipy.numberOfFaces:
        return value[chosen]
    if value.size == 1:
        return _np.full(len(chosen), float(value.reshape(-1)[0]))
    if value.shape != (len(chosen),):
        raise Untranslatable("%s of shape %s" % (what, value.shape))
    return value


def constraints(var, grid):
    """FiPy's face constraints of var as kfvm Robin coefficients per boundary slot:
    values (a = 1, b = 0, g = value) and gradients (a = 0, b = 1, g = grad . n)."""
    if getattr(var, "_constraints", None):
        raise Untranslatable("the variable has cell constraints")
    n = grid.kfvm._cpp.num_boundary_faces
    a, b, g = _np.zeros(n), _np.ones(n), _np.zeros(n)
    kind = _np.zeros(n, dtype=_np.int8)  # 0 free, 1 value, 2 gradient
    faces = grid.fipy.numberOfFaces

    def selected(constraint):
        return _boundary_faces(constraint.where, grid, "a constraint")

    def values(v):
        return _np.asarray(getattr(v, "value", v), dtype=float)

    for constraint in getattr(var, "faceConstraints", []):
        chosen, slots = selected(constraint)
        value = _values_on(constraint.value, chosen, grid, "a value constraint")
        if _np.any(kind[slots] == 2):
            raise Untranslatable("a face with both a value and a gradient constraint")
        a[slots], b[slots], g[slots], kind[slots] = 1.0, 0.0, value, 1
    face_grad = getattr(var, "_faceGrad", None)
    for constraint in (face_grad.constraints if face_grad is not None else []):
        chosen, slots = selected(constraint)
        vector = values(constraint.value)
        dim = grid.dim
        if vector.ndim <= 1:
            vector = _np.broadcast_to(vector.reshape(-1, 1), (dim, 1)) if vector.size in (1, dim) \
                else None
        elif vector.ndim == 2 and vector.shape[0] in (1, dim):
            if vector.shape[1] == faces:
                vector = vector[:, chosen]
            elif vector.shape[1] not in (1, len(chosen)):
                vector = None
            else:
                vector = _np.broadcast_to(vector, (dim, vector.shape[1]))
        else:
            vector = None
        if vector is None:
            raise Untranslatable("a gradient constraint of shape %s"
                                 % (_np.shape(constraint.value),))
        normals = grid.kfvm_normals_in_fipy_order[:, chosen]
        q = _np.sum(vector * normals, axis=0) * _np.ones(len(chosen))
        if _np.any(kind[slots] == 1):
            raise Untranslatable("a face with both a value and a gradient constraint")
        a[slots], b[slots], g[slots], kind[slots] = 0.0, 1.0, q, 2
    order = _np.flatnonzero(kind)
    return order, a[order], b[order], g[order]


def nth_order_conditions(boundary_conditions, translation, grid):
    """FiPy's old-style boundaryConditions= (NthOrderBoundaryCondition) in kfvm's form.
    FiPy hands each condition to every term; a DiffusionTerm of order n applies the
    condition's derivative of order n - 2 to its outer operator (order 0: FiPy's
    FixedValue, 1: FixedFlux, above: nothing) and passes the condition down to its
    inner operator. With y = div(c2 grad phi) the fourth-order term's inner operator and
    kfvm's potential mu = -div(kappa grad phi) = -sign(c2) y (kappa = |c2|, D = sign(c2)
    sigma c1):
    - order 0, FixedValue on phi wherever a second-order operator reads phi: phi = value
      (kfvm's condition on phi, in the inner operator and in diffusion());
    - order 1, FixedFlux on the inner operator: c2 dphi/dn = value, so dphi/dn =
      value / c2, c2 on the face (translated only where no other second-order term reads phi: FiPy
      applies that flux once, to whichever term it builds first);
    - order 2, FixedValue on the outer operator: y = value, so mu = -sign(c2) value;
    - order 3, FixedFlux on the outer operator: outward flux c1 dy/dn = value, so
      D dmu/dn = -sigma value, D on the face.
    With field coefficients the face values are FiPy's own (the translation's face
    arrays), as kfvm's fourth-order term takes them.
    FiPy applies a FixedFlux at the first solve only (it caches the condition it
    derives and never resets it): so does this. Returns the slots' (order, a, b, g) for
    phi and for mu, and the FixedFlux conditions to mark applied once the solve
    succeeded."""
    empty = (_np.zeros(0, dtype=_np.int64), _np.zeros(0), _np.zeros(0), _np.zeros(0))
    applied_now = []
    if boundary_conditions is None:
        return empty, empty, applied_now
    if not isinstance(boundary_conditions, (tuple, list)):
        boundary_conditions = (boundary_conditions,)
    if not boundary_conditions:
        return empty, empty, applied_now
    parts = {"phi": ([], [], [], []), "mu": ([], [], [], [])}
    for bc in boundary_conditions:
        kind = type(bc).__name__
        if kind != "NthOrderBoundaryCondition" or bc.order not in (0, 1, 2, 3):
            raise Untranslatable("it passes boundaryConditions= with a %s%s (kfvm takes "
                                 "NthOrderBoundaryCondition of order 0 to 3)"
                                 % (kind, " of order %s" % bc.order
                                    if hasattr(bc, "order") else ""))
        fourth = translation.fourth
        if fourth is None and bc.order != 0:
            raise Untranslatable("it passes boundaryConditions= of order %d to an equation "
                                 "without a fourth-order DiffusionTerm" % bc.order)
        if bc.order < 2 and (translation.velocity is not None
                             or translation.explicit_velocity is not None):
            raise Untranslatable("a NthOrderBoundaryCondition of order %d beside convection "
                                 "(FiPy's convection terms read it as a boundary "
                                 "condition of their own)" % bc.order)
        if bc.order == 1 and not (translation.D.is_constant and translation.D.constant == 0
                                  and not translation.has_explicit_diffusion):
            raise Untranslatable("a NthOrderBoundaryCondition of order 1 beside a "
                                 "second-order DiffusionTerm (FiPy applies its flux to one "
                                 "of the two)")
        chosen, slot = _boundary_faces(bc.faces, grid, "a boundary condition")
        value = _values_on(bc.value, chosen, grid, "a boundary condition's value")
        slots, a, b, g = parts["phi" if bc.order < 2 else "mu"]
        slots.append(slot)
        ones, zeros = _np.ones(len(slot)), _np.zeros(len(slot))
        if bc.order in (0, 2):  # FixedValue
            a.append(ones)
            b.append(zeros)
            g.append(value if bc.order == 0 else -fourth[2] * value)
            continue
        D, kappa, inner_sign = fourth
        at = grid.face_to_kfvm[chosen]  # field coefficients: their values on these faces
        D = _np.full(len(chosen), D.constant) if D.is_constant else D.array[at]
        kappa = _np.full(len(chosen), kappa.constant) if kappa.is_constant \
            else kappa.array[at]
        if _np.any((D if bc.order == 3 else kappa) == 0):
            raise Untranslatable("a flux condition on a fourth-order term whose %s is 0 on "
                                 "a face" % ("mobility" if bc.order == 3 else
                                             "inner coefficient"))
        derived = bc._getDerivative(bc.order - 1)  # FiPy's own FixedFlux, cached in bc
        applied = getattr(derived, "boundaryConditionApplied", False)
        applied_now.append(derived)
        a.append(zeros)
        b.append(ones)
        if applied:
            g.append(zeros)
        elif bc.order == 1:
            g.append(value / (inner_sign * kappa))
        else:
            g.append(-translation.sigma * value / D)
    out = []
    for slots, a, b, g in (parts["phi"], parts["mu"]):
        if not slots:
            out.append(empty)
            continue
        slot = _np.concatenate(slots)
        if len(_np.unique(slot)) != len(slot):
            raise Untranslatable("two boundary conditions on one face")
        out.append((slot.astype(_np.int64), _np.concatenate(a), _np.concatenate(b),
                    _np.concatenate(g)))
    return out[0], out[1], applied_now


def with_conditions(slots, more):
    """The variable's constraints (order, a, b, g) with more conditions on other faces."""
    if not len(more[0]):
        return slots
    if _np.intersect1d(slots[0], more[0]).size:
        raise Untranslatable("a face with both a constraint and a boundary condition")
    order = _np.concatenate([slots[0], more[0]])
    sort = _np.argsort(order, kind="stable")
    return tuple(_np.concatenate([x, y])[sort] for x, y in zip(slots, more))
