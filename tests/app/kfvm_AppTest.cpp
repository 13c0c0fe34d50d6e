// The `kfvm` command's own pieces, without Kokkos: deck expressions and PNG snapshots
// (read back with stb_image).
#include "kfvm_Expression.hpp"
#include "kfvm_PngWriter.hpp"

#include <kfvm_Error.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#include <stb/stb_image.h>

namespace kfvm::app {
namespace {

TEST(Expression, PrecedenceFunctionsAndVariables) {
  EXPECT_DOUBLE_EQ(Expression("1 + 2 * 3 ^ 2")(0, 0, 0), 19);
  EXPECT_DOUBLE_EQ(Expression("2 ^ 3 ^ 2")(0, 0, 0), 512);  // right-associative
  EXPECT_DOUBLE_EQ(Expression("-2 ^ 2")(0, 0, 0), -4);
  EXPECT_DOUBLE_EQ(Expression("(1 - x) / (y + z) - t")(0.5, 1, 3, 0.25), 0.125 - 0.25);
  EXPECT_DOUBLE_EQ(Expression("max(x, min(y, 2)) + abs(-z)")(1, 5, -3), 5);
  EXPECT_NEAR(Expression("exp(log(3)) + sin(pi / 2) + erfc(0) + tanh(0)")(0, 0, 0), 5,
              1e-15);
  EXPECT_NEAR(Expression("1e-3 * 2.5e2")(0, 0, 0), 0.25, 1e-15);
}

TEST(Expression, ErrorsNameTheTextAndThePlace) {
  auto message = [](const std::string& text) {
    try {
      Expression e(text);
    } catch (const Error& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("1 +").find("unexpected end at character 4"), std::string::npos);
  EXPECT_NE(message("sin(x").find("missing ')'"), std::string::npos);
  EXPECT_NE(message("foo(1)").find("unknown name 'foo'"), std::string::npos);
  EXPECT_NE(message("2 $ 3").find("unexpected '$' at character 3"), std::string::npos);
  EXPECT_NE(message("min(1)").find("'min' takes two arguments"), std::string::npos);
}

// A 2D field rising along x: the left column has the minimum's colour, the right the
// maximum's, the colour bar runs from viridis(1) at the top to viridis(0) at the bottom.
TEST(Png, SnapshotReadsBackWithTheFieldsColours) {
  const auto grid = CartesianGrid::uniform2D(8, 4, 2.0, 1.0);
  std::vector<double> values(32);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 8; ++i) values[j * 8 + i] = i == 7 && j == 0 ? 10.0 : double(i);
  const std::string path =
      (std::filesystem::temp_directory_path() / "kfvm-app-test-snapshot.png").string();
  writeFieldPng(path, grid, values);
  int width = 0, height = 0, channels = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &width, &height, &channels, 3);
  ASSERT_NE(pixels, nullptr);
  auto at = [&](int x, int y) {
    const unsigned char* p = pixels + (std::size_t(y) * width + x) * 3;
    return std::array<unsigned char, 3>{p[0], p[1], p[2]};
  };
  const int scale = 512 / 8, margin = 10;  // 64 pixels per cell
  EXPECT_EQ(height, 4 * scale + 2 * margin);
  EXPECT_EQ(at(margin + 5, margin + 5), viridis(0));  // cell (0, 3): the minimum, 0
  EXPECT_EQ(at(margin + 7 * scale + 5, margin + 3 * scale + 5),
            viridis(1));                                            // (7, 0): 10
  EXPECT_EQ(at(margin + 7 * scale + 5, margin + 5), viridis(0.7));  // (7, 3): 7
  const int barX = margin + 8 * scale + 2 * margin;
  EXPECT_EQ(at(barX + 5, margin), viridis(1));
  EXPECT_EQ(at(barX + 5, margin + 4 * scale - 1), viridis(0));
  stbi_image_free(pixels);
  EXPECT_THROW(writeFieldPng(path, CartesianGrid::uniform1D(4, 1.0), {1, 2, 3, 4}),
               Error);
  EXPECT_THROW(writeFieldPng("/no/such/folder/x.png", grid, values), Error);
}

}  // namespace
}  // namespace kfvm::app
