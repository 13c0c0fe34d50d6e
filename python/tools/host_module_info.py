"""Writes kfvm/_host/info.json for a device build's host module (python/CMakeLists.txt,
KFVM_HOST_PYTHON_MODULE): the host module's backends, read by loading it as kfvm._kfvm
from this build's package, and the build's own backends and default backend, which
kfvm/_extension.py reads instead of loading the device module.

    python3 host_module_info.py PACKAGE_DIR HOST_MODULE "BUILD;BACKENDS" DEFAULT_BACKEND
"""

import importlib.util
import json
import os
import sys


def main(package, host_module, build_backends, build_default):
    sys.path.insert(0, os.path.dirname(os.path.abspath(package)))
    import kfvm._extension  # noqa: F401  (the package, without loading a module)
    spec = importlib.util.spec_from_file_location("kfvm._kfvm", host_module)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    host = list(module.backends)
    device = [b for b in host if b in ("Cuda", "HIP", "SYCL")]
    if device:
        raise SystemExit("KFVM_HOST_PYTHON_MODULE %s has the device backend %s: build it on a "
                         "host-only Kokkos (Serial or OpenMP)" % (host_module, device[0]))
    if module.real_type != build_real_type():
        raise SystemExit("KFVM_HOST_PYTHON_MODULE %s is built for %s, this build for %s"
                         % (host_module, module.real_type, build_real_type()))
    info = {"backends": host, "module": os.path.basename(host_module),
            "version": module.version, "real_type": module.real_type,
            "build_backends": build_backends.split(";"),
            "build_default_backend": build_default,
            # What kfvm asks before placement has chosen a module (kfvm/_extension.py):
            # the same sources answer the same in both modules.
            "direct_default_cells": direct_default_cells(module),
            "convection_scheme_names": list(module.convection_scheme_names())}
    folder = os.path.join(package, "_host")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "info.json"), "w") as f:
        json.dump(info, f, indent=1)
    print("kfvm: host module %s (backends %s) beside the build's (%s)"
          % (host_module, ", ".join(host), build_backends.replace(";", ", ")))


def direct_default_cells(module):
    """The largest mesh (cells) of each dimension the direct solver is the default for;
    a dimension without one is left out."""
    limits = {}
    for dimension in (1, 2, 3):
        if not module.direct_solver_by_default(dimension, 0):
            continue
        low, high = 0, 1 << 40  # low: by default, high: not
        while high - low > 1:
            middle = (low + high) // 2
            if module.direct_solver_by_default(dimension, middle):
                low = middle
            else:
                high = middle
        limits[str(dimension)] = low
    return limits


def build_real_type():
    return os.environ.get("KFVM_BUILD_REAL_TYPE", "float64")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
