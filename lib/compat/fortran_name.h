// A Fortran CHARACTER argument (pointer + hidden length, no terminating NUL,
// padded with blanks) as a C string, for the compatibility shims' Fortran
// entry points. Trailing blanks are dropped, as LIKWID and PAPI do.
// The hidden length is a size_t (gfortran 8 and later) passed after all the
// other arguments; the entry points take it as `long`.
#ifndef RPROF_COMPAT_FORTRAN_NAME_H_
#define RPROF_COMPAT_FORTRAN_NAME_H_

#include <cstddef>

namespace rprof::compat {

class FortranName {
 public:
  FortranName(const char* s, long len) {
    size_t n = s == nullptr || len <= 0 ? 0 : static_cast<size_t>(len);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\0')) --n;
    if (n >= sizeof(buf_)) n = sizeof(buf_) - 1;  // the runtime's name limit
    for (size_t i = 0; i < n; ++i) buf_[i] = s[i];
    buf_[n] = '\0';
  }
  const char* c_str() const { return buf_; }

 private:
  char buf_[1025];
};

}  // namespace rprof::compat

#endif  // RPROF_COMPAT_FORTRAN_NAME_H_
