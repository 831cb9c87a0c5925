#include "common/fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fmt/format.h>

#include <algorithm>

#include <cerrno>
#include <cstdio>
#include <cstring>
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

std::string read_input_file(const std::string& path, uint64_t max_bytes,
                            const std::string& kind) {
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
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw Error("cannot read " + path + ": " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (::fstat(fd, &st) != 0) throw Error("cannot read " + path + ": " + std::strerror(errno));
  if (!file_kind_problem(st.st_mode).empty()) throw not_a_file(file_kind_problem(st.st_mode));
  auto too_big = [&](uint64_t size) {
    return Error(fmt::format("{}: {} bytes is beyond the limit of {} bytes for an {}", path, size,
                             max_bytes, kind));
  };
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    throw too_big(static_cast<uint64_t>(st.st_size));
  }
  std::string text;
  text.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  char more[4096];  // past the size stat gave: the file grew (or /proc says 0)
  for (;;) {
    const bool full = got == text.size();
    const ssize_t n = full ? ::read(fd, more, sizeof more)
                           : ::read(fd, &text[got], text.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot read " + path + ": " + std::strerror(errno));
    }
    if (n == 0) break;
    if (full) {
      if (got + static_cast<size_t>(n) > max_bytes) throw too_big(got + static_cast<size_t>(n));
      text.append(more, static_cast<size_t>(n));
    }
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  return text;
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

void write_file_atomic(const std::string& path, const std::string& content) {
  write_file_atomic(path, [&](std::ostream& out) { out << content; });
}

void write_file_atomic(const std::string& path,
                       const std::function<void(std::ostream&)>& write) {
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
    if (!out) {
      std::remove(tmp.c_str());
      throw Error("cannot write " + tmp + ": " + std::strerror(errno));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw Error("cannot write " + path + ": " + std::strerror(err));
  }
}

}  // namespace rprof
