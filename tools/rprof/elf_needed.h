// The shared libraries an ELF executable names (its DT_NEEDED entries), read
// from the file without loading it. The launcher uses them to see which
// marker API a program was built against (tools/rprof/marker_apis.h).
#ifndef RPROF_TOOLS_RPROF_ELF_NEEDED_H_
#define RPROF_TOOLS_RPROF_ELF_NEEDED_H_

#include <string>
#include <vector>

namespace rprof {

// DT_NEEDED entries of a 64-bit little-endian ELF file in the order they
// appear ("liblikwid.so.5", ...). Empty when the file is not such an ELF
// file, is statically linked or cannot be read (never throws: a program rprof
// cannot inspect simply gets no drop-in).
std::vector<std::string> elf_needed(const std::string& path);

}  // namespace rprof

#endif  // RPROF_TOOLS_RPROF_ELF_NEEDED_H_
