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
  std::string render() const;

 private:
  std::vector<std::string> headers_;
  std::vector<std::vector<std::string>> rows_;
};

// Display width of UTF-8 text (code points; good enough for names).
size_t display_width(const std::string& s);

}  // namespace rprof

#endif  // RPROF_REPORT_TABLE_H_
