#include "report/svg_parts.h"

#include <fmt/format.h>

#include "report/chart_scale.h"
#include "report/markup.h"

namespace rprof {
namespace {

constexpr const char* kInk = kSvgInk;
constexpr const char* kMuted = kSvgMuted;
std::string px(double v) { return svg_px(v); }

}  // namespace

std::string svg_num(double v) { return fmt::format("{:.6g}", v); }
std::string svg_px(double v) { return fmt::format("{:.1f}", v); }

void svg_text(std::string& out, double x, double y, const std::string& s,
              const std::string& attrs) {
  out += fmt::format("<text x=\"{}\" y=\"{}\" {}>{}</text>\n", svg_px(x), svg_px(y), attrs,
                     xml_escape(s));
}

std::string roof_text(const ComputeRoof& r) {
  const std::string mix = r.mix == FlopMix::kFma      ? "FMA"
                          : r.mix == FlopMix::kAddMul ? "add/mul"
                                                      : "FMA+add";
  const std::string w =
      r.width == Width::kScalar ? "scalar" : std::string(width_name(r.width)) + "-bit";
  return fmt::format("{} {} {}", precision_name(r.precision), w, mix);
}

std::string fit_text(const std::string& s, double width, double font) {
  std::string t = s;
  for (size_t n = s.size(); n > 4 && text_width(t, font) > width;) t = ellipsize(s, --n);
  return t;
}

std::vector<std::string> wrap_text(const std::string& text, double width, double font) {
  std::vector<std::string> lines;
  std::string line, word;
  auto flush_word = [&] {
    if (word.empty()) return;
    const std::string cand = line.empty() ? word : line + " " + word;
    if (!line.empty() && text_width(cand, font) > width) {
      lines.push_back(line);
      line = word;
    } else {
      line = cand;
    }
    word.clear();
  };
  for (char ch : text) {
    if (ch == ' ') {
      flush_word();
    } else {
      word += ch;
    }
  }
  flush_word();
  if (!line.empty()) lines.push_back(line);
  return lines;
}

double svg_legend(const ChartModel& c_, double kLegendX, double top, double right,
                  std::string& o_) {
  double y = top;
  // Each line cut to the room right of its swatch (a 10.5 px line has more).
  auto text = [&](double x, double yy, const std::string& s, const std::string& attrs) {
    const double font = attrs.find("font-size=\"10.5\"") != std::string::npos ? 10.5 : 12;
    svg_text(o_, x, yy, fit_text(s, right - x, font), attrs);
  };
  o_ += "<g data-role=\"legend\">\n";
  auto heading = [&](const char* s) {
    text(kLegendX, y, s, fmt::format("font-weight=\"700\" fill=\"{}\"", kInk));
    y += 20;
  };
  if (!c_.bandwidths.empty()) {
    heading("Bandwidth per boundary");
    for (const ChartBandwidth& b : c_.bandwidths) {
      o_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
                        "stroke-width=\"3\"/>\n", px(kLegendX), px(y - 4), px(kLegendX + 22),
                        px(y - 4), boundary_colour(b.boundary));
      std::string ridge;
      for (const ChartRidge& r : c_.ridges) {
        if (r.boundary == b.boundary && ridge.empty()) ridge = human_number(r.intensity);
      }
      text(kLegendX + 30, y, fmt::format("{}  {} GB/s", boundary_name(b.boundary), human_number(b.gbs)),
           fmt::format("data-role=\"legend-bandwidth\" data-boundary=\"{}\" fill=\"{}\"",
                       boundary_key(b.boundary), kInk));
      y += 15;
      text(kLegendX + 30, y, fmt::format("{} kernel{}", stream_key(b.kernel),
                                         ridge.empty() ? "" : "; ridge " + ridge + " FLOP/byte"),
           fmt::format("font-size=\"10.5\" fill=\"{}\"", kMuted));
      y += 19;
    }
    y += 4;
  }
  if (!c_.roofs.empty()) {
    heading("Compute ceilings");
    for (size_t k = 0; k < c_.roofs.size(); ++k) {
      o_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
                        "stroke-width=\"2.4\"{}/>\n", px(kLegendX), px(y - 4), px(kLegendX + 22),
                        px(y - 4), k == 0 ? kInk : "#6b7280",
                        k == 0 ? "" : " stroke-dasharray=\"6 4\"");
      text(kLegendX + 30, y, fmt::format("{}  {} GFLOP/s", roof_text(c_.roofs[k].roof),
                                         human_number(c_.roofs[k].roof.gflops)),
           fmt::format("data-role=\"legend-roof\" fill=\"{}\"", kInk));
      y += 19;
    }
    o_ += fmt::format("<path d=\"M{} {}l5 5-5 5-5-5z\" fill=\"#fff\" stroke=\"{}\" "
                      "stroke-width=\"2\"/>\n", px(kLegendX + 11), px(y - 9), kMuted);
    text(kLegendX + 30, y, "ridge I* = roof / bandwidth", fmt::format("fill=\"{}\"", kInk));
    y += 24;
  }
  if (!c_.regions.empty()) {
    heading("Regions");
    o_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#8c939d\" "
                      "stroke-width=\"1.6\"/>\n", px(kLegendX), px(y - 4), px(kLegendX + 22), px(y - 4));
    for (double dx : {0.0, 22.0}) {
      o_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"4\" fill=\"{}\"/>\n", px(kLegendX + dx),
                        px(y - 4), dx == 0 ? boundary_colour(Boundary::kL1) : boundary_colour(Boundary::kDRAM));
    }
    text(kLegendX + 30, y, "one dot per boundary", fmt::format("fill=\"{}\"", kInk));
    y += 19;
    o_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"#c9ced6\" stroke=\"{}\" "
                      "stroke-width=\"2\"/>\n", px(kLegendX + 11), px(y - 4), kInk);
    text(kLegendX + 30, y, "limiting boundary", fmt::format("fill=\"{}\"", kInk));
    y += 19;
    if (c_.any_sampled) {
      // The sampled traffic's interval bar, as the chart draws it: dark, on
      // a white halo, over its dot.
      o_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"#c9ced6\"/>\n",
                        px(kLegendX + 11), px(y - 4));
      const std::string d = fmt::format("M{0} {1}H{2}M{0} {3}V{4}M{2} {3}V{4}", px(kLegendX + 1),
                                        px(y - 4), px(kLegendX + 21), px(y - 9), px(y + 1));
      o_ += fmt::format("<path d=\"{}\" fill=\"none\" stroke=\"#ffffff\" stroke-width=\"4\" "
                        "stroke-linecap=\"round\" stroke-opacity=\"0.9\"/>\n<path "
                        "data-role=\"legend-interval\" d=\"{}\" fill=\"none\" stroke=\"{}\" "
                        "stroke-width=\"1.6\" stroke-linecap=\"round\"/>\n",
                        d, d, kInk);
      text(kLegendX + 30, y, "bars: 95% interval of the", fmt::format("fill=\"{}\"", kInk));
      y += 15;
      text(kLegendX + 30, y, "sampled traffic (intensity)",
           fmt::format("font-size=\"10.5\" fill=\"{}\"", kMuted));
      y += 19;
    }
    for (double share : {0.1, 0.5, 1.0}) {
      const double r = dot_radius(share);
      o_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"#c9ced6\"/>\n",
                        px(kLegendX + 11), px(y + r - 10), px(r));
      text(kLegendX + 30, y + r - 6, fmt::format("{:.0f}% of run time", 100 * share),
           fmt::format("fill=\"{}\"", kInk));
      y += 2 * r + 6;
    }
  }
  o_ += "</g>\n";
  return y;
}

double svg_footer(const std::vector<std::string>& lines, double x, double top, double width,
                  std::string& out) {
  double y = top;
  out += "<g data-role=\"conventions\">\n";
  for (const std::string& line : lines) {
    for (const std::string& l : wrap_text(line, width, 11)) {
      svg_text(out, x, y, l, fmt::format("font-size=\"11\" fill=\"{}\"", kMuted));
      y += 15;
    }
  }
  out += "</g>\n";
  return y;
}

}  // namespace rprof
