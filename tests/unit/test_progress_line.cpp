// The progress line's text and when it shows (run/progress_line.h).
#include <catch2/catch.hpp>

#include <stdlib.h>

#include "run/progress_line.h"

using rprof::progress_text;

TEST_CASE("the progress line shows elapsed seconds and the estimate") {
  CHECK(progress_text("simulating", 12.4, 40.2) == "rprof: simulating... 12 s of ~40 s");
  CHECK(progress_text("simulating", 0, 0) == "rprof: simulating... 0 s");
  // Past the estimate, the estimate follows the elapsed time.
  CHECK(progress_text("simulating", 45, 40) == "rprof: simulating... 45 s of ~45 s");
}

TEST_CASE("RPROF_PROGRESS forces the progress line on or off") {
  setenv("RPROF_PROGRESS", "1", 1);
  CHECK(rprof::progress_line_wanted());
  setenv("RPROF_PROGRESS", "0", 1);
  CHECK_FALSE(rprof::progress_line_wanted());
  unsetenv("RPROF_PROGRESS");
}
