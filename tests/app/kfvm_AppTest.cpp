// The `kfvm` command's own pieces, without Kokkos: deck expressions, PNG snapshots
// (read back with stb_image), and the checked writes, checksums and seals of
// kfvm_DurableFile.hpp that every output and checkpoint goes through.
#include <kfvm_Expression.hpp>
#include <kfvm_PngWriter.hpp>
#include "kfvm_Deck.hpp"
#include "kfvm_TestWorkFolder.hpp"

#include <kfvm_DurableFile.hpp>
#include <kfvm_Error.hpp>
#include <kfvm_SparseLU.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_STATIC
#include <stb/stb_image.h>

namespace kfvm::app {
namespace {

/// The message of the kfvm::Error body() throws ("no error" when it throws none).
template <class Body>
std::string errorOf(const Body& body) {
  try {
    body();
  } catch (const Error& error) {
    return error.what();
  }
  return "no error";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

using kfvm::Test::workPath;

/// Sets KFVM_TEST_FAIL_WRITES for the scope: checked writes to paths containing text
/// fail as on a full disk.
struct FailingWrites {
  explicit FailingWrites(const std::string& text) {
    setenv("KFVM_TEST_FAIL_WRITES", text.c_str(), 1);
  }
  ~FailingWrites() { unsetenv("KFVM_TEST_FAIL_WRITES"); }
};

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

// The parser recursed once per parenthesis and unary minus: 20 000 parentheses or
// 400 000 minus signs overflowed the stack (a segfault). Depth and length are limited.
TEST(Expression, DepthAndLengthAreLimitedWithAClearError) {
  const auto parse = [](const std::string& text) {
    return errorOf([&] { Expression e(text); });
  };
  const std::string deep = std::string(20000, '(') + "1" + std::string(20000, ')');
  EXPECT_TRUE(contains(parse(deep), "longer than 10000 characters")) << parse(deep);
  const std::string parentheses = std::string(4000, '(') + "1" + std::string(4000, ')');
  EXPECT_TRUE(contains(parse(parentheses), "nests deeper than 64 levels"));
  EXPECT_TRUE(contains(parse(std::string(400000, '-') + "1"), "longer than"));
  EXPECT_TRUE(contains(parse(std::string(100, '-') + "1"), "nests deeper than 64"));
  std::string powers = "2";
  for (int i = 0; i < 100; ++i) powers += "^1";
  EXPECT_TRUE(contains(parse(powers), "too deep an evaluation stack")) << parse(powers);
  // Within the limits: 60 levels of parentheses and minus signs evaluate.
  EXPECT_DOUBLE_EQ(Expression(std::string(60, '(') + "x" + std::string(60, ')'))(2, 0, 0),
                   2);
  EXPECT_DOUBLE_EQ(Expression(std::string(60, '-') + "x")(2, 0, 0), 2);
  // A long flat sum needs a stack of two.
  std::string sum = "0";
  for (int i = 0; i < 2000; ++i) sum += "+1";
  EXPECT_DOUBLE_EQ(Expression(sum)(0, 0, 0), 2000);
}

TEST(Expression, KnowsWhetherItReadsTime) {
  EXPECT_TRUE(Expression("exp(-t) * x")(1, 0, 0, 0) == 1);
  EXPECT_TRUE(Expression("exp(-t) * x").usesTime());
  EXPECT_FALSE(Expression("tanh(x) + pi").usesTime());
}

// XXH64 reference values (xxhsum -H64 of the same bytes), whole and fed in pieces.
TEST(DurableFile, Hash64IsXxh64) {
  EXPECT_EQ(hash64("", 0), 0xef46db3751d8e999ULL);
  EXPECT_EQ(hash64("a", 1), 0xd24ec4f1a98c6e5bULL);
  EXPECT_EQ(hash64("abc", 3), 0x44bc2cf5ad770999ULL);
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes += char((i * 7) % 251);
  EXPECT_EQ(hash64(bytes.data(), 37), 0x478890c607390313ULL);
  EXPECT_EQ(hash64(bytes.data(), bytes.size()), 0x023fd2ed1ff957d5ULL);
  for (std::size_t piece : {1, 7, 31, 32, 33, 500}) {
    Hash64 hash;
    for (std::size_t at = 0; at < bytes.size(); at += piece)
      hash.update(bytes.data() + at, std::min(piece, bytes.size() - at));
    EXPECT_EQ(hash.digest(), 0x023fd2ed1ff957d5ULL) << "pieces of " << piece;
  }
}

// A failed write leaves the file that was there as it was, no temporary, and an error
// naming the file and the reason.
TEST(DurableFile, AFailedWriteKeepsThePreviousFile) {
  const std::string path = workPath("atomic.txt");
  writeFileAtomically(path, "first");
  EXPECT_EQ(readFile(path), "first");
  writeFileAtomically(path, "second");
  EXPECT_EQ(readFile(path), "second");
  {
    const FailingWrites full("atomic.txt");
    const std::string message = errorOf([&] { writeFileAtomically(path, "third"); });
    EXPECT_TRUE(contains(message, "cannot write '" + path + ".tmp'")) << message;
    EXPECT_TRUE(contains(message, "No space left on device")) << message;
  }
  EXPECT_EQ(readFile(path), "second");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  EXPECT_TRUE(contains(errorOf([] { writeFileAtomically("/no/such/folder/x", "x"); }),
                       "cannot open '/no/such/folder/x.tmp' for writing"));
  EXPECT_TRUE(contains(errorOf([] { readFile("/no/such/file"); }), "/no/such/file"));
}

TEST(DurableFile, AppendFileWritesChecksAndCuts) {
  const std::string path = workPath("append.csv");
  {
    AppendFile file;
    file.open(path);
    file.write("header\n");
    file.write("row 1\n");
    EXPECT_EQ(file.size(), 13);
    file.sync();
    file.write("row 2\n");
    file.close();
  }
  EXPECT_EQ(readFile(path), "header\nrow 1\nrow 2\n");
  {
    AppendFile file;  // a restart from the checkpoint taken after row 1
    file.open(path, 13);
    file.write("row 2 again\n");
    file.close();
  }
  EXPECT_EQ(readFile(path), "header\nrow 1\nrow 2 again\n");
  AppendFile shorter;
  EXPECT_TRUE(
      contains(errorOf([&] { shorter.open(path, 1000); }), "fewer than the 1000"));
  AppendFile failing;
  failing.open(path);
  failing.write("lost");
  const FailingWrites full("append.csv");
  const std::string message = errorOf([&] { failing.close(); });
  EXPECT_TRUE(contains(message, "cannot write '" + path + "'")) << message;
}

// A sealed file: every byte after the seal is covered; a flipped byte, a cut file or a
// file without a seal is refused before anything parses it.
TEST(DurableFile, SealsRefuseDamagedTruncatedAndUnsealedFiles) {
  const std::string path = workPath("sealed.bin");
  std::string payload(sealBlockBytes, '\0');
  for (int i = 0; i < 3000; ++i) payload += char(i % 256);
  writeFileAtomically(path, payload);
  sealFile(path);
  EXPECT_NO_THROW(verifySealedFile(path));
  const std::string sealed = readFile(path);
  EXPECT_EQ(sealed.substr(0, 19), "KFVM-SEALED-FILE 1\n");
  for (std::size_t at : {std::size_t(5), std::size_t(30), sealBlockBytes,
                         sealBlockBytes + 1500, sealed.size() - 1}) {
    std::string damaged = sealed;
    damaged[at] = char(damaged[at] ^ 0x10);
    writeFileAtomically(path, damaged);
    const std::string message = errorOf([&] { verifySealedFile(path); });
    EXPECT_TRUE(contains(message, "damaged") || contains(message, "not a sealed"))
        << "byte " << at << ": " << message;
  }
  writeFileAtomically(path, sealed.substr(0, sealed.size() - 100));
  EXPECT_TRUE(contains(errorOf([&] { verifySealedFile(path); }), "(truncated)"));
  writeFileAtomically(path, payload);
  EXPECT_TRUE(contains(errorOf([&] { verifySealedFile(path); }), "is not a sealed"));
  writeFileAtomically(path, std::string(100, 'x'));
  EXPECT_TRUE(contains(errorOf([&] { sealFile(path); }), "fewer than 512 bytes"));
  writeFileAtomically(path, payload);
  const FailingWrites full("sealed.bin");
  EXPECT_TRUE(contains(errorOf([&] { sealFile(path); }), "No space left on device"));
}

/// A PNG file read back as RGB pixels.
struct PngPixels {
  int width = 0, height = 0, channels = 0;
  unsigned char* pixels = nullptr;
  explicit PngPixels(const std::string& path)
      : pixels(stbi_load(path.c_str(), &width, &height, &channels, 3)) {}
  ~PngPixels() { stbi_image_free(pixels); }
  PngPixels(const PngPixels&) = delete;
  PngPixels& operator=(const PngPixels&) = delete;
  bool loaded() const { return pixels != nullptr; }
  std::array<unsigned char, 3> at(int x, int y) const {
    const unsigned char* p = pixels + (std::size_t(y) * width + x) * 3;
    return {p[0], p[1], p[2]};
  }
};

// A 2D field rising along x: the left column has the minimum's colour, the right the
// maximum's, the colour bar runs from viridis(1) at the top to viridis(0) at the bottom.
TEST(Png, SnapshotReadsBackWithTheFieldsColours) {
  const auto grid = CartesianGrid::uniform2D(8, 4, 2.0, 1.0);
  std::vector<double> values(32);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 8; ++i) values[j * 8 + i] = i == 7 && j == 0 ? 10.0 : double(i);
  const std::string path = workPath("snapshot.png");
  writeFieldPng(path, grid, values);
  const PngPixels image(path);
  ASSERT_TRUE(image.loaded());
  const auto at = [&](int x, int y) {
    return image.at(x, y);
  };
  const int height = image.height;
  const int scale = 512 / 8, margin = 10;  // 64 pixels per cell
  EXPECT_EQ(height, 4 * scale + 2 * margin);
  EXPECT_EQ(at(margin + 5, margin + 5), viridis(0));  // cell (0, 3): the minimum, 0
  EXPECT_EQ(at(margin + 7 * scale + 5, margin + 3 * scale + 5),
            viridis(1));                                            // (7, 0): 10
  EXPECT_EQ(at(margin + 7 * scale + 5, margin + 5), viridis(0.7));  // (7, 3): 7
  const int barX = margin + 8 * scale + 2 * margin;
  EXPECT_EQ(at(barX + 5, margin), viridis(1));
  EXPECT_EQ(at(barX + 5, margin + 4 * scale - 1), viridis(0));
  EXPECT_THROW(writeFieldPng(path, CartesianGrid::uniform1D(4, 1.0), {1, 2, 3, 4}),
               Error);
  EXPECT_THROW(writeFieldPng("/no/such/folder/x.png", grid, values), Error);
  // On a full disk the PNG is an error naming it, and the snapshot there is kept.
  const auto before = readFile(path);
  const FailingWrites full("snapshot.png");
  const std::string message = errorOf([&] { writeFieldPng(path, grid, values); });
  EXPECT_TRUE(contains(message, path + ".tmp") && contains(message, "No space left"))
      << message;
  EXPECT_EQ(readFile(path), before);
}

// A square cut by its diagonal into two triangles of values 0 (lower right) and 1
// (upper left): pixels below the diagonal take viridis(0), above it viridis(1), and the
// bar is the grids'.
TEST(Png, GeneralMeshCellsAreRasterized) {
  const std::vector<Polygon> cells{{{0, 0}, {2, 0}, {2, 2}}, {{0, 0}, {2, 2}, {0, 2}}};
  const std::string path = workPath("triangles.png");
  writePolygonsPng(path, cells, {0.0, 1.0});
  const PngPixels image(path);
  ASSERT_TRUE(image.loaded());
  const auto at = [&](int x, int y) {
    return image.at(x, y);
  };
  const int height = image.height;
  const int margin = 10;  // 512 x 512 plot pixels, y up
  EXPECT_EQ(height, 512 + 2 * margin);
  EXPECT_EQ(at(margin + 400, margin + 400), viridis(0));  // x = 1.56, y = 0.43
  EXPECT_EQ(at(margin + 100, margin + 100), viridis(1));  // x = 0.39, y = 1.61
  EXPECT_EQ(at(margin + 512 + 2 * margin + 5, margin), viridis(1));
  EXPECT_TRUE(contains(errorOf([&] { writePolygonsPng(path, cells, {1.0}); }),
                       "1 values for 2 cells"));
  EXPECT_TRUE(contains(errorOf([&] {
                         writePolygonsPng(path, {{{0, 0}, {1, 1}}}, {1.0});
                       }),
                       "a cell of 2 corners"));
}

/// A deck file in the scratch folder holding text; returns its path.
std::string writeDeck(const std::string& name, const std::string& text) {
  const std::string path = workPath(name);
  std::ofstream deck(path);
  deck << text;
  return path;
}

// [solver] matrix_free and [solver.parameters] reach the solver's parameters as given
// (a number as the shortest text that reads back as it); [time] adaptive fills the
// controller's settings, dt_max from [time].
TEST(Deck, SolverParametersAndAdaptiveSettingsAreReadAsGiven) {
  const std::string path =
      writeDeck("parameters.toml",
                "[mesh]\ndimension = 1\ncells = [8]\nlength = [1.0]\n"
                "[equation]\ntransient = 1.0\ndiffusion = 1.0\n"
                "[solver]\nname = \"cg\"\npreconditioner = \"chebyshev\"\n"
                "matrix_free = true\n"
                "[solver.parameters]\nchebyshev_degree = 4\nchebyshev_boost = 1.1\n"
                "criterion = \"initial\"\nabsolute_tolerance = 1e-300\n"
                "[time]\ndt = 0.01\ndt_max = 0.5\nend = 1.0\n"
                "adaptive = { tolerance = 2e-4, dt_min = 1e-7, max_growth = 1.5, "
                "max_rejections = 7 }\n");
  const Deck deck = readDeck(path, {"upwind"});
  EXPECT_TRUE(deck.matrixFree);
  const auto& p = deck.solverParameters;
  EXPECT_EQ(p.getString("chebyshev_degree", ""), "4");
  EXPECT_EQ(p.getString("chebyshev_boost", ""), "1.1");
  EXPECT_EQ(p.getString("criterion", ""), "initial");
  EXPECT_EQ(p.getString("absolute_tolerance", ""), "1e-300");
  EXPECT_EQ(p.getString("preconditioner", ""), "chebyshev");
  ASSERT_TRUE(deck.adaptive);
  EXPECT_EQ(deck.adaptiveOptions.tolerance, 2e-4);
  EXPECT_EQ(deck.adaptiveOptions.dtMin, 1e-7);
  EXPECT_EQ(deck.adaptiveOptions.dtMax, 0.5);
  EXPECT_EQ(deck.adaptiveOptions.maxGrowth, 1.5);
  EXPECT_EQ(deck.adaptiveOptions.maxRejections, 7);
  EXPECT_EQ(deck.adaptiveOptions.integral, AdaptiveOptions().integral);
  std::remove(path.c_str());
}

// Without [solver] name, a fourth-order or coupled deck on one process solves with the
// direct solver while the mesh is small enough for its fill (directSolverByDefault),
// GMRES with Jacobi above that (falling back to the direct solver) and across MPI ranks
// (without); a named solver stays.
TEST(Deck, HardSystemsDefaultToTheDirectSolverWhileItFits) {
  const auto deckOf = [](int cells, const std::string& solver) {
    return "[mesh]\ndimension = 2\ncells = [" + std::to_string(cells) + ", " +
           std::to_string(cells) +
           "]\nlength = [1.0, 1.0]\n"
           "[equation]\ntransient = 1.0\n"
           "higher_order = { mobility = 1.0, kappa = 1.0, potential = [0.0, -1.0, 0.0, "
           "1.0] }\n" +
           solver + "[time]\ndt = 0.01\nsteps = 1\n";
  };
  const bool built = !Details::sparseLUPackages().empty();
  const std::string small = writeDeck("small.toml", deckOf(64, ""));
  Deck deck = readDeck(small, {"upwind"});
  EXPECT_EQ(deck.solver, built ? "lu" : "gmres");
  EXPECT_EQ(deck.solverParameters.getString("preconditioner", ""),
            built ? "none" : "jacobi");
  deck.defaultSolverAcrossRanks();
  EXPECT_EQ(deck.solver, "gmres");
  EXPECT_EQ(deck.solverParameters.getString("preconditioner", ""), "jacobi");
  EXPECT_EQ(deck.solverParameters.getString("fallback", "none"), "none");
  // 360000 cells > 250000: GMRES, falling back to the direct solver where it stalls (on
  // one process).
  const std::string large = writeDeck("large.toml", deckOf(600, ""));
  Deck big = readDeck(large, {"upwind"});
  EXPECT_EQ(big.solver, "gmres");
  EXPECT_EQ(big.solverParameters.getString("fallback", "none"), built ? "lu" : "none");
  big.defaultSolverAcrossRanks();
  EXPECT_EQ(big.solverParameters.getString("fallback", "none"), "none");
  const std::string named =
      writeDeck("named.toml", deckOf(64, "[solver]\nname = \"cg\"\n"));
  Deck chosen = readDeck(named, {"upwind"});
  chosen.defaultSolverAcrossRanks();
  EXPECT_EQ(chosen.solver, "cg");
  for (const auto& path : {small, large, named}) std::remove(path.c_str());
}

// [time] schedule: the entry without steps takes what the others leave of a run to
// `end` with a growing dt (dt 0.1 growing by 1.5 up to 0.4: 0.1, 0.15, 0.225, 0.3375,
// then 0.4, 0.4 and the last step cut to land on 2.0: 7 steps), and schemeOf() follows
// the stages.
TEST(Deck, ScheduleStagesCoverTheRunsSteps) {
  const std::string path = writeDeck(
      "schedule.toml",
      "[mesh]\ndimension = 1\ncells = [8]\nlength = [1.0]\n"
      "[equation]\ntransient = 1.0\ndiffusion = 1.0\n"
      "[time]\ndt = 0.1\ndt_growth = 1.5\ndt_max = 0.4\nend = 2.0\n"
      "schedule = [{ scheme = \"backward-euler\", steps = 2 }, "
      "{ scheme = \"crank-nicolson\" }, { scheme = \"ssp-rk2\", steps = 1 }]\n");
  const Deck deck = readDeck(path, {"upwind"});
  EXPECT_EQ(deck.totalSteps, 7);
  ASSERT_EQ(deck.schedule.size(), 3u);
  EXPECT_EQ(deck.schedule[1].steps, 4);
  const char* expected[] = {"backward-euler", "backward-euler", "crank-nicolson",
                            "crank-nicolson", "crank-nicolson", "crank-nicolson",
                            "ssp-rk2"};
  for (int step = 1; step <= 7; ++step)
    EXPECT_EQ(deck.schemeOf(step), expected[step - 1]) << step;
  EXPECT_TRUE(deck.hasExplicitSteps());
  EXPECT_EQ(deck.timeScheme, "backward-euler");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace kfvm::app
