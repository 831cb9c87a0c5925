// The program's stdin when a plan runs it more than once (the sim backend's
// timed and counted runs, one run per hardware event group): every run reads
// the same bytes.
//   - a terminal stays every run's stdin (a person types into each);
//   - a regular file is opened again for each run at the offset rprof found
//     it at, so each run reads the same file the same way;
//   - a pipe, FIFO, socket or device is streamed to the first run as it
//     reads it (rprof copies it through a pipe, never waiting for the end of
//     an input that may never end) and saved, in a private directory, as it
//     goes; the later runs read the saved bytes from their start;
//   - a closed stdin stays closed; a plan of one run keeps the inherited
//     stdin untouched.
#ifndef RPROF_RUN_RUN_INPUT_H_
#define RPROF_RUN_RUN_INPUT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "run/private_dir.h"

namespace rprof {

class RunInput {
 public:
  explicit RunInput(size_t runs);
  ~RunInput();
  RunInput(const RunInput&) = delete;
  RunInput& operator=(const RunInput&) = delete;

  // Before run i: the fd (close-on-exec) the run gets as stdin, or -1 for the
  // inherited one. Throws Error when the input cannot be given.
  int open_for_run(size_t i);
  // After run i: stops the copy of the first run, closes the fd.
  void done_with_run(size_t i);
  // The note for the report, "" when stdin was left alone.
  std::string note(size_t runs_done) const;

 private:
  void copy_stream();

  enum class Kind { kInherited, kFile, kStream } kind_ = Kind::kInherited;
  off_t file_offset_ = 0;
  uint64_t file_bytes_ = 0;
  std::optional<PrivateDir> dir_;
  std::string saved_;
  int saved_fd_ = -1;     // the copy being written (kStream)
  int pipe_write_ = -1;   // to the first run's stdin (kStream)
  int stop_[2] = {-1, -1};
  int run_fd_ = -1;       // the fd given to the current run
  std::thread copier_;
  uint64_t copied_ = 0;   // bytes read from stdin
  int copy_errno_ = 0;
};

}  // namespace rprof

#endif  // RPROF_RUN_RUN_INPUT_H_
