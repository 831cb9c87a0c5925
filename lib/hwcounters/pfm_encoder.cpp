#include "hwcounters/pfm_encoder.h"

#if defined(RPROF_HAVE_LIBPFM)
#include <perfmon/pfmlib_perf_event.h>

#include <cstdlib>
#include <cstring>
#endif

namespace rprof {

#if defined(RPROF_HAVE_LIBPFM)
namespace {

bool init() {
  static const bool ok = pfm_initialize() == PFM_SUCCESS;
  return ok;
}

}  // namespace

bool libpfm_available() { return init(); }

std::string libpfm_core_pmu() {
  if (!init()) return "";
  int i;
  pfm_for_all_pmus(i) {
    pfm_pmu_info_t info;
    std::memset(&info, 0, sizeof(info));
    info.size = sizeof(info);
    const auto pmu = static_cast<pfm_pmu_t>(i);
    if (pfm_get_pmu_info(pmu, &info) != PFM_SUCCESS || !info.is_present) continue;
    if (info.type == PFM_PMU_TYPE_CORE && std::strcmp(info.name, "perf") != 0 &&
        std::strcmp(info.name, "perf_raw") != 0) {
      return info.name;
    }
  }
  return "";
}

PfmEncoding pfm_encode(const std::string& name) {
  PfmEncoding out;
  if (!init()) {
    out.error = "libpfm4 did not initialise";
    return out;
  }
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.size = sizeof(attr);
  pfm_perf_encode_arg_t arg;
  std::memset(&arg, 0, sizeof(arg));
  arg.size = sizeof(arg);
  arg.attr = &attr;
  const int rc = pfm_get_os_event_encoding(name.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
  if (rc != PFM_SUCCESS) {
    out.error = std::string("libpfm4: ") + pfm_strerror(rc);
    return out;
  }
  out.ok = true;
  out.type = attr.type;
  out.config = attr.config;
  out.config1 = attr.config1;
  out.config2 = attr.config2;
  return out;
}

#else

bool libpfm_available() { return false; }
std::string libpfm_core_pmu() { return ""; }
PfmEncoding pfm_encode(const std::string&) {
  PfmEncoding out;
  out.error = "rprof was built without libpfm4";
  return out;
}

#endif

}  // namespace rprof
