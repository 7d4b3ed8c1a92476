// trend_bench: builds the trend page of NIGHTS nights x CELLS cells (10 runs
// a cell a night, figures that wander and a few regressions) and prints how
// long building it took and its size; writes it to OUT for
// scripts/bench-trend.sh, which times its first frame in Chromium.
//   trend_bench OUT [NIGHTS=100] [CELLS=50]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "reports/trend_html.h"

namespace locksmith {
namespace {

SuiteRecord Night(int night, int cells, std::mt19937_64& rng) {
  SuiteRecord record;
  record.name = "nightly";
  std::uniform_real_distribution<double> wobble(0.8, 1.25);
  for (int c = 0; c < cells; ++c) {
    const std::string cell = "cell-" + std::to_string(c);
    record.cells.push_back(cell);
    // A cell in ten violates now and then; one in twenty-five starts to late on.
    const int violations = c % 10 == 0 ? int(rng() % 4) : (c % 25 == 1 && night > 80) ? 6 : 0;
    for (int r = 0; r < 10; ++r) {
      SuiteRun run;
      run.cell = cell;
      run.repeat = r;
      run.dir = cell + "/20260101T00000" + std::to_string(r) + ".000Z";
      run.verdict = r < violations ? "invalid" : "valid";
      run.acquire_p50_ms = (1 + c % 7) * wobble(rng);
      run.acquire_p99_ms = *run.acquire_p50_ms * 8 * wobble(rng);
      run.grants_per_s = (40 + c) * wobble(rng);
      run.in_doubt = 0.002 * (c % 5) * wobble(rng);
      run.lock = "redis/redis";
      run.schedule = "mutex, kill";
      record.runs.push_back(run);
    }
  }
  return record;
}

}  // namespace
}  // namespace locksmith

int main(int argc, char** argv) {
  using namespace locksmith;
  if (argc < 2) {
    std::fprintf(stderr, "usage: trend_bench OUT [NIGHTS] [CELLS]\n");
    return 254;
  }
  const int nights = argc > 2 ? std::atoi(argv[2]) : 100;
  const int cells = argc > 3 ? std::atoi(argv[3]) : 50;
  std::mt19937_64 rng(1);
  TrendSection section{"nightly", {}};
  for (int n = 0; n < nights; ++n) {
    section.nights.push_back({"night " + std::to_string(n + 1),
                              "../suites/nightly/night-" + std::to_string(n + 1) + "/index.html",
                              Night(n, cells, rng)});
  }
  const auto start = std::chrono::steady_clock::now();
  const std::string page = RenderTrendPage({section});
  const double ms = std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start).count();
  std::ofstream(argv[1]) << page;
  std::printf("trend page: %d nights x %d cells: built in %.1f ms, %.2f MB\n", nights, cells, ms,
              double(page.size()) / 1e6);
  return 0;
}
