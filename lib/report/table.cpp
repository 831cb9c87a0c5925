#include "report/table.h"

#include <fmt/format.h>

#include <algorithm>

namespace rprof {

size_t display_width(const std::string& s) {
  size_t w = 0;
  for (unsigned char c : s) {
    if ((c & 0xc0) != 0x80) ++w;
  }
  return w;
}

std::vector<std::string> wrap_words(const std::string& text, size_t width) {
  std::vector<std::string> lines;
  std::string line;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && display_width(line) + 1 + display_width(word) > width) {
      lines.push_back(std::move(line));
      line.clear();
    }
    if (!word.empty()) line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
  return lines;
}

std::string wrap_paragraph(const std::string& text, size_t indent, size_t hang) {
  const size_t width = kTextColumns > indent + hang + 20 ? kTextColumns - indent - hang : 20;
  std::string out;
  const std::vector<std::string> lines = wrap_words(text, width);
  for (size_t k = 0; k < lines.size(); ++k) {
    out += std::string(indent + (k ? hang : 0), ' ') + lines[k] + "\n";
  }
  return out;
}

TextTable::TextTable(std::vector<std::string> headers)
    : headers_(std::move(headers)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(headers_.size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  const size_t n = headers_.size();
  std::vector<size_t> width(n);
  for (size_t c = 0; c < n; ++c) {
    width[c] = display_width(headers_[c]);
    for (const auto& row : rows_) width[c] = std::max(width[c], display_width(row[c]));
  }
  auto total_width = [&] {
    size_t t = 0;
    for (size_t c = 0; c < n; ++c) t += width[c] + (c ? 2 : 0);
    return t;
  };
  // Too wide: the last column wraps (down to 24 columns), then the first
  // (down to 20 columns or its header).
  const bool can_wrap = max_columns_ > 0 && n > 1;
  bool wrap_last = false, wrap_first = false;
  if (can_wrap && total_width() > max_columns_) {
    const size_t floor = std::max<size_t>(display_width(headers_[n - 1]), 24);
    if (width[n - 1] > floor) {
      const size_t excess = total_width() - max_columns_;
      width[n - 1] = width[n - 1] > floor + excess ? width[n - 1] - excess : floor;
      wrap_last = true;
    }
  }
  if (can_wrap && total_width() > max_columns_) {
    const size_t floor = std::max<size_t>(display_width(headers_[0]), 20);
    if (width[0] > floor) {
      const size_t excess = total_width() - max_columns_;
      width[0] = width[0] > floor + excess ? width[0] - excess : floor;
      wrap_first = true;
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::vector<std::string> first = {cells[0]}, last = {cells[n - 1]};
    if (wrap_first && display_width(cells[0]) > width[0]) {
      // Continuation lines of a name sit under it, indented 2 more.
      const size_t indent = cells[0].find_first_not_of(' ');
      const std::string pad(indent == std::string::npos ? 0 : indent, ' ');
      first = wrap_words(cells[0].substr(pad.size()),
                         std::max<size_t>(width[0], pad.size() + 10) - pad.size() - 2);
      for (size_t k = 0; k < first.size(); ++k) first[k] = pad + (k ? "  " : "") + first[k];
    }
    if (wrap_last && display_width(cells[n - 1]) > width[n - 1]) {
      last = wrap_words(cells[n - 1], width[n - 1]);
    }
    std::string out;
    for (size_t k = 0; k < std::max(first.size(), last.size()); ++k) {
      std::string text;
      for (size_t c = 0; c < n; ++c) {
        std::string cell = c == 0         ? (k < first.size() ? first[k] : "")
                           : c + 1 == n   ? (k < last.size() ? last[k] : "")
                           : k == 0       ? cells[c]
                                          : "";
        const size_t w = display_width(cell);
        const size_t pad = width[c] > w ? width[c] - w : 0;
        if (c == 0) {
          text += cell + std::string(pad, ' ');
        } else if ((wrap_last || last_text_) && c + 1 == n) {
          text += "  " + cell;  // a wrapped or text column reads left-aligned
        } else {
          text += "  " + std::string(pad, ' ') + cell;
        }
      }
      while (!text.empty() && text.back() == ' ') text.pop_back();
      out += text + "\n";
    }
    return out;
  };
  std::string out = line(headers_);
  out += std::string(total_width(), '-') + "\n";
  for (const auto& row : rows_) out += line(row);
  return out;
}

}  // namespace rprof
