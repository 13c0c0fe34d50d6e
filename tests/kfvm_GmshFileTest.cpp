// Gmsh .msh files read into GmshFile: the same square of two triangles in MSH 2.2 and
// MSH 4.1, physical groups with and without names, and the files that must be errors.
#include <kfvm_GmshFile.hpp>

#include "kfvm_TestHelpers.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

using namespace kfvm;
using kfvm::Test::expectError;

namespace {

const char* version2 = R"($MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
3
1 1 "bottom"
1 2 "left side"
2 3 "domain"
$EndPhysicalNames
$Nodes
4
1 0 0 0
2 1 0 0
3 1 1 0
4 0 1 0.5
$EndNodes
$Elements
5
1 1 2 1 1 1 2
2 1 2 2 4 4 1
3 2 2 3 1 1 2 3
4 2 2 3 1 1 3 4
5 1 2 7 2 2 3
$EndElements
)";

const char* version4 = R"($MeshFormat
4.1 0 8
$EndMeshFormat
$PhysicalNames
3
1 1 "bottom"
1 2 "left side"
2 3 "domain"
$EndPhysicalNames
$Entities
0 3 1 0
1 0 0 0 1 0 0 1 1 2 1 -2
2 1 0 0 1 1 0 1 7 2 2 -3
4 0 0 0 0 1 0 1 2 2 4 -1
1 0 0 0 1 1 0 1 3 3 1 2 4
$EndEntities
$Nodes
1 4 1 4
2 1 0 4
1
2
3
4
0 0 0
1 0 0
1 1 0
0 1 0.5
$EndNodes
$Elements
4 5 1 5
1 1 1 1
1 1 2
1 4 1 1
2 4 1
2 1 2 2
3 1 2 3
4 1 3 4
1 2 1 1
5 2 3
$EndElements
)";

GmshFile parse(const std::string& text) {
  std::istringstream in(text);
  return readGmshFile(in, "square.msh");
}

void expectSquare(const GmshFile& mesh) {
  ASSERT_EQ(mesh.nodes.size(), 4u);
  EXPECT_EQ(mesh.nodes[3][1], 1.0);
  EXPECT_EQ(mesh.nodes[3][2], 0.5);
  ASSERT_EQ(mesh.elements.size(), 5u);
  EXPECT_EQ(mesh.dimension(), 2);
  const auto& bottom = mesh.elements[0];
  EXPECT_EQ(bottom.type, 1);
  EXPECT_EQ(bottom.dimension, 1);
  EXPECT_EQ(bottom.nodes, (std::vector<Ordinal>{0, 1}));
  EXPECT_EQ(bottom.physicals, (std::vector<int>{1}));
  EXPECT_EQ(mesh.physicalGroup(1, 1).name, "bottom");
  EXPECT_EQ(mesh.physicalGroup(1, mesh.elements[1].physicals.at(0)).name, "left side");
  const auto& second = mesh.elements[3];
  EXPECT_EQ(second.type, 2);
  EXPECT_EQ(second.dimension, 2);
  EXPECT_EQ(second.nodes, (std::vector<Ordinal>{0, 2, 3}));
  EXPECT_EQ(mesh.physicalGroup(2, second.physicals.at(0)).name, "domain");
  // A physical group the file does not name is still a group, without a name.
  EXPECT_EQ(mesh.elements[4].physicals, (std::vector<int>{7}));
  EXPECT_EQ(mesh.physicalGroup(1, 7).name, "");
  expectError([&] { mesh.physicalGroup(2, 7); }, {"dimension 2", "tag 7"});
}

/// Appends v's bytes (a binary MSH file's data, this machine's byte order).
template <class T>
void put(std::string& bytes, T v) {
  bytes.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

const char* physicalNames =
    "$PhysicalNames\n3\n1 1 \"bottom\"\n1 2 \"left side\"\n2 3 \"domain\"\n"
    "$EndPhysicalNames\n";
const double squareNodes[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0.5}};

/// The square of version2 as a binary MSH 2.2 file.
std::string binaryVersion2() {
  std::string f = "$MeshFormat\n2.2 1 8\n";
  put(f, int(1));
  f += "\n$EndMeshFormat\n" + std::string(physicalNames) + "$Nodes\n4\n";
  for (int n = 0; n < 4; ++n) {
    put(f, n + 1);
    for (double x : squareNodes[n]) put(f, x);
  }
  f += "\n$EndNodes\n$Elements\n5\n";
  // Blocks of one type: (type, count, tags), then tag, physical, entity, nodes.
  for (int v : {1, 2, 2, /**/ 1, 1, 1, 1, 2, /**/ 2, 2, 4, 4, 1}) put(f, v);
  for (int v : {2, 2, 2, /**/ 3, 3, 1, 1, 2, 3, /**/ 4, 3, 1, 1, 3, 4}) put(f, v);
  for (int v : {1, 1, 2, /**/ 5, 7, 2, 2, 3}) put(f, v);
  return f + "\n$EndElements\n";
}

/// The square of version4 as a binary MSH 4.1 file.
std::string binaryVersion4() {
  std::string f = "$MeshFormat\n4.1 1 8\n";
  put(f, int(1));
  f += "\n$EndMeshFormat\n" + std::string(physicalNames) + "$Entities\n";
  for (std::size_t count : {0, 3, 1, 0}) put(f, count);
  // Curves 1, 2, 4 (groups 1, 7, 2) and surface 1 (group 3): tag, box, groups, bounds.
  const int curves[3][2] = {{1, 1}, {2, 7}, {4, 2}};
  for (const auto& curve : curves) {
    put(f, curve[0]);
    for (int c = 0; c < 6; ++c) put(f, 0.0);
    put(f, std::size_t(1));
    put(f, curve[1]);
    put(f, std::size_t(2));
    put(f, 1);
    put(f, -2);
  }
  put(f, 1);
  for (int c = 0; c < 6; ++c) put(f, 0.0);
  put(f, std::size_t(1));
  put(f, 3);
  put(f, std::size_t(3));
  for (int b : {1, 2, 4}) put(f, b);
  f += "\n$EndEntities\n$Nodes\n";
  for (std::size_t v : {1, 4, 1, 4}) put(f, v);
  for (int v : {2, 1, 0}) put(f, v);
  put(f, std::size_t(4));
  for (std::size_t tag = 1; tag <= 4; ++tag) put(f, tag);
  for (const auto& node : squareNodes)
    for (double x : node) put(f, x);
  f += "\n$EndNodes\n$Elements\n";
  for (std::size_t v : {4, 5, 1, 5}) put(f, v);
  // Blocks: (dimension, entity, type), count, then per element its tag and nodes.
  const auto block = [&](int dimension, int entity, int type,
                         std::vector<std::vector<std::size_t>> elements) {
    for (int v : {dimension, entity, type}) put(f, v);
    put(f, elements.size());
    for (const auto& element : elements)
      for (std::size_t v : element) put(f, v);
  };
  block(1, 1, 1, {{1, 1, 2}});
  block(1, 4, 1, {{2, 4, 1}});
  block(2, 1, 2, {{3, 1, 2, 3}, {4, 1, 3, 4}});
  block(1, 2, 1, {{5, 2, 3}});
  return f + "\n$EndElements\n";
}

/// text with the first occurrence of from replaced by to.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST(GmshFile, VersionsTwoAndFourReadTheSameSquare) {
  const auto two = parse(version2);
  EXPECT_EQ(two.version, "2.2");
  expectSquare(two);
  const auto four = parse(version4);
  EXPECT_EQ(four.version, "4.1");
  expectSquare(four);
  // Windows line ends and a section the reader skips.
  std::string crlf;
  for (const char c : std::string(version4)) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  expectSquare(
      parse(replaced(crlf, "$Nodes", "$Comments\r\nhello\r\n$EndComments\r\n$Nodes")));
}

TEST(GmshFile, BinaryFilesReadTheSameSquare) {
  const auto two = parse(binaryVersion2());
  EXPECT_EQ(two.version, "2.2");
  expectSquare(two);
  const auto four = parse(binaryVersion4());
  EXPECT_EQ(four.version, "4.1");
  expectSquare(four);
  EXPECT_EQ(four.elements[3].tag, 4);
  // Cut short, the other byte order, more data than the counts say.
  const std::string cut =
      binaryVersion4().substr(0, binaryVersion4().find("$EndNodes") - 9);
  expectError([&] { parse(cut); },
              {"square.msh", "the file ends inside the binary $Nodes"});
  std::string swapped = binaryVersion2();
  swapped[swapped.find("8\n") + 2] = 0;
  swapped[swapped.find("8\n") + 5] = 1;
  expectError([&] { parse(swapped); }, {"other byte order"});
  expectError([&] { parse(replaced(binaryVersion2(), "$Nodes\n4\n", "$Nodes\n3\n")); },
              {"binary $Nodes section holds more than its counts say"});
  expectError([&] { parse(replaced(binaryVersion2(), "2.2 1 8", "2.2 1 4")); },
              {"data size 4"});
}

TEST(GmshFile, FromAFile) {
  const std::string path = kfvm::Test::workPath("square.msh");
  {
    std::ofstream out(path);
    out << version2;
  }
  expectSquare(readGmshFile(path));
  std::remove(path.c_str());
  expectError([&] { readGmshFile(path); }, {path, "cannot be opened"});
}

TEST(GmshFile, BadFilesAreErrorsNamingTheFileLineAndValue) {
  expectError([&] { parse(replaced(version2, "2 1 2 2 4 4 1", "2 1 2 2 4 4 9")); },
              {"square.msh", "line 20", "node 9"});
  expectError([&] { parse(replaced(version4, "2 4 1", "2 4 12")); },
              {"square.msh", "node 12"});
  expectError(
      [&] { parse(replaced(version2, "3 2 2 3 1 1 2 3", "3 9 2 3 1 1 2 3 4 5 6")); },
      {"line 21", "element type 9", "first-order"});
  expectError([&] { parse(replaced(version2, "2.2 0 8", "3.0 0 8")); },
              {"line 2", "MSH version 3"});
  expectError([&] { parse(replaced(version2, "1 0 0 0\n", "1 0 zero 0\n")); },
              {"line 12", "expected y", "zero"});
  expectError([&] { parse(replaced(version2, "3 1 1 0\n", "1 1 1 0\n")); },
              {"node 1 appears twice"});
  const std::string cut =
      std::string(version2).substr(0, std::string(version2).find("3 2 2"));
  expectError([&] { parse(cut); }, {"line 20", "the file ends inside $Elements"});
  expectError([&] { parse("$Nodes\n"); }, {"expected $MeshFormat first"});
  expectError([&] { parse(replaced(version4, "1 4 1 4\n", "1 5 1 4\n")); },
              {"holds 4 nodes, not 5"});
  expectError([&] { parse(replaced(version4, "2 1 2 2\n", "1 1 2 2\n")); },
              {"element type 2 in an entity of dimension 1"});
  const std::string noElements =
      std::string(version2).substr(0, std::string(version2).find("$Elements"));
  expectError([&] { parse(noElements); }, {"no $Elements section"});
}
