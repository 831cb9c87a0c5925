// The words of a verdict, in one place: the model (roofline/classify.h) says
// what a region's verdict is, as a kind plus its numbers; these write the
// English every writer shows (text, JSON, CSV, HTML, the diff, `rprof
// check`'s messages). A message is reworded here and nowhere else; tests of
// the verdicts assert kinds and numbers, tests of the words are in
// tests/unit/test_verdict_words.cpp.
#ifndef RPROF_REPORT_VERDICT_WORDS_H_
#define RPROF_REPORT_VERDICT_WORDS_H_

#include <string>

#include "roofline/classify.h"

namespace rprof {

// One line with the numbers ("memory-bound at DRAM (intensity ...): 80% of
// the bandwidth roof (...)"); below every roof it ends with the likely limit.
// "" for VerdictKind::kNone.
std::string verdict_summary(const Verdict& v);
// The verdict in a few words for a summary row beside its % of bound
// ("memory-bound at DRAM"; "dependency chain (94% of 1 DP add chain's
// rate)"), its flags' names after it in brackets; "" for VerdictKind::kNone
// without flags.
std::string verdict_headline(const Verdict& v);
// What would raise performance or the roof; "" where none is said (an
// uncertain time of a few samples).
std::string verdict_direction(const Verdict& v);
// Below every roof: the likely limit with the numbers that name it; "" for
// LimitKind::kNone.
std::string likely_limit_text(const LikelyLimit& l);
// A flag's reason (one line, citing the region's numbers) and what to try.
std::string flag_reason(const VerdictFlag& f);
std::string flag_direction(const VerdictFlag& f);

}  // namespace rprof

#endif  // RPROF_REPORT_VERDICT_WORDS_H_
