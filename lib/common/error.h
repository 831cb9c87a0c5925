// Tool-side errors: one line for people (what failed, why, what to do).
// `main` prints "rprof: <what>" and exits with the code.
#ifndef RPROF_COMMON_ERROR_H_
#define RPROF_COMMON_ERROR_H_

#include <stdexcept>
#include <string>

namespace rprof {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, int exit_code = 1)
      : std::runtime_error(what), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

}  // namespace rprof

#endif  // RPROF_COMMON_ERROR_H_
