#include "run/run_input.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace rprof {
namespace {

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Writes all of buf to a non-blocking fd, waiting for room; false when the
// reader is gone or `stop` became readable.
bool write_all(int fd, const char* buf, size_t n, int stop) {
  while (n > 0) {
    const ssize_t w = write(fd, buf, n);
    if (w > 0) {
      buf += w;
      n -= static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && errno != EAGAIN && errno != EINTR) return false;  // EPIPE: reader gone
    pollfd p[2] = {{fd, POLLOUT, 0}, {stop, POLLIN, 0}};
    if (poll(p, 2, -1) < 0 && errno != EINTR) return false;
    if (p[1].revents != 0) return false;
    if ((p[0].revents & (POLLERR | POLLHUP)) != 0) return false;
  }
  return true;
}

}  // namespace

RunInput::RunInput(size_t runs) {
  if (runs < 2 || isatty(0)) return;
  const int fl = fcntl(0, F_GETFD);
  // Closed, or rprof's close-on-exec /dev/null standing for a closed one.
  if (fl < 0 || (fl & FD_CLOEXEC) != 0) return;
  struct stat st{};
  if (fstat(0, &st) != 0) return;
  if (S_ISREG(st.st_mode)) {
    const off_t at = lseek(0, 0, SEEK_CUR);
    kind_ = Kind::kFile;
    file_offset_ = at > 0 ? at : 0;
    file_bytes_ = st.st_size > file_offset_ ? static_cast<uint64_t>(st.st_size - file_offset_) : 0;
    return;
  }
  dir_.emplace("stdin");
  if (dir_->path().empty()) {
    throw Error(std::string("cannot keep stdin for the second run: no private directory in "
                            "$TMPDIR (") + std::strerror(errno) + "); set TMPDIR");
  }
  saved_ = dir_->path() + "/stdin";
  kind_ = Kind::kStream;
}

RunInput::~RunInput() {
  if (copier_.joinable()) {
    if (stop_[1] >= 0) (void)!write(stop_[1], "x", 1);
    copier_.join();
  }
  close_fd(pipe_write_);
  close_fd(saved_fd_);
  close_fd(stop_[0]);
  close_fd(stop_[1]);
  close_fd(run_fd_);
}

int RunInput::open_for_run(size_t i) {
  close_fd(run_fd_);
  if (kind_ == Kind::kInherited) return -1;
  if (kind_ == Kind::kFile) {
    // A new open file description: its own offset, whatever the last run did.
    run_fd_ = open("/proc/self/fd/0", O_RDONLY | O_CLOEXEC);
    if (run_fd_ < 0 || lseek(run_fd_, file_offset_, SEEK_SET) < 0) {
      throw Error(std::string("cannot open stdin again for run ") + std::to_string(i + 1) +
                  " (/proc/self/fd/0: " + std::strerror(errno) + ")");
    }
    return run_fd_;
  }
  if (i > 0) {
    run_fd_ = open(saved_.c_str(), O_RDONLY | O_CLOEXEC);
    if (run_fd_ < 0) throw Error("cannot read the saved stdin " + saved_ + ": " + std::strerror(errno));
    return run_fd_;
  }
  saved_fd_ = open(saved_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  int p[2];
  if (saved_fd_ < 0 || pipe2(p, O_CLOEXEC) != 0 || pipe2(stop_, O_CLOEXEC) != 0) {
    throw Error("cannot save stdin in " + saved_ + ": " + std::strerror(errno));
  }
  run_fd_ = p[0];
  pipe_write_ = p[1];
  fcntl(pipe_write_, F_SETFL, O_NONBLOCK);
  copier_ = std::thread([this] { copy_stream(); });
  return run_fd_;
}

// The first run's stdin: what rprof reads from its own goes to the run and to
// the saved copy, until the input ends, the run stops reading, or the run is
// over (stop_).
void RunInput::copy_stream() {
  sigset_t pipe_sig;
  sigemptyset(&pipe_sig);
  sigaddset(&pipe_sig, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_sig, nullptr);  // EPIPE instead
  char buf[1 << 16];
  bool to_run = true;
  for (;;) {
    pollfd p[2] = {{0, POLLIN, 0}, {stop_[0], POLLIN, 0}};
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      copy_errno_ = errno;
      break;
    }
    if (p[1].revents != 0) break;
    const ssize_t n = read(0, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) copy_errno_ = errno;
    if (n <= 0) break;
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = write(saved_fd_, buf + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) {
        copy_errno_ = errno;
        break;
      }
      done += w;
    }
    copied_ += static_cast<uint64_t>(n);
    if (to_run && !write_all(pipe_write_, buf, static_cast<size_t>(n), stop_[0])) to_run = false;
  }
  close_fd(pipe_write_);  // the run sees the end of its input
}

void RunInput::done_with_run(size_t i) {
  close_fd(run_fd_);
  if (i == 0 && copier_.joinable()) {
    (void)!write(stop_[1], "x", 1);
    copier_.join();
    close_fd(saved_fd_);
  }
}

std::string RunInput::note(size_t runs_done) const {
  const std::string runs = runs_done == 2 ? "both runs" : "each of the " +
                                                            std::to_string(runs_done) + " runs";
  switch (kind_) {
    case Kind::kInherited:
      return "";
    case Kind::kFile:
      return "stdin: a file of " + std::to_string(file_bytes_) + " bytes (from offset " +
             std::to_string(file_offset_) + "), opened again for " + runs;
    case Kind::kStream:
      if (copy_errno_ != 0) {
        return "stdin: " + std::to_string(copied_) + " bytes read, then an error (" +
               std::strerror(copy_errno_) + "): the later runs got those bytes only";
      }
      return "stdin: " + std::to_string(copied_) + " bytes, given to " + runs +
             " (streamed to the first as it read them, saved for the others)";
  }
  return "";
}

}  // namespace rprof
