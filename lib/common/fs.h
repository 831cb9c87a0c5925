// Small filesystem helpers shared by the tool's libraries.
#ifndef RPROF_COMMON_FS_H_
#define RPROF_COMMON_FS_H_

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace rprof {

// A path or a name from outside as printed on one terminal line: control
// bytes shown as \n, \t, \xNN, so it can forge no line of rprof's own.
std::string printable(const std::string& path);

// Whole file as a string; throws Error naming the file.
std::string read_file(const std::string& path);
// An input file of the tool (`kind`: "rprof profile", "rprof machine file"),
// refused with one line unless it is a regular file of at most max_bytes:
// a directory, a device (/dev/zero), a FIFO or a socket is named as such and
// never read, so no input makes the tool hang or fill memory.
std::string read_input_file(const std::string& path, uint64_t max_bytes, const std::string& kind);
// The same file opened to be read in pieces (a reader that parses it as it
// reads it holds no copy of its text): the same checks at open, and a read
// that finds more than max_bytes (the file grew) refuses it the same way.
class InputFile {
 public:
  InputFile(const std::string& path, uint64_t max_bytes, const std::string& kind);
  ~InputFile();
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const std::string& path() const { return path_; }
  uint64_t max_bytes() const { return max_bytes_; }
  // Up to n bytes at offset into buf (pread: any order); 0 at the end.
  size_t read_at(uint64_t offset, char* buf, size_t n) const;

 private:
  std::string path_, kind_;
  uint64_t max_bytes_;
  int fd_ = -1;
};
// "is a directory", "is a FIFO", ... for a path that is not a regular file;
// "" for a regular file or one that does not exist.
std::string not_regular_file(const std::string& path);
// A small system file (/proc, /sys) with trailing whitespace removed, or ""
// when it cannot be read: absent files are normal there, never an error.
std::string read_system_file(const std::string& path);
// The directory of the running executable (/proc/self/exe), "" when it
// cannot be read: where rprof finds the parts installed beside it.
std::string self_exe_dir();
// Throws Error (exit code 2) unless write_file_atomic(path) could write now:
// a command that works for seconds before writing checks first. Creates
// path's missing parent directories, as the writers do.
void check_can_write(const std::string& path);
// Writes atomically (temp file + rename); an existing file that is not a
// regular one (/dev/stdout, /dev/full, a FIFO) is written in place. Throws
// Error naming the file when a write, the flush or the close fails.
void write_file_atomic(const std::string& path, const std::string& content);
// The same with the content streamed by `write` (performance, issue 16: a
// profile.json of 100,000 regions is not held in memory twice).
void write_file_atomic(const std::string& path,
                       const std::function<void(std::ostream&)>& write);

}  // namespace rprof

#endif  // RPROF_COMMON_FS_H_
