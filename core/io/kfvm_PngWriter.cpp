#include <kfvm_PngWriter.hpp>

#include <kfvm_DurableFile.hpp>
#include <kfvm_Error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STB_IMAGE_WRITE_STATIC
#include <stb/stb_image_write.h>

namespace kfvm {

namespace {

/// A 3 x 5 pixel font for the colour bar's numbers: one row of 3 bits per line.
int glyphRows(char c, int row) {
  static const char* const chars = "0123456789.-+e";
  static const int rows[14][5] = {
      {7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7}, {5, 5, 7, 1, 1},
      {7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 1, 1, 1}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7},
      {0, 0, 0, 0, 2}, {0, 0, 7, 0, 0}, {0, 2, 7, 2, 0}, {0, 7, 5, 6, 7}};
  for (int i = 0; i < 14; ++i)
    if (chars[i] == c) return rows[i][row];
  return 0;
}

struct Image {
  int width, height;
  std::vector<unsigned char> rgb;

  Image(int w, int h) : width(w), height(h), rgb(std::size_t(w) * h * 3, 255) {}
  void set(int x, int y, const std::array<unsigned char, 3>& colour) {
    if (x < 0 || y < 0 || x >= width || y >= height) return;
    std::copy(colour.begin(), colour.end(),
              rgb.begin() + (std::size_t(y) * width + x) * 3);
  }
  /// Text at (x, y), top left, pixels scaled by `scale`.
  void text(int x, int y, const std::string& s, int scale) {
    for (std::size_t i = 0; i < s.size(); ++i)
      for (int row = 0; row < 5; ++row)
        for (int column = 0; column < 3; ++column)
          if (glyphRows(s[i], row) & (4 >> column))
            for (int dy = 0; dy < scale; ++dy)
              for (int dx = 0; dx < scale; ++dx)
                set(x + int(i) * 4 * scale + column * scale + dx, y + row * scale + dy,
                    {0, 0, 0});
  }
};

}  // namespace

std::array<unsigned char, 3> viridis(double t) {
  static const double anchors[9][3] = {{68, 1, 84},    {71, 44, 122},  {59, 81, 139},
                                       {44, 113, 142}, {33, 144, 141}, {39, 173, 129},
                                       {92, 200, 99},  {170, 220, 50}, {253, 231, 37}};
  t = std::isfinite(t) ? std::min(1.0, std::max(0.0, t)) : 0.0;
  const double scaled = t * 8;
  const int i = std::min(7, int(scaled));
  const double f = scaled - i;
  std::array<unsigned char, 3> colour{};
  for (int c = 0; c < 3; ++c)
    colour[c] = static_cast<unsigned char>(
        std::lround(anchors[i][c] * (1 - f) + anchors[i + 1][c] * f));
  return colour;
}

namespace {

/// The colour bar beside a plot of plotW x plotH pixels at (margin, margin), labelled
/// with high and low, and the image encoded and written to path.
void finishAndWrite(Image& image, int plotW, int plotH, int margin, double low,
                    double high, const std::string& path) {
  const int bar = 20, font = 2;
  const int barX = margin + plotW + 2 * margin;
  for (int py = 0; py < plotH; ++py)
    for (int px = 0; px < bar; ++px)
      image.set(barX + px, margin + py, viridis(1 - double(py) / std::max(1, plotH - 1)));
  char label[32];
  std::snprintf(label, sizeof(label), "%.4g", high);
  image.text(barX + bar + margin / 2, margin, label, font);
  std::snprintf(label, sizeof(label), "%.4g", low);
  image.text(barX + bar + margin / 2, margin + plotH - 5 * font, label, font);
  std::string png;  // encoded in memory, then written whole (every write checked)
  const auto append = [](void* context, void* data, int size) {
    static_cast<std::string*>(context)->append(static_cast<const char*>(data),
                                               std::size_t(size));
  };
  require(stbi_write_png_to_func(append, &png, image.width, image.height, 3,
                                 image.rgb.data(), image.width * 3) != 0,
          "cannot encode PNG '", path, "'");
  writeFileAtomically(path, png);
}

/// An image with room for a plot of plotW x plotH pixels and its colour bar.
Image plotImage(int plotW, int plotH, int margin) {
  const int bar = 20, font = 2;
  return Image(margin + plotW + 2 * margin + bar + margin + 12 * 4 * font + margin,
               std::max(plotH, 60) + 2 * margin);
}

}  // namespace

void writeFieldPng(const std::string& path, const CartesianGrid& grid,
                   const std::vector<double>& values) {
  require(grid.dimension() >= 2, "PNG output needs a 2D or 3D mesh, '", path, "' is 1D");
  require(values.size() == std::size_t(grid.numCells()), "PNG '", path,
          "': ", values.size(), " values for ", grid.numCells(), " cells");
  const int nx = grid.cells(0), ny = grid.cells(1), nz = grid.cells(2);
  const std::size_t sliceStart = std::size_t(nz / 2) * nx * ny;  // middle z slice
  double low = values[sliceStart], high = values[sliceStart];
  for (std::size_t c = sliceStart; c < sliceStart + std::size_t(nx) * ny; ++c) {
    low = std::min(low, values[c]);
    high = std::max(high, values[c]);
  }
  const int longer = std::max(nx, ny);
  const int scale = longer >= 512 ? 1 : 512 / longer;
  const int plotW = nx * scale, plotH = ny * scale, margin = 10;
  Image image = plotImage(plotW, plotH, margin);
  const double range = high > low ? high - low : 1;
  for (int py = 0; py < plotH; ++py) {
    const int j = ny - 1 - py / scale;  // y up
    for (int px = 0; px < plotW; ++px) {
      const int i = px / scale;
      image.set(margin + px, margin + py,
                viridis((values[sliceStart + std::size_t(j) * nx + i] - low) / range));
    }
  }
  finishAndWrite(image, plotW, plotH, margin, low, high, path);
}

void writePolygonsPng(const std::string& path, const std::vector<Polygon>& cells,
                      const std::vector<double>& values) {
  require(!cells.empty(), "PNG '", path, "': no cells");
  require(values.size() == cells.size(), "PNG '", path, "': ", values.size(),
          " values for ", cells.size(), " cells");
  double box[2][2] = {{cells[0].at(0)[0], cells[0].at(0)[0]},
                      {cells[0].at(0)[1], cells[0].at(0)[1]}};  // [axis][low, high]
  for (const auto& cell : cells) {
    require(cell.size() >= 3, "PNG '", path, "': a cell of ", cell.size(), " corners");
    for (const auto& p : cell)
      for (int a = 0; a < 2; ++a) {
        box[a][0] = std::min(box[a][0], p[std::size_t(a)]);
        box[a][1] = std::max(box[a][1], p[std::size_t(a)]);
      }
  }
  const double width = box[0][1] - box[0][0], height = box[1][1] - box[1][0];
  require(width > 0 && height > 0, "PNG '", path, "': the cells cover no area");
  const double pixel = std::max(width, height) / 512;  // 512 pixels along the longer side
  const int plotW = std::max(1, int(std::ceil(width / pixel))),
            plotH = std::max(1, int(std::ceil(height / pixel))), margin = 10;
  Image image = plotImage(plotW, plotH, margin);
  const double low = *std::min_element(values.begin(), values.end());
  const double high = *std::max_element(values.begin(), values.end());
  const double range = high > low ? high - low : 1;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const Polygon& cell = cells[c];
    double lo[2] = {cell[0][0], cell[0][1]}, hi[2] = {lo[0], lo[1]};
    for (const auto& p : cell)
      for (int a = 0; a < 2; ++a) {
        lo[a] = std::min(lo[a], p[std::size_t(a)]);
        hi[a] = std::max(hi[a], p[std::size_t(a)]);
      }
    const auto colour = viridis((values[c] - low) / range);
    // Every pixel whose centre lies inside the cell (even-odd crossings), y up.
    const int x0 = std::max(0, int((lo[0] - box[0][0]) / pixel)),
              x1 = std::min(plotW - 1, int((hi[0] - box[0][0]) / pixel));
    const int y0 = std::max(0, int((box[1][1] - hi[1]) / pixel)),
              y1 = std::min(plotH - 1, int((box[1][1] - lo[1]) / pixel));
    for (int py = y0; py <= y1; ++py) {
      const double y = box[1][1] - (py + 0.5) * pixel;
      for (int px = x0; px <= x1; ++px) {
        const double x = box[0][0] + (px + 0.5) * pixel;
        bool inside = false;
        for (std::size_t k = 0, m = cell.size() - 1; k < cell.size(); m = k++) {
          const auto& a = cell[k];
          const auto& b = cell[m];
          if ((a[1] > y) != (b[1] > y) &&
              x < (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1]) + a[0])
            inside = !inside;
        }
        if (inside) image.set(margin + px, margin + py, colour);
      }
    }
  }
  finishAndWrite(image, plotW, plotH, margin, low, high, path);
}

}  // namespace kfvm
