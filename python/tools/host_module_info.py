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
            "build_default_backend": build_default}
    folder = os.path.join(package, "_host")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "info.json"), "w") as f:
        json.dump(info, f, indent=1)
    print("kfvm: host module %s (backends %s) beside the build's (%s)"
          % (host_module, ", ".join(host), build_backends.replace(";", ", ")))


def build_real_type():
    return os.environ.get("KFVM_BUILD_REAL_TYPE", "float64")


if __name__ == "__main__":
    if len(sys.argv) != 5:
        raise SystemExit(__doc__)
    main(*sys.argv[1:])
