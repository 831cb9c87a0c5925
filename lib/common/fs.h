// Small filesystem helpers shared by the tool's libraries.
#ifndef RPROF_COMMON_FS_H_
#define RPROF_COMMON_FS_H_

#include <string>

namespace rprof {

// Whole file as a string; throws Error naming the file.
std::string read_file(const std::string& path);
// A small system file (/proc, /sys) with trailing whitespace removed, or ""
// when it cannot be read: absent files are normal there, never an error.
std::string read_system_file(const std::string& path);
// Writes atomically (temp file + rename); throws Error naming the file.
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace rprof

#endif  // RPROF_COMMON_FS_H_
