// Tests of the bench's reporting: the log-axis decision, the spread over repeats, the repeat
// column of costs.csv and the CPU model read from /proc/cpuinfo texts.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include "app/bench_plot_scale.hpp"
#include "app/bench_report.hpp"
#include "app/cpu_model.hpp"
#include "tests/model_file_test_support.hpp"

using namespace rbf::app;
using rbf::test::model_files::TempDir;

namespace {

// A run of `backend` whose iteration i (from 1) took `ms(i)` in total, one node each.
BenchRun fake_run(const std::string& backend, std::size_t repeat, std::size_t iterations, double ms, double setup_s) {
  BenchRun run;
  run.backend = backend;
  run.repeat = repeat;
  run.result.setup_seconds = setup_s;
  for (std::size_t i = 1; i <= iterations; ++i) {
    rbf::model::IterationRecord r;
    r.iteration = i;
    r.nodes = i;
    r.backend = backend == "gpu" ? "gpu" : "cpu";
    r.select_ms = 0.5 * ms;
    r.add_ms = 0.25 * ms;
    r.update_ms = 0.25 * ms;
    r.total_ms = ms;
    r.val_rmse = 1.0 / static_cast<double>(i);
    run.result.iterations.push_back(r);
    run.result.seconds += ms / 1e3;
  }
  return run;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("time_axis_scale: logarithmic only when two curves differ by more than 10x at one node count") {
  const NodeCurve slow{{1, 50.0}, {2, 60.0}, {3, 70.0}};
  const NodeCurve close{{1, 10.0}, {2, 12.0}, {3, 14.0}};  // 5x below at every node count
  const NodeCurve far{{1, 10.0}, {2, 5.0}, {3, 2.0}};      // 35x below at 3 nodes

  AxisScale scale = time_axis_scale({slow, close});
  CHECK_FALSE(scale.log);
  CHECK(scale.ratio == doctest::Approx(5.0));

  scale = time_axis_scale({slow, far});
  CHECK(scale.log);
  CHECK(scale.ratio == doctest::Approx(35.0));

  // Exactly 10x is not more than 10x.
  CHECK_FALSE(time_axis_scale({NodeCurve{{1, 100.0}}, NodeCurve{{1, 10.0}}}).log);
  CHECK(time_axis_scale({NodeCurve{{1, 100.0}}, NodeCurve{{1, 9.99}}}).log);

  // One curve, however steep, compares with nothing; neither do node counts only one curve reached.
  CHECK_FALSE(time_axis_scale({NodeCurve{{1, 0.01}, {2, 1000.0}}}).log);
  CHECK_FALSE(time_axis_scale({NodeCurve{{1, 100.0}}, NodeCurve{{2, 1.0}}}).log);
  CHECK(time_axis_scale({NodeCurve{{1, 100.0}}, NodeCurve{{2, 1.0}}}).ratio == 0.0);

  // Zero (a phase that took no time) and NaN are not measurements.
  CHECK_FALSE(time_axis_scale({NodeCurve{{1, 100.0}}, NodeCurve{{1, 0.0}}}).log);
  CHECK_FALSE(time_axis_scale({NodeCurve{{1, 100.0}}, NodeCurve{{1, std::nan("")}}}).log);
}

TEST_CASE("spread_of: median, min and max of odd and even counts") {
  const Spread odd = spread_of({3.0, 1.0, 2.0});
  CHECK(odd.median == 2.0);
  CHECK(odd.min == 1.0);
  CHECK(odd.max == 3.0);
  const Spread even = spread_of({4.0, 1.0, 2.0, 10.0});
  CHECK(even.median == 3.0);
  CHECK(even.min == 1.0);
  CHECK(even.max == 10.0);
}

TEST_CASE("node_spread: per node count over the repeats, including the cumulative time from setup") {
  const BenchRun a = fake_run("cpu", 1, 4, 2.0, 0.010);
  const BenchRun b = fake_run("cpu", 2, 4, 4.0, 0.020);
  const BenchRun c = fake_run("cpu", 3, 3, 6.0, 0.030);  // stopped one node short
  const std::vector<NodeSpread> spread = node_spread({&a, &b, &c});
  REQUIRE(spread.size() == 4);
  CHECK(spread[0].nodes == 1);
  CHECK(spread[0].repeats == 3);
  CHECK(spread[0].smoothed_ms.median == 4.0);
  CHECK(spread[0].smoothed_ms.min == 2.0);
  CHECK(spread[0].smoothed_ms.max == 6.0);
  CHECK(spread[0].select_ms == 2.0);
  CHECK(spread[1].cumulative_ms.min == doctest::Approx(14.0));  // 10 ms setup + 2 x 2 ms
  CHECK(spread[1].cumulative_ms.max == doctest::Approx(42.0));  // 30 ms setup + 2 x 6 ms
  CHECK(spread[3].repeats == 2);
  CHECK(spread[3].smoothed_ms.median == 3.0);
  CHECK(spread[3].val_rmse == doctest::Approx(0.25));
}

TEST_CASE("costs.csv keeps its columns and adds the repeat last, and spread.csv has a row per backend and node") {
  std::vector<BenchRun> runs{fake_run("cpu", 1, 3, 2.0, 0.0), fake_run("cpu", 2, 3, 3.0, 0.0)};
  BenchRun skipped;
  skipped.backend = "gpu";
  skipped.skipped = true;
  runs.push_back(skipped);
  const TempDir dir;
  write_costs_csv(dir.file("costs.csv"), runs);
  write_spread_csv(dir.file("spread.csv"), runs, {"cpu", "gpu"});
  const std::string costs = read_all(dir.file("costs.csv"));
  const std::string spread = read_all(dir.file("spread.csv"));

  CHECK(costs.find("backend,iteration,nodes,device,select_ms,add_ms,update_ms,evaluate_ms,total_ms,smoothed_ms,"
                   "cumulative_ms,train_rmse,val_rmse,event,repeat\n") == 0);
  CHECK(costs.find("\ncpu,3,3,cpu,") != std::string::npos);
  std::size_t rows = 0, second = 0;
  std::istringstream lines(costs);
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line)) {
    ++rows;
    if (line.substr(line.size() - 2) == ",2") ++second;
  }
  CHECK(rows == 6);
  CHECK(second == 3);
  CHECK(costs_column("repeat") == 15);

  CHECK(spread.find("backend,nodes,repeats,smoothed_ms_median,smoothed_ms_min,smoothed_ms_max,") == 0);
  CHECK(spread.find("\ncpu,2,2,2.5,2,3,") != std::string::npos);
  CHECK(spread.find("\ngpu,") == std::string::npos);
}

TEST_CASE("cpu_model_from_cpuinfo: x86 model names, Arm cores by their codes, and nothing") {
  const std::string x86 =
      "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n"
      "model name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\ncpu MHz\t\t: 2500.000\n";
  CHECK(cpu_model_from_cpuinfo(x86) == "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz");

  // A Jetson TX2's first cores: a generic model name, and the Cortex-A57 by its codes.
  const std::string tx2 =
      "processor\t: 0\nmodel name\t: ARMv8 Processor rev 3 (v8l)\nBogoMIPS\t: 62.50\n"
      "CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x1\nCPU part\t: 0xd07\n";
  CHECK(cpu_model_from_cpuinfo(tx2) == "Arm Cortex-A57");

  // An aarch64 server kernel prints no model name at all.
  const std::string grace = "processor\t: 0\nBogoMIPS\t: 2000.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd4f\n";
  CHECK(cpu_model_from_cpuinfo(grace) == "Arm Neoverse-V2");

  const std::string unknown_arm = "processor\t: 0\nCPU implementer\t: 0x51\nCPU part\t: 0x802\n";
  CHECK(cpu_model_from_cpuinfo(unknown_arm) == "Arm core (implementer 0x51, part 0x802)");

  CHECK(cpu_model_from_cpuinfo("Hardware\t: BCM2835\n") == "BCM2835");
  CHECK(cpu_model_from_cpuinfo("").empty());
  CHECK(cpu_model_from_cpuinfo("model name\t:   \n").empty());
}

TEST_CASE("cpu_model: never empty on this machine") { CHECK_FALSE(cpu_model().empty()); }
