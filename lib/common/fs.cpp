#include "common/fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fmt/format.h>

#include <algorithm>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace rprof {
namespace {

// Why a file of this mode is no input file: "" for a regular file.
std::string file_kind_problem(mode_t mode) {
  if (S_ISREG(mode)) return "";
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISFIFO(mode)) return "is a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "is a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device";
  return "is not a regular file";
}

}  // namespace

std::string printable(const std::string& path) {
  std::string out;
  out.reserve(path.size());
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      static const char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error("cannot read " + path + ": " + std::strerror(errno));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw Error("cannot read " + path + ": I/O error");
  return ss.str();
}

std::string not_regular_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return "";
  return file_kind_problem(st.st_mode);
}

InputFile::InputFile(const std::string& path, uint64_t max_bytes, const std::string& kind)
    : path_(path), kind_(kind), max_bytes_(max_bytes) {
  // stat first: opening a FIFO for reading would wait for a writer.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) throw Error(path + ": no such file or directory");
    throw Error("cannot read " + path + ": " + std::strerror(errno));
  }
  auto not_a_file = [&](const std::string& problem) {
    return Error(path + ": " + problem + ", not an " + kind + " (rprof reads regular files only)");
  };
  if (!file_kind_problem(st.st_mode).empty()) throw not_a_file(file_kind_problem(st.st_mode));
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd_ < 0) throw Error("cannot read " + path + ": " + std::strerror(errno));
  try {
    if (::fstat(fd_, &st) != 0) throw Error("cannot read " + path + ": " + std::strerror(errno));
    if (!file_kind_problem(st.st_mode).empty()) throw not_a_file(file_kind_problem(st.st_mode));
    if (static_cast<uint64_t>(st.st_size) > max_bytes) {
      throw Error(fmt::format("{}: {} bytes is beyond the limit of {} bytes for an {}", path,
                              static_cast<uint64_t>(st.st_size), max_bytes, kind));
    }
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

InputFile::~InputFile() { ::close(fd_); }

size_t InputFile::read_at(uint64_t offset, char* buf, size_t n) const {
  // One byte past the cap at most: enough to tell a file that grew past it.
  if (offset > max_bytes_) n = 0;
  n = static_cast<size_t>(std::min<uint64_t>(n, max_bytes_ + 1 - std::min(offset, max_bytes_)));
  size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd_, buf + got, n - got, static_cast<off_t>(offset + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot read " + path_ + ": " + std::strerror(errno));
    }
    if (r == 0) break;
    got += static_cast<size_t>(r);
  }
  if (offset + got > max_bytes_) {
    struct stat st;
    const uint64_t size = ::fstat(fd_, &st) == 0
                              ? std::max<uint64_t>(offset + got, static_cast<uint64_t>(st.st_size))
                              : offset + got;
    throw Error(fmt::format("{}: {} bytes is beyond the limit of {} bytes for an {}", path_, size,
                            max_bytes_, kind_));
  }
  return got;
}

std::string read_input_file(const std::string& path, uint64_t max_bytes,
                            const std::string& kind) {
  const InputFile file(path, max_bytes, kind);
  std::string text;
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && static_cast<uint64_t>(st.st_size) <= max_bytes) {
    text.reserve(static_cast<size_t>(st.st_size));
  }
  // Past the size stat gave too: the file grew (or /proc says 0).
  char more[65536];
  for (size_t n; (n = file.read_at(text.size(), more, sizeof more)) > 0;) text.append(more, n);
  return text;
}

std::string self_exe_dir() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "";
  buf[n] = '\0';
  std::string path(buf, static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash == 0 ? 1 : slash);
}

std::string read_system_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

void check_can_write(const std::string& path) {
  const auto fail = [&](const std::string& why) {
    throw Error("cannot write " + printable(path) + ": " + why, 2);
  };
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) fail("is a directory");
    if (access(path.c_str(), W_OK) != 0) fail(std::strerror(errno));
    return;
  }
  const size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    std::error_code ec;
    std::filesystem::create_directories(path.substr(0, slash), ec);
  }
  // The temporary file write_file_atomic makes beside it, made and removed.
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) fail(std::strerror(errno));
  ::close(fd);
  ::unlink(tmp.c_str());
}

void write_file_atomic(const std::string& path, const std::string& content) {
  write_file_atomic(path, [&](std::ostream& out) { out << content; });
}

namespace {

// Writes into an existing file that is not a regular one (a device such as
// /dev/stdout or /dev/full, a FIFO): no temporary file beside it and no
// rename over it; a failed write or flush is an error all the same.
void write_in_place(const std::string& path, const std::function<void(std::ostream&)>& write) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw Error("cannot write " + path + ": " + std::strerror(errno));
  write(out);
  out.flush();
  if (!out) throw Error("cannot write " + path + ": " + std::strerror(errno));
  out.close();
  if (!out) throw Error("cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace

void write_file_atomic(const std::string& path,
                       const std::function<void(std::ostream&)>& write) {
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) throw Error("cannot write " + path + ": is a directory");
    return write_in_place(path, write);
  }
  const std::string tmp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error("cannot write " + tmp + ": " + std::strerror(errno));
    try {
      write(out);
    } catch (...) {
      std::remove(tmp.c_str());
      throw;
    }
    out.flush();
    if (out) out.close();  // close() writes what is still buffered and reports it
    if (!out) {
      const int err = errno;
      std::remove(tmp.c_str());
      throw Error("cannot write " + path + ": " + std::strerror(err));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw Error("cannot write " + path + ": " + std::strerror(err));
  }
}

}  // namespace rprof
