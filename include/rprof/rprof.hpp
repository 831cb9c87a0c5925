// rprof: C++ markers. RPROF_SCOPE("name") opens a region for the rest of the
// enclosing scope; RPROF_SCOPE_WORK("name", flops, bytes) also declares the
// region's ideal work (FMA = 2 FLOPs; minimal bytes). Both compile to nothing
// unless RPROF_ENABLE is defined.
#ifndef RPROF_RPROF_HPP_
#define RPROF_RPROF_HPP_

#include "rprof/markers.h"

namespace rprof {

// Closes its region when the scope ends. Not copyable or movable: a region
// belongs to exactly one scope.
class ScopedRegion {
 public:
  explicit ScopedRegion(rprof_site* site) noexcept : site_(site) {
    rprof_begin_site(site_);
  }
  ScopedRegion(rprof_site* site, double flops, double bytes) noexcept
      : site_(site) {
    rprof_begin_site(site_);
    rprof_work(flops, bytes);
  }
  ~ScopedRegion() { rprof_end_site(site_); }
  ScopedRegion(const ScopedRegion&) = delete;
  ScopedRegion& operator=(const ScopedRegion&) = delete;
  ScopedRegion(ScopedRegion&&) = delete;
  ScopedRegion& operator=(ScopedRegion&&) = delete;

 private:
  rprof_site* site_;
};

}  // namespace rprof

#define RPROF_CONCAT_INNER_(a, b) a##b
#define RPROF_CONCAT_(a, b) RPROF_CONCAT_INNER_(a, b)

#if defined(RPROF_ENABLE)
#define RPROF_SCOPE(name) \
  ::rprof::ScopedRegion RPROF_CONCAT_(rprof_scope_, __LINE__)(RPROF_SITE_(name))
#define RPROF_SCOPE_WORK(name, flops, bytes)                    \
  ::rprof::ScopedRegion RPROF_CONCAT_(rprof_scope_, __LINE__)( \
      RPROF_SITE_(name), (flops), (bytes))
#else
#define RPROF_SCOPE(name) static_assert(sizeof(name) > 0, "rprof region name")
#define RPROF_SCOPE_WORK(name, flops, bytes) \
  static_assert(sizeof(name) > 0, "rprof region name")
#endif

#endif  // RPROF_RPROF_HPP_
