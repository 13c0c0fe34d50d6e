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

TEST(GmshFile, FromAFile) {
  const std::string path = ::testing::TempDir() + "kfvm_square.msh";
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
  expectError([&] { parse(replaced(version2, "2.2 0 8", "2.2 1 8")); }, {"binary"});
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
