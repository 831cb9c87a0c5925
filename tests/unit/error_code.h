// The exit code of the rprof::Error that f throws (0 when it throws none),
// and its message in *what.
#ifndef RPROF_TESTS_UNIT_ERROR_CODE_H_
#define RPROF_TESTS_UNIT_ERROR_CODE_H_

#include <functional>
#include <string>

#include "common/error.h"

namespace rprof::test {

inline int error_code(const std::function<void()>& f, std::string* what = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (what) *what = e.what();
    return e.exit_code();
  }
  return 0;
}

}  // namespace rprof::test

#endif  // RPROF_TESTS_UNIT_ERROR_CODE_H_
