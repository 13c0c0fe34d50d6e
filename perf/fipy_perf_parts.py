"""What the FiPy-vs-kfvm.fipy perf scripts report of a kfvm.fipy run."""


def kfvm_fipy_parts(kf, first_parts, steps, step_s):
    """The steps after the first by part (kfvm.fipy.timings() minus first_parts, what
    it read after the first step, per step), where each equation ran, the compiles,
    and FiPy's own Python work per step (what is not kfvm.fipy's: updateOld, the term
    tree, the solve call)."""
    parts = {k: (v - first_parts.get(k, 0.0)) / steps for k, v in kf.timings().items()}
    rows = kf.report()
    return {"where": [r["where"] for r in rows],
            "compiles": sum(r["compiles"] for r in rows),
            "parts_per_step_s": parts,
            "fipy_python_per_step_s": step_s - sum(parts.values())}
