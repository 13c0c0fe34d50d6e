"""kfvm: finite volumes on Kokkos, driven from Python.

The names follow FiPy where the concept is FiPy's::

    import kfvm
    mesh = kfvm.Grid1D(nx=100, dx=0.01)
    phi = kfvm.CellVariable(mesh, value=0.0, name="phi")
    phi.constrain(1.0, mesh.facesLeft)
    eq = kfvm.TransientTerm() == kfvm.DiffusionTerm(coeff=1.0)
    for step in range(10):
        eq.solve(var=phi, dt=1e-3)
    print(phi.value)

Everything lives on the build's default Kokkos backend (the GPU on a CUDA build) unless
a mesh is given ``backend=``; values stay there, and ``phi.value`` copies them to the
host only when asked. ``numpy.from_dlpack(phi)`` / ``cupy.from_dlpack(phi)`` see the
memory itself. Kokkos starts on first use (or at :func:`initialize`) and stops at
interpreter exit, after the last object that holds device memory.
"""

import atexit as _atexit

# kfvm._kfvm, the C++ library, stands in until first use: then the build's module, or
# its host module for a small problem on a device build (kfvm/_extension.py).
from . import _extension
from ._extension import module as _kfvm
from ._errors import Error, ConvergenceError
from .mesh import (Grid1D, Grid2D, Grid3D, CylindricalGrid1D, CylindricalGrid2D,
                   SphericalGrid1D, PeriodicGrid1D, PeriodicGrid2D, PeriodicGrid2DLeftRight,
                   PeriodicGrid2DTopBottom, PeriodicGrid3D, GmshMesh, Gmsh2D, Gmsh3D,
                   UnstructuredMesh, FaceSet)
from .variables import CellVariable, FaceVariable
from .terms import (
    Term,
    TransientTerm,
    DiffusionTerm,
    DiffusionTermCorrection,
    DiffusionTermNoCorrection,
    ImplicitSourceTerm,
    SourceTerm,
    ConvectionTerm,
    CentralDifferenceConvectionTerm,
    UpwindConvectionTerm,
    PowerLawConvectionTerm,
    ExponentialConvectionTerm,
    HybridConvectionTerm,
    VanLeerConvectionTerm,
    MinmodConvectionTerm,
    SuperbeeConvectionTerm,
)
from .equation import Equation, CoupledEquation
from .solvers import Solver
from .output import (
    write_vtk,
    VtkSeries,
    write_png,
    Probes,
    save_checkpoint,
    load_checkpoint,
    run_deck,
    check_deck,
    Expression,
    ResourceWatch,
)

#: Names read from the loaded module (loading the build's module if none is): the
#: version; "float64" or "float32", the build's floating-point type (KFVM_REAL_TYPE);
#: and the backend-free types. ``backends`` (the build's Kokkos execution spaces, e.g.
#: ["Cuda", "Serial"]) and ``default_backend`` (Kokkos' default execution space, where
#: meshes go unless told otherwise) are the build's, whichever module this process holds
#: (kfvm/_extension.py).
_FROM_MODULE = {"__version__": "version", "real_type": "real_type",
                "Polynomial": "Polynomial", "StepReport": "StepReport",
                "BoundaryCondition": "BoundaryCondition"}


def __getattr__(name):
    if name in _FROM_MODULE:
        return getattr(_kfvm, _FROM_MODULE[name])
    if name == "backends":
        return _extension.build()[0]
    if name == "default_backend":
        return _extension.build()[1]
    raise AttributeError("module 'kfvm' has no attribute %r" % name)


def initialize(num_threads=None, device_id=None):
    """Starts Kokkos with these settings before the first mesh or field.

    Without a call, Kokkos starts on first use with its defaults (OMP_NUM_THREADS,
    KOKKOS_NUM_THREADS, KOKKOS_DEVICE_ID). A call after Kokkos started raises
    :class:`kfvm.Error` unless the settings are those it runs with.
    """
    _kfvm.initialize(-1 if num_threads is None else int(num_threads),
                     -1 if device_id is None else int(device_id))


def is_initialized():
    """True while Kokkos runs for kfvm."""
    return _extension.loaded() is not None and _kfvm.is_running()


def info():
    """This build and this machine: versions, backends, real type, Trilinos, MPI, memories."""
    return _kfvm.info()


def kokkos_configuration():
    """Kokkos' own configuration report (print_configuration, verbose)."""
    return _kfvm.kokkos_configuration()


def fence():
    """Waits for all device work (Kokkos::fence)."""
    _kfvm.fence()


def linear_solver_names():
    """Solver names :class:`Solver` takes: the Krylov methods cg, fcg, bicgstab, gmres,
    fgmres, and Trilinos' where built."""
    return list(_kfvm.linear_solver_names())


def preconditioner_names():
    """Preconditioner names kfvm's own Krylov methods take (``preconditioner=``)."""
    return list(_kfvm.preconditioner_names())


def convection_scheme_names():
    """Scheme names ConvectionTerm(scheme=...) takes."""
    return list(_kfvm.convection_scheme_names())


# At exit the module lets go of Kokkos; it is finalized then, or when the last object
# still holding device memory goes (kfvm/src/kfvm_PySession.hpp).
_atexit.register(_extension.release)
