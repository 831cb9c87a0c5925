// One self-updating line on stderr while a long run goes (the simulated run:
// tens of times slower than native, minutes of silence otherwise):
//   rprof: simulating... 12 s of ~40 s
// rewritten in place with '\r' once a second and erased when the run ends.
// Only on a terminal: a log file or a pipe gets nothing (carriage returns
// would litter it). RPROF_PROGRESS=1 forces the line on, 0 off (tests).
#ifndef RPROF_RUN_PROGRESS_LINE_H_
#define RPROF_RUN_PROGRESS_LINE_H_

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace rprof {

// Whether stderr takes a progress line: RPROF_PROGRESS if set, else isatty(2).
bool progress_line_wanted();

// The line's text: "rprof: <what>... 12 s of ~40 s", or "... 12 s" without an
// estimate (estimate_s <= 0); the estimate grows to elapsed once exceeded.
std::string progress_text(const std::string& what, double elapsed_s, double estimate_s);

class ProgressLine {
 public:
  // Starts the line now (its first version at once), unless enabled is false.
  ProgressLine(bool enabled, std::string what, double estimate_s);
  ~ProgressLine();  // erases the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void loop();

  std::string what_;
  double estimate_s_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace rprof

#endif  // RPROF_RUN_PROGRESS_LINE_H_
