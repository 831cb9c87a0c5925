#include "run/progress_line.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "runtime/handshake.h"

namespace rprof {
namespace {

// write(2) straight to fd 2: no interleaving with std::cerr's buffer, and
// the line is out at once.
void put(const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(STDERR_FILENO, s.data() + off, s.size() - off);
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

}  // namespace

bool progress_line_wanted() {
  if (const char* v = std::getenv(RPROF_ENV_PROGRESS); v != nullptr && *v != '\0') {
    return std::strcmp(v, "0") != 0;
  }
  return isatty(STDERR_FILENO) == 1;
}

std::string progress_text(const std::string& what, double elapsed_s, double estimate_s) {
  const long e = std::lround(elapsed_s);
  std::string s = "rprof: " + what + "... " + std::to_string(e) + " s";
  if (estimate_s > 0) {
    const long est = std::max(e, std::lround(estimate_s));
    s += " of ~" + std::to_string(est) + " s";
  }
  return s;
}

ProgressLine::ProgressLine(bool enabled, std::string what, double estimate_s)
    : what_(std::move(what)), estimate_s_(estimate_s) {
  if (enabled) thread_ = std::thread([this] { loop(); });
}

ProgressLine::~ProgressLine() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

void ProgressLine::loop() {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  size_t width = 0;  // of the longest version, to blank it when done
  std::unique_lock<std::mutex> lock(mu_);
  while (!stop_) {
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    const std::string text = progress_text(what_, elapsed, estimate_s_);
    width = std::max(width, text.size());
    put("\r" + text + std::string(width - text.size(), ' '));
    cv_.wait_for(lock, std::chrono::seconds(1), [this] { return stop_; });
  }
  put("\r" + std::string(width, ' ') + "\r");
}

}  // namespace rprof
