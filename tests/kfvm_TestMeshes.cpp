#include "kfvm_TestMeshes.hpp"

#include <kfvm_MeshGenerators.hpp>

#include <kfvm_Patch.hpp>

#include <cmath>
#include <sstream>

namespace kfvm::Test {

int MshText::node(double x, double y, double z) {
  nodes.push_back({x, y, z});
  return int(nodes.size());  // Gmsh numbers nodes from 1
}

void MshText::element(int type, int physical, const std::vector<int>& ids) {
  std::ostringstream line;
  line << elements.size() + 1 << ' ' << type << " 2 " << physical << ' ' << physical;
  for (int id : ids) line << ' ' << id;
  elements.push_back(line.str());
}

std::string MshText::text() const {
  std::ostringstream out;
  out.precision(17);
  out << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n" << names.size() << '\n';
  for (const auto& name : names) out << name << '\n';
  out << "$EndPhysicalNames\n$Nodes\n" << nodes.size() << '\n';
  for (std::size_t n = 0; n < nodes.size(); ++n)
    out << n + 1 << ' ' << nodes[n][0] << ' ' << nodes[n][1] << ' ' << nodes[n][2]
        << '\n';
  out << "$EndNodes\n$Elements\n" << elements.size() << '\n';
  for (const auto& line : elements) out << line << '\n';
  out << "$EndElements\n";
  return out.str();
}

MeshTopology MshText::topology() const {
  std::istringstream in(text());
  return gmshMeshTopology(readGmshFile(in, "test.msh"), "test.msh");
}

Point distorted(const Point& x, double amount) {
  constexpr double pi = 3.14159265358979323846;
  const double bump = amount * std::sin(2 * pi * x[0]) * std::sin(2 * pi * x[1]) *
                      std::sin(2 * pi * x[2]);
  return {x[0] + bump, x[1] - 0.7 * bump, x[2] + 0.4 * bump};
}

/// Hexahedra on the vertices xs, ys, zs, cells in the Cartesian order (x fastest), the
/// six sides as physical groups named like the Cartesian patches.
MshText hexahedra(const std::vector<double>& xs, const std::vector<double>& ys,
                  const std::vector<double>& zs) {
  MshText msh;
  msh.names = {"2 1 \"left\"", "2 2 \"right\"", "2 3 \"bottom\"", "2 4 \"top\"",
               "2 5 \"back\"", "2 6 \"front\"", "3 7 \"domain\""};
  const int nx = int(xs.size()), ny = int(ys.size()), nz = int(zs.size());
  for (double z : zs) {
    for (double y : ys) {
      for (double x : xs) msh.node(x, y, z);
    }
  }
  const auto id = [&](int i, int j, int k) {
    return 1 + i + nx * (j + ny * k);
  };
  for (int k = 0; k + 1 < nz; ++k) {
    for (int j = 0; j + 1 < ny; ++j) {
      for (int i = 0; i + 1 < nx; ++i)
        msh.element(5, 7,
                    {id(i, j, k), id(i + 1, j, k), id(i + 1, j + 1, k), id(i, j + 1, k),
                     id(i, j, k + 1), id(i + 1, j, k + 1), id(i + 1, j + 1, k + 1),
                     id(i, j + 1, k + 1)});
    }
  }
  for (int k = 0; k + 1 < nz; ++k) {
    for (int j = 0; j + 1 < ny; ++j) {
      for (int side = 0; side < 2; ++side) {
        const int i = side ? nx - 1 : 0;
        msh.element(3, 1 + side,
                    {id(i, j, k), id(i, j + 1, k), id(i, j + 1, k + 1), id(i, j, k + 1)});
      }
    }
    for (int i = 0; i + 1 < nx; ++i) {
      for (int side = 0; side < 2; ++side) {
        const int j = side ? ny - 1 : 0;
        msh.element(3, 3 + side,
                    {id(i, j, k), id(i + 1, j, k), id(i + 1, j, k + 1), id(i, j, k + 1)});
      }
    }
  }
  for (int j = 0; j + 1 < ny; ++j) {
    for (int i = 0; i + 1 < nx; ++i) {
      for (int side = 0; side < 2; ++side) {
        const int k = side ? nz - 1 : 0;
        msh.element(3, 5 + side,
                    {id(i, j, k), id(i + 1, j, k), id(i + 1, j + 1, k), id(i, j + 1, k)});
      }
    }
  }
  return msh;
}

MshText crossedTriangles(int n, int layers) {
  MshText msh;
  msh.names = {"1 1 \"left\"", "1 2 \"right\"", "1 3 \"bottom\"", "1 4 \"top\"",
               "2 9 \"domain\""};
  if (layers > 0)
    msh.names = {"2 1 \"left\"", "2 2 \"right\"", "2 3 \"bottom\"", "2 4 \"top\"",
                 "2 5 \"back\"", "2 6 \"front\"", "3 9 \"domain\""};
  const int planes = layers > 0 ? layers + 1 : 1;
  const int perPlane = (n + 1) * (n + 1) + n * n;
  for (int k = 0; k < planes; ++k) {
    const double z = layers > 0 ? double(k) / layers : 0;
    for (int j = 0; j <= n; ++j) {
      for (int i = 0; i <= n; ++i) msh.node(double(i) / n, double(j) / n, z);
    }
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) msh.node((i + 0.5) / n, (j + 0.5) / n, z);
    }
  }
  const auto corner = [&](int i, int j, int k) {
    return 1 + i + (n + 1) * j + perPlane * k;
  };
  const auto centre = [&](int i, int j, int k) {
    return 1 + (n + 1) * (n + 1) + i + n * j + perPlane * k;
  };
  for (int k = 0; k < std::max(layers, 1); ++k) {
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) {
        const int ring[5][2] = {{i, j}, {i + 1, j}, {i + 1, j + 1}, {i, j + 1}, {i, j}};
        for (int t = 0; t < 4; ++t) {
          const int a = corner(ring[t][0], ring[t][1], k);
          const int b = corner(ring[t + 1][0], ring[t + 1][1], k);
          const int c = centre(i, j, k);
          if (layers == 0)
            msh.element(2, 9, {a, b, c});
          else
            msh.element(6, 9, {a, b, c, a + perPlane, b + perPlane, c + perPlane});
        }
      }
    }
  }
  // The sides: segments in 2D, quadrangles (and the triangles of the ends) in 3D.
  for (int k = 0; k < std::max(layers, 1); ++k) {
    for (int m = 0; m < n; ++m) {
      const int sides[4][4] = {
          {0, m, 0, m + 1}, {n, m, n, m + 1}, {m, 0, m + 1, 0}, {m, n, m + 1, n}};
      for (int s = 0; s < 4; ++s) {
        const int a = corner(sides[s][0], sides[s][1], k);
        const int b = corner(sides[s][2], sides[s][3], k);
        if (layers == 0)
          msh.element(1, 1 + s, {a, b});
        else
          msh.element(3, 1 + s, {a, b, b + perPlane, a + perPlane});
      }
    }
  }
  for (int side = 0; layers > 0 && side < 2; ++side) {
    const int k = side ? layers : 0;
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) {
        const int ring[5][2] = {{i, j}, {i + 1, j}, {i + 1, j + 1}, {i, j + 1}, {i, j}};
        for (int t = 0; t < 4; ++t)
          msh.element(2, 5 + side,
                      {corner(ring[t][0], ring[t][1], k),
                       corner(ring[t + 1][0], ring[t + 1][1], k), centre(i, j, k)});
      }
    }
  }
  return msh;
}

MeshTopology cutCubes(int n, bool pyramids, double distortion) {
  return cutCubeMesh(n, pyramids ? CubeCut::Pyramids : CubeCut::Tetrahedra,
                     [distortion](const Point& x) { return distorted(x, distortion); });
}

}  // namespace kfvm::Test
