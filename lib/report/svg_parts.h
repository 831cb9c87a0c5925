// Pieces of the roofline SVG shared by svg_chart.cpp and the legend:
// number formats for attributes and coordinates, text elements, colours of
// ink, the compute roof's name, wrapping, the legend and the footer.
#ifndef RPROF_REPORT_SVG_PARTS_H_
#define RPROF_REPORT_SVG_PARTS_H_

#include <string>
#include <vector>

#include "report/chart_model.h"

namespace rprof {

inline constexpr const char* kSvgInk = "#1f2328";
inline constexpr const char* kSvgMuted = "#5b6470";

std::string svg_num(double v);  // attribute values: 6 significant digits
std::string svg_px(double v);   // coordinates: 0.1 px
// Appends <text x y attrs>escaped s</text>.
void svg_text(std::string& out, double x, double y, const std::string& s,
              const std::string& attrs);
// "DP 512-bit FMA", "SP scalar add/mul".
std::string roof_text(const ComputeRoof& r);
// The text cut (ending in "...") until no wider than `width` px at `font`.
std::string fit_text(const std::string& text, double width, double font);
// Splits text into lines no wider than `width` pixels at `font` px.
std::vector<std::string> wrap_text(const std::string& text, double width, double font);

// The legend at (x, top), its lines cut to end before `right`: bandwidths,
// compute ceilings, how to read the dots. Returns its bottom.
double svg_legend(const ChartModel& c, double x, double top, double right, std::string& out);
// The conventions, wrapped to `width`, from `top`; returns the bottom.
double svg_footer(const std::vector<std::string>& lines, double x, double top, double width,
                  std::string& out);

}  // namespace rprof

#endif  // RPROF_REPORT_SVG_PARTS_H_
