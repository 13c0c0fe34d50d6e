"""Which of the build's extension modules this process loads, and when.

Every build has kfvm/_kfvm, holding all its backends. A device build (Cuda, HIP) may
also have a host module, kfvm/_host/_kfvm: the same sources built on a host-only
Kokkos (CMake's KFVM_HOST_PYTHON_MODULE), with kfvm/_host/info.json naming its backends
and the device build's. Loading the device module costs its load and the device's
initialization (a large part of a second), which a small problem never wins back; the
host module loads in a few milliseconds.

So nothing is loaded at ``import kfvm``: ``kfvm._kfvm`` stands for the module until
something needs it. The first mesh placed on a backend the host module has (a small
problem, a direct solve: kfvm/placement.py) loads the host module; anything else (a
device backend, kfvm.backends, a Polynomial) loads the device module. One process holds
one of them: both define the same Python types.
"""

import importlib.machinery as _machinery
import importlib.util as _util
import json as _json
import os as _os
import sys as _sys
import types as _types
import warnings as _warnings

from ._errors import Error

_PACKAGE = _os.path.dirname(_os.path.abspath(__file__))
_NAME = __name__.rsplit(".", 1)[0] + "._kfvm"


def _find(folder):
    for suffix in _machinery.EXTENSION_SUFFIXES:
        path = _os.path.join(folder, "_kfvm" + suffix)
        if _os.path.exists(path):
            return path
    return None


def _read_host_info(folder):
    try:
        with open(_os.path.join(folder, "info.json")) as f:
            info = _json.load(f)
        return info if isinstance(info.get("backends"), list) else None
    except (OSError, ValueError, AttributeError):
        return None


#: The build's module (every backend) and the host module (None: the build has none).
FULL = _find(_PACKAGE)
_host_folder = _os.path.join(_PACKAGE, "_host")
_host_info = _read_host_info(_host_folder)
HOST = _find(_host_folder) if _host_info else None


class _Stand_in(_types.ModuleType):
    """kfvm._kfvm until a module is loaded: the first attribute asked for loads the
    build's module (load() chooses the host one first where placement asks for it)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(load(), name)


module = _Stand_in(_NAME, "kfvm's C++ library, loaded on first use (kfvm/_extension.py)")
_loaded = None  # the path of the module this process loaded


def _load_file(path):
    spec = _util.spec_from_file_location(_NAME, path)
    real = _util.module_from_spec(spec)
    spec.loader.exec_module(real)
    return real


def loaded():
    """The path of the extension module this process loaded, or None."""
    return _loaded


def host_backends():
    """The backends of the host module (empty: the build has none)."""
    return list(_host_info["backends"]) if HOST else []


def build():
    """(backends, default backend) of the build's module, without loading it where the
    host module's info.json says them (also once the host module is loaded)."""
    if _loaded != FULL and HOST and _host_info.get("build_backends") and \
            _host_info.get("build_default_backend"):
        return list(_host_info["build_backends"]), _host_info["build_default_backend"]
    return list(module.backends), module.default_backend


def default_backend():
    """The backend a mesh takes when neither it nor placement names one: the build's
    default, or the host module's once this process holds it."""
    if _loaded is not None and _loaded == HOST:
        return module.default_backend
    return build()[1]


def direct_solver_by_default(dimension, cells):
    """_kfvm.direct_solver_by_default without loading a module where info.json records
    the policy (the host module is built from the same sources): placement asks it before
    it knows which module to load."""
    limits = _host_info.get("direct_default_cells") if (HOST and _loaded is None) else None
    if limits is not None:
        limit = limits.get(str(min(max(int(dimension), 1), 3)))
        return limit is not None and int(cells) <= limit
    return module.direct_solver_by_default(dimension, cells)


def names(what):
    """A list of names the module gives (convection_scheme_names, ...), from info.json
    while no module is loaded."""
    recorded = _host_info.get(what) if (HOST and _loaded is None) else None
    if recorded is not None:
        return list(recorded)
    return list(getattr(module, what)())


def load(backend=None):
    """The extension module, loaded now if it is not yet: the host module when the build
    has one and it has this backend, the build's module otherwise (and for None)."""
    global _loaded
    if _loaded is not None:
        return module
    path = HOST if (HOST and backend is not None and backend in host_backends()) else FULL
    if path is None:
        raise ImportError("kfvm's extension module _kfvm is not built next to %s: build "
                          "kfvm (scripts/build.sh) and use PYTHONPATH=build/python, or "
                          "cmake --install" % _PACKAGE)
    try:
        real = _load_file(path)
    except ImportError as error:
        if path != HOST or FULL is None:
            raise
        _warnings.warn("kfvm's host module %s does not load (%s); the build's module "
                       "runs this process" % (HOST, error), RuntimeWarning, stacklevel=3)
        path = FULL
        real = _load_file(path)
    # The stand-in becomes the module: everything that imported kfvm._kfvm holds it.
    for key, value in vars(real).items():
        if key not in ("__name__", "__loader__", "__spec__"):
            setattr(module, key, value)
    module.__file__ = path
    _loaded = path
    return module


def held_by_host(backend):
    """Whether this process loaded the host module and it lacks this backend (the build's
    module, which has it, cannot be loaded beside it)."""
    return _loaded is not None and _loaded == HOST and backend not in module.backends


def release():
    """Lets go of Kokkos at exit, where a module was loaded."""
    if _loaded is not None:
        module.release()


def require(backend):
    """The loaded module's submodule for this backend, loading the module for it; a
    kfvm.Error naming what there is when this process cannot run on it."""
    load(backend)
    if backend not in module.backends:
        if HOST and _loaded == HOST and backend in build()[0]:
            raise Error("backend '%s' is in this build's device module, but this process "
                        "loaded its host module (backends: %s) for an earlier mesh; both "
                        "cannot be loaded in one process: name the backend before the "
                        "first mesh (KFVM_BACKEND)" % (backend, ", ".join(module.backends)))
        raise Error("backend '%s' is not in this build (it has: %s)"
                    % (backend, ", ".join(module.backends)))
    return getattr(module, backend)


_sys.modules[_NAME] = module
