"""General meshes from Python: Gmsh files and cells given as lists, named patches and
regions, diffusion with and without the non-orthogonal correction, .vtu output."""

import os
import shutil

import numpy as np
import pytest

import kfvm

DOUBLE = kfvm.real_type == "float64"
#: Solver and sweep tolerances float can reach (as test_terms.py's).
SOLVE = 1e-13 if DOUBLE else 1e-6
SWEEP = 1e-11 if DOUBLE else 1e-5
TIGHT = 1e-9 if DOUBLE else 2e-4


def kuhn_tetrahedra(n, distortion=0.04):
    """The unit cube in n^3 cubes, each cut into 6 tetrahedra around its diagonal, the
    nodes moved by a smooth field that vanishes on the sides; x = 0 and x = 1 named."""
    i, j, k = np.meshgrid(*[np.arange(n + 1)] * 3, indexing="ij")
    lattice = np.stack([i.ravel("F"), j.ravel("F"), k.ravel("F")], axis=1) / n
    bump = distortion * np.prod(np.sin(2 * np.pi * lattice), axis=1)
    nodes = lattice + np.outer(bump, [1.0, -0.7, 0.4])
    node = lambda a, b, c: a + (n + 1) * (b + (n + 1) * c)
    cells, patches = [], {"left": [], "right": []}
    for c in range(n):
        for b in range(n):
            for a in range(n):
                v = [node(a, b, c), node(a + 1, b, c), node(a + 1, b + 1, c),
                     node(a, b + 1, c), node(a, b, c + 1), node(a + 1, b, c + 1),
                     node(a + 1, b + 1, c + 1), node(a, b + 1, c + 1)]
                for p, q in ((1, 2), (1, 5), (3, 2), (3, 7), (4, 5), (4, 7)):
                    tet = [v[0], v[p], v[q], v[6]]
                    cells.append(tet)
                    for face in ([0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]):
                        x = lattice[[tet[m] for m in face], 0]
                        for name, side in (("left", 0.0), ("right", 1.0)):
                            if np.all(x == side):
                                patches[name].append([tet[m] for m in face])
    return kfvm.UnstructuredMesh(nodes, cells, patches)


def linear_profile_error(term):
    mesh = kuhn_tetrahedra(3)
    phi = kfvm.CellVariable(mesh, name="phi")
    phi.constrain(0.0, mesh.patch("left"))
    phi.constrain(1.0, mesh.patch("right"))
    (term(coeff=1.0) == 0).solve(phi, solver=kfvm.Solver("cg", tolerance=SOLVE),
                                 sweeps=200, sweep_tolerance=SWEEP)
    return np.max(np.abs(np.asarray(phi) - mesh.x))


def test_correction_makes_the_linear_profile_exact_on_tetrahedra():
    assert linear_profile_error(kfvm.DiffusionTermCorrection) < TIGHT
    assert linear_profile_error(kfvm.DiffusionTerm) > 1e-3


SQUARE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests",
                      "meshes", "square-inlet.msh")


def test_gmsh_mesh_patches_regions_and_vtu(tmp_path):
    mesh = kfvm.GmshMesh(SQUARE)  # 4 triangles around the centre of the unit square
    assert (mesh.numberOfCells, mesh.numberOfFaces) == (4, 8)
    assert mesh.patchNames == ["inlet", "wall"]
    assert len(mesh.patch("inlet")) == 1 and len(mesh.patch("wall")) == 3
    assert mesh.regionNames == ["domain"] and mesh.region("domain").all()
    assert np.isclose(mesh.cellVolumes.sum(), 1.0)
    assert mesh.nodes.shape == (2, 5)
    with pytest.raises(kfvm.Error, match="unknown patch 'outlet'.*inlet, wall"):
        mesh.patch("outlet")
    with pytest.raises(kfvm.Error, match="unknown cell region"):
        mesh.region("core")
    # phi = 1 on the inlet (x = 0), 0 on the walls: highest in the cell at the inlet.
    phi = kfvm.CellVariable(mesh, name="phi")
    phi.constrain(1.0, mesh.patch("inlet"))
    phi.constrain(0.0, mesh.patch("wall"))
    kfvm.DiffusionTerm(1.0).solve(phi, solver=kfvm.Solver("cg", tolerance=SOLVE))
    left, right = np.argmin(mesh.x), np.argmax(mesh.x)
    assert phi.value[left] > phi.value[right] > 0
    series = kfvm.VtkSeries(tmp_path, "run")
    written = series.write(phi, 0.0)
    assert written.endswith("run_000000.vtu")
    text = open(written).read()
    assert 'NumberOfCells="4"' in text and 'Name="phi"' in text


def test_bad_cells_are_errors():
    nodes = [[0, 0], [1, 0], [2, 0], [0, 1]]
    with pytest.raises(kfvm.Error, match="degenerate"):
        kfvm.UnstructuredMesh(nodes, [[0, 1, 2]])
    with pytest.raises(kfvm.Error, match="3D cell 0 has 7 nodes"):
        kfvm.UnstructuredMesh([[0, 0, 0]] * 8, [list(range(7))])
    with pytest.raises(kfvm.Error, match="patch 'top' names the face"):
        kfvm.UnstructuredMesh(nodes, [[0, 1, 3]], {"top": [[1, 2]]})
    cube = [[x, y, z] for z in (0, 1) for y in (0, 1) for x in (0, 1)]
    faces = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2],
             [1, 3, 7, 5]]
    with pytest.raises(kfvm.Error, match="cell 1 is a list of nodes, cell 0 a list of faces"):
        kfvm.UnstructuredMesh(cube, [faces, [0, 1, 3, 2, 4, 5, 7, 6]])
    with pytest.raises(kfvm.Error, match="cell 0 mixes nodes and faces"):
        kfvm.UnstructuredMesh(cube, [[0, [1, 2, 3]]])
    with pytest.raises(kfvm.Error, match="cell 0 is empty"):
        kfvm.UnstructuredMesh(cube, [[]])
    with pytest.raises(kfvm.Error, match="only 3D meshes given as polyhedra"):
        kfvm.UnstructuredMesh(nodes, [[[0, 1], [1, 3], [3, 0]]])


def test_polyhedra_equal_the_standard_cells():
    """A hexahedron given by its 6 faces is the hexahedron given by its 8 nodes."""
    cube = [[x, y, z] for z in (0.0, 1.0) for y in (0.0, 2.0) for x in (0.0, 0.5)]
    faces = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2],
             [1, 3, 7, 5]]
    polyhedron = kfvm.UnstructuredMesh(cube, [faces])
    hexahedron = kfvm.UnstructuredMesh(cube, [[0, 1, 3, 2, 4, 5, 7, 6]])
    assert polyhedron.numberOfFaces == hexahedron.numberOfFaces == 6
    assert np.allclose(polyhedron.cellVolumes, [1.0])
    assert np.allclose(polyhedron.cellVolumes, hexahedron.cellVolumes)
    assert np.allclose(polyhedron.cellCenters, hexahedron.cellCenters)
    assert np.allclose(np.sort(polyhedron.faceAreas), np.sort(hexahedron.faceAreas))


CIRCLE = """
cellSize = 0.05;
radius = 1;
Point(1) = {0, 0, 0, cellSize};
Point(2) = {-radius, 0, 0, cellSize};
Point(3) = {0, radius, 0, cellSize};
Point(4) = {radius, 0, 0, cellSize};
Point(5) = {0, -radius, 0, cellSize};
Circle(6) = {2, 1, 3};
Circle(7) = {3, 1, 4};
Circle(8) = {4, 1, 5};
Circle(9) = {5, 1, 2};
Line Loop(10) = {6, 7, 8, 9};
Plane Surface(11) = {10};
"""


@pytest.mark.skipif(shutil.which(os.environ.get("KFVM_GMSH", "gmsh")) is None,
                    reason="the gmsh program (Debian's gmsh) is not installed")
def test_fipy_circle_example_on_a_gmsh_script():
    """FiPy's examples/diffusion/circle.py: its Gmsh script meshed by gmsh, phi = x held
    on the rim, 10 steps against the analytical solution (FiPy's atol 7e-2), then the
    steady state phi = x (atol 0.03)."""
    from scipy.special import erf
    mesh = kfvm.Gmsh2D(CIRCLE)
    assert abs(mesh.cellVolumes.sum() - np.pi) < 0.01
    phi = kfvm.CellVariable(mesh, name="solution variable")
    X, Y = mesh.faceCenters
    phi.constrain(X, mesh.exteriorFaces)
    D, cell_size, steps = 1.0, 0.05, 10
    dt = 10 * 0.9 * cell_size ** 2 / (2 * D)
    eq = kfvm.TransientTerm() == kfvm.DiffusionTerm(coeff=D)
    for _ in range(steps):
        eq.solve(var=phi, dt=dt, solver=kfvm.Solver("cg", tolerance=SOLVE))
    x, y = mesh.cellCenters
    t = dt * steps
    x0 = np.cos(np.arcsin(y))
    analytical = x0 * (erf((x0 + x) / (2 * np.sqrt(D * t))) - erf((x0 - x) / (2 * np.sqrt(D * t))))
    assert np.allclose(np.asarray(phi), analytical, atol=7e-2)
    kfvm.DiffusionTerm(coeff=D).solve(var=phi, solver=kfvm.Solver("cg", tolerance=SOLVE))
    assert np.allclose(np.asarray(phi), x, atol=0.03)
    with pytest.raises(kfvm.Error, match="dimension 2 or 3"):
        kfvm.GmshMesh(CIRCLE)
    with pytest.raises(kfvm.Error, match="failed"):
        kfvm.Gmsh2D("Point(1) = {0, 0, 0, 0.1};\nNo Such Command;\n")


@pytest.mark.skipif(shutil.which(os.environ.get("KFVM_GMSH", "gmsh")) is None,
                    reason="the gmsh program (Debian's gmsh) is not installed")
def test_gmsh_binary_files_read_as_their_ascii_twins(tmp_path):
    import subprocess
    script = tmp_path / "circle.geo"
    script.write_text(CIRCLE)
    meshes = []
    for version in ("msh22", "msh41"):
        for binary in ([], ["-bin"]):
            out = tmp_path / ("%s%s.msh" % (version, "-bin" if binary else ""))
            subprocess.run([os.environ.get("KFVM_GMSH", "gmsh"), "-2", "-format", version,
                            *binary, str(script), "-o", str(out), "-v", "1"], check=True)
            meshes.append(kfvm.GmshMesh(out))
    for mesh in meshes[1:]:
        assert mesh.numberOfCells == meshes[0].numberOfCells == 3060
        assert np.allclose(mesh.cellCenters, meshes[0].cellCenters, rtol=0,
                           atol=1e-12 if DOUBLE else 1e-6)
        assert mesh.patchNames == meshes[0].patchNames


def test_probes_find_the_cell_holding_each_point(tmp_path):
    mesh = kfvm.GmshMesh(SQUARE)  # 4 triangles meeting at (0.5, 0.5)
    phi = kfvm.CellVariable(mesh, value=np.arange(4.0), name="phi")
    x, y = mesh.cellCenters
    points = [(0.5, 0.1), (0.9, 0.5), (0.5, 0.9), (0.1, 0.5)]
    probes = kfvm.Probes(phi, points, path=tmp_path / "p.csv")
    expected = [int(np.argmin((x - px) ** 2 + (y - py) ** 2)) for px, py in points]
    assert probes.cells == expected
    assert np.allclose(probes.record(0.0), [expected])
    with pytest.raises(kfvm.Error, match="outside the mesh"):
        kfvm.Probes(phi, [(1.5, 0.5)])


@pytest.mark.skipif(not kfvm._kfvm.has_decks, reason="built without decks")
def test_gmsh_decks_from_a_file_and_from_its_script(tmp_path):
    """apps/decks/channel-gmsh.toml from Python; the same deck with the mesh given as
    its Gmsh script (geo = ...) meshes on load to the same mesh and the same answer;
    --cells and unknown patches are refused."""
    from conftest import DECKS
    deck = (DECKS / "channel-gmsh.toml").read_text()
    deck = deck.replace('"meshes/channel.msh"', '"%s"' % (DECKS / "meshes" / "channel.msh"))
    if not DOUBLE:  # the deck's check is double's round-off
        deck = deck.replace("tolerance = 1e-13", "tolerance = 1e-6").replace(
            "sweep_tolerance = 1e-12", "sweep_tolerance = 1e-6").replace(
            "tolerance = 1e-9", "tolerance = 1e-3")
    path = tmp_path / "file.toml"
    path.write_text(deck)
    assert kfvm.run_deck(path, output=tmp_path / "file", quiet=True) == 0
    assert (tmp_path / "file" / "phi_000000.vtu").exists()
    with pytest.raises(kfvm.Error, match="--cells sets a Cartesian grid"):
        kfvm.run_deck(path, cells=8)
    wrong = tmp_path / "wrong.toml"
    wrong.write_text(deck.replace('patch = "outlet"', 'patch = "exit"'))
    with pytest.raises(kfvm.Error, match=r'no patch "exit" \(its patches: walls, outlet, inlet\)'):
        kfvm.check_deck(wrong)
    if shutil.which(os.environ.get("KFVM_GMSH", "gmsh")) is None:
        pytest.skip("the gmsh program (Debian's gmsh) is not installed")
    script = tmp_path / "script.toml"
    script.write_text(deck.replace('file = "%s"' % (DECKS / "meshes" / "channel.msh"),
                                   'geo = "%s"' % (DECKS / "meshes" / "channel.geo")))
    assert kfvm.run_deck(script, output=tmp_path / "script", quiet=True) == 0
    a = open(tmp_path / "file" / "series.csv").read().splitlines()[-1].split(",")
    b = open(tmp_path / "script" / "series.csv").read().splitlines()[-1].split(",")
    assert a[6:] == pytest.approx(b[6:], rel=1e-12 if DOUBLE else 1e-5)


def test_cylindrical_and_spherical_grids_take_fipys_geometry():
    """kfvm.CylindricalGrid1D/2D and SphericalGrid1D: FiPy's areas and volumes (scaled by
    r, r^2), and FiPy's exponential1D convection in r against its analytical answer."""
    mesh = kfvm.CylindricalGrid1D(dr=0.01, nr=100, origin=1.0)
    assert mesh.coordinates == "cylindrical" and not mesh._cpp.is_cartesian
    rtol = 1e-12 if DOUBLE else 1e-4  # float32 geometry
    assert np.allclose(mesh.cellVolumes, 0.01 * mesh.x, rtol=rtol)
    assert np.allclose(mesh.faceAreas, np.linspace(1.0, 2.0, 101), rtol=rtol)
    var = kfvm.CellVariable(mesh=mesh, name="v")
    var.constrain(0.0, mesh.facesLeft)
    var.constrain(1.0, mesh.facesRight)
    (kfvm.DiffusionTerm(coeff=1.0) + kfvm.ExponentialConvectionTerm(coeff=(10.0,))).solve(
        var=var, solver=kfvm.Solver("gmres", tolerance=SOLVE))
    expi = pytest.importorskip("scipy.special").expi
    r = mesh.x
    exact = np.exp(10 * (2 - r)) * (expi(10.0) - expi(10 * r)) / (expi(10.0) - expi(20.0))
    assert abs(var.value - exact).max() < (3e-4 if DOUBLE else 1e-3)  # FiPy's atol 1e-3
    rz = kfvm.CylindricalGrid2D(dr=0.5, dz=2.0, nr=2, nz=1)
    assert np.allclose(rz.cellVolumes, [0.5 * 2 * 0.25, 0.5 * 2 * 0.75], rtol=rtol)
    sphere = kfvm.SphericalGrid1D(dr=0.5, nr=2, origin=1.0)
    assert np.allclose(sphere.cellVolumes, [0.5 * 1.25 ** 2, 0.5 * 1.75 ** 2], rtol=rtol)
    assert np.allclose(sphere.faceAreas, [1.0, 1.5 ** 2, 4.0], rtol=rtol)
    with pytest.raises(kfvm.Error, match="radius starts at r = -1"):
        kfvm.CylindricalGrid1D(dr=1.0, nr=2, origin=-1.0)


def test_periodic_grids_join_their_ends():
    """kfvm.PeriodicGrid1D/2D(LeftRight, TopBottom)/3D: no patches on a periodic axis,
    the low face joining the last cell to the first; a box advected once around with
    Van Leer comes back, mass kept."""
    mesh = kfvm.PeriodicGrid1D(dx=0.01, nx=100)
    assert mesh.periodic == (True, False, False) and mesh.patchNames == []
    assert mesh.numberOfFaces == 100 and list(mesh.faceCellIDs[:, 0]) == [99, 0]
    assert kfvm.PeriodicGrid2DLeftRight(nx=3, ny=2).patchNames == ["bottom", "top"]
    assert kfvm.PeriodicGrid2DTopBottom(nx=3, ny=2).patchNames == ["left", "right"]
    assert kfvm.PeriodicGrid3D(nx=2, ny=2, nz=2).numberOfFaces == 24
    phi = kfvm.CellVariable(mesh=mesh, name="phi", hasOld=True,
                            value=np.where((mesh.x > 0.2) & (mesh.x < 0.4), 1.0, 0.0))
    start = np.array(phi.value)
    eq = kfvm.TransientTerm() + kfvm.VanLeerConvectionTerm(coeff=(1.0,)) == 0
    solver = kfvm.Solver("gmres", tolerance=SOLVE)
    for _ in range(500):
        phi.updateOld()
        eq.solve(var=phi, dt=0.002, solver=solver, sweep_tolerance=SWEEP)
    assert abs(phi.value.sum() - start.sum()) < (1e-9 if DOUBLE else 1e-3) * start.sum()
    slack = 1e-6 if DOUBLE else 1e-4  # the solver's tolerance
    assert phi.value.min() > -slack and phi.value.max() < 1 + slack
    assert phi.value.max() > 0.9 and abs(mesh.x[np.argmax(phi.value)] - 0.3) < 0.06


@pytest.mark.skipif(not kfvm._kfvm.has_png, reason="built without stb (no PNG writer)")
def test_png_snapshot_of_a_general_mesh(tmp_path):
    """write_png rasterizes a 2D general mesh's cells (a 3D one is refused)."""
    from conftest import DECKS
    mesh = kfvm.GmshMesh(str(DECKS / "meshes" / "channel.msh"))
    phi = kfvm.CellVariable(mesh=mesh, value=mesh.x, name="phi")
    path = tmp_path / "phi.png"
    try:
        kfvm.write_png(path, phi)
    except kfvm.Error as error:
        if "without stb" in str(error):
            pytest.skip(str(error))
        raise
    assert open(path, "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    tets = kuhn_tetrahedra(1)
    with pytest.raises(kfvm.Error, match="3D general meshes"):
        kfvm.write_png(tmp_path / "tets.png", kfvm.CellVariable(mesh=tets, value=1.0))


def test_periodic_gmsh_mesh_joins_its_left_side_to_its_right():
    """A Gmsh mesh made periodic by Gmsh's Periodic Curve (apps/decks/meshes/
    periodic-square.geo): GmshMesh(periodic=[("left", "right")]) joins each right face
    to the left face it is the image of; -div grad phi + phi = (1 + 4 pi^2) sin(2 pi x)
    with the correction then gives sin(2 pi x) to the scheme's error, with no condition
    on the joined sides (the apps/decks/periodic-gmsh.toml deck's problem)."""
    from conftest import DECKS
    path = str(DECKS / "meshes" / "periodic-square.msh")
    plain = kfvm.GmshMesh(path)
    mesh = kfvm.GmshMesh(path, periodic=[("left", "right")])
    assert sorted(plain.patchNames) == ["bottom", "left", "right", "top"]
    assert sorted(mesh.patchNames) == ["bottom", "top"]
    joined = len(plain.patch("right"))
    assert joined > 10 and mesh.numberOfFaces == plain.numberOfFaces - joined
    with pytest.raises(kfvm.Error, match="unknown patch 'left'"):
        mesh.patch("left")
    k = 2 * np.pi
    sweep = SWEEP if DOUBLE else 3e-4  # float's sweeps stop near 5e-5 here
    source = kfvm.CellVariable(mesh, value=(1 + k * k) * np.sin(k * mesh.x))
    phi = kfvm.CellVariable(mesh, name="phi")
    eq = kfvm.DiffusionTermCorrection(coeff=1.0) == kfvm.ImplicitSourceTerm(1.0) - source
    eq.solve(phi, solver=kfvm.Solver("cg", tolerance=SOLVE), sweeps=100,
             sweep_tolerance=sweep)
    error = np.max(np.abs(np.asarray(phi) - np.sin(k * mesh.x)))
    assert error < 0.02
    # Without the join the sides are walls (zero flux): far from sin(2 pi x) there.
    walled = kfvm.CellVariable(plain, name="phi")
    source_plain = kfvm.CellVariable(plain, value=(1 + k * k) * np.sin(k * plain.x))
    (kfvm.DiffusionTermCorrection(coeff=1.0) == kfvm.ImplicitSourceTerm(1.0)
     - source_plain).solve(walled, solver=kfvm.Solver("cg", tolerance=SOLVE), sweeps=100,
                           sweep_tolerance=sweep)
    assert np.max(np.abs(np.asarray(walled) - np.sin(k * plain.x))) > 5 * error
    with pytest.raises(kfvm.Error, match="no patch 'outlet'"):
        kfvm.GmshMesh(path, periodic=[("left", "outlet")])
    with pytest.raises(kfvm.Error, match="pairs of patch names"):
        kfvm.GmshMesh(path, periodic=["left"])
