// A plain-text table: left-aligned first column, right-aligned numbers,
// column widths from the content.
#ifndef RPROF_REPORT_TABLE_H_
#define RPROF_REPORT_TABLE_H_

#include <string>
#include <vector>

#include "common/fs.h"  // printable: names are printed as paths are

namespace rprof {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> headers);
  void add_row(std::vector<std::string> cells);
  // Rows wider than `columns` wrap their last column at spaces onto
  // continuation lines aligned under it (it keeps at least 24 columns); 0:
  // no limit.
  void wrap_last_at(size_t columns) { max_columns_ = columns; }
  // The last column is text (a verdict, a note): left-aligned, wrapped or not.
  void last_is_text() { last_text_ = true; }
  std::string render() const;

 private:
  size_t max_columns_ = 0;
  bool last_text_ = false;
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

// Display width of UTF-8 text (code points; good enough for names).
size_t display_width(const std::string& s);

// `text` broken at spaces into lines of at most `width` columns (a word
// longer than that is a line of its own).
std::vector<std::string> wrap_words(const std::string& text, size_t width);

// `text` as lines of at most kTextColumns: the first indented by `indent`
// spaces, the others by `indent + hang`; each ends in a newline.
std::string wrap_paragraph(const std::string& text, size_t indent = 0, size_t hang = 2);

// Reports for people fit this many columns (their tables wrap by design).
inline constexpr size_t kTextColumns = 120;

}  // namespace rprof

#endif  // RPROF_REPORT_TABLE_H_
