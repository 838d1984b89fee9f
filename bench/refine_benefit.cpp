// What refinement buys on benchmark data: validation and test RMSE with and without it, and
// the nodes needed to match a larger unrefined model, on Friedman #1 and Mackey-Glass.
//
//   refine_benefit [ROWS] [TEST_ROWS] [THREADS]   (defaults 2000 1000 0; 0 threads = all cores)
//
// Every run trains on ROWS rows: validation 0.25, patience 0 (growth adds exactly M nodes;
// the kept model is the best prefix on validation), float64, CPU backend, the default
// candidate pool. The validation rows also choose the kept prefix and guard refinement, so
// TEST_ROWS further rows the trainer never sees measure the models once more (for
// Mackey-Glass the rows that follow in time).
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "data/synthetic.hpp"
#include "model/refine.hpp"
#include "model/trainer.hpp"

namespace {

using rbf::model::Config;
using rbf::model::RefineMethod;
using Clock = std::chrono::steady_clock;

const std::vector<std::size_t> kNodes = {10, 20, 40, 80};
constexpr std::size_t kReference = 80;  // the unrefined model the node scan has to match

struct Run {
  double val = 0, test = 0, train = 0, refine_seconds = 0;
  double growth_only = 0;  // seconds of the growth loop less the refinements during growth
  std::size_t nodes = 0;
  std::string stop_reason;
  std::vector<std::string> events;
  std::vector<rbf::model::IterationRecord> iterations;
};

struct Variant {
  const char* name;
  std::function<void(Config&, std::size_t m)> apply;
};

Config base_config(std::size_t m, int threads) {
  Config c;
  c.data.validation = 0.25;
  c.stopping.patience = 0;
  c.stopping.max_nodes = m;
  c.trainer.precision = rbf::model::Precision::float64;
  c.trainer.threads = threads;
  c.backend.kind = rbf::model::BackendKind::cpu;
  return c;
}

void adam(Config& c) {
  c.refine.method = RefineMethod::adam;
  c.refine.epochs = 200;
  c.refine.learning_rate = 0.01;
  c.refine.patience = 30;
}

// lm where the model (one output: M (d + 2) + 1 parameters) is small enough for it, adam
// otherwise; returns whether lm was used.
bool lm(Config& c, std::size_t m, std::size_t d) {
  if (m * (d + 2) + 1 > rbf::model::kMaxLmParameters) {
    adam(c);
    return false;
  }
  c.refine.method = RefineMethod::lm;
  c.refine.epochs = 30;
  c.refine.damping = 1e-3;
  c.refine.patience = 10;
  return true;
}

// Rows [begin, end) of `ds`.
rbf::data::Dataset slice(const rbf::data::Dataset& ds, std::size_t begin, std::size_t end) {
  rbf::data::Dataset out = ds;
  out.rows = end - begin;
  out.x.assign(ds.x.begin() + static_cast<std::ptrdiff_t>(begin * ds.features),
               ds.x.begin() + static_cast<std::ptrdiff_t>(end * ds.features));
  out.y.assign(ds.y.begin() + static_cast<std::ptrdiff_t>(begin * ds.targets),
               ds.y.begin() + static_cast<std::ptrdiff_t>(end * ds.targets));
  return out;
}

double rmse(const rbf::model::Network& net, const rbf::data::Dataset& test) {
  if (test.rows == 0) return 0;
  std::vector<double> pred;
  net.predict(test.x.data(), test.rows, pred);
  double s = 0;
  for (std::size_t i = 0; i < pred.size(); ++i) s += (pred[i] - test.y[i]) * (pred[i] - test.y[i]);
  return std::sqrt(s / static_cast<double>(pred.size()));
}

Run run(const rbf::data::Dataset& ds, const rbf::data::Dataset& test, const Config& c) {
  const rbf::model::TrainResult r = rbf::model::train(ds, c);
  Run out;
  out.val = r.best_val_rmse;
  out.test = rmse(r.network, test);
  out.train = r.final_train_rmse;
  out.refine_seconds = r.refine_seconds;
  out.growth_only = r.seconds;
  for (const auto& rec : r.iterations) out.growth_only -= rec.refine_ms / 1000.0;
  out.nodes = r.network.nodes();
  out.stop_reason = r.stop_reason;
  out.events = r.events;
  out.iterations = r.iterations;
  return out;
}

std::string cell(double value, double none, bool first, std::size_t nodes, std::size_t m) {
  char buf[96];
  if (first) {
    std::snprintf(buf, sizeof buf, "%.4f", value);
  } else {
    std::snprintf(buf, sizeof buf, "%.4f (%+.1f%%)", value, 100.0 * (value - none) / none);
  }
  std::string s = buf;
  if (nodes != m) s += " [" + std::to_string(nodes) + " kept]";
  return s;
}

// Nodes needed to reach the unrefined reference model's validation RMSE. Without
// refinement: the first node count of the reference run's growth that reaches it (every
// prefix is a model of that many nodes). With at_end lm: the smallest M in steps of 2;
// the scan goes on to the smallest M whose test RMSE reaches the reference's too, since
// the validation rows guided the refined model.
void print_nodes_to_reach(const rbf::data::Dataset& ds, const rbf::data::Dataset& test, const Run& reference,
                          int threads, bool& lm_fell_back) {
  const std::size_t d = ds.features;
  const double goal = reference.val;
  std::size_t plain_nodes = 0;
  for (const auto& rec : reference.iterations)
    if (!rec.dependent && rec.val_rmse >= 0 && rec.val_rmse <= goal) {
      plain_nodes = rec.nodes;
      break;
    }
  std::size_t refined_m = 0, refined_kept = 0, test_m = 0, scanned = 0;
  double refined_val = 0, refined_test = 0, test_val = 0, test_test = 0, scan_seconds = 0;
  for (std::size_t m = 2; m <= kReference && (refined_m == 0 || test_m == 0); m += 2) {
    Config c = base_config(m, threads);
    c.refine.at_end = true;
    lm_fell_back |= !lm(c, m, d);
    const auto t0 = Clock::now();
    const Run r = run(ds, test, c);
    scan_seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    ++scanned;
    if (test_m == 0 && r.test <= reference.test) {
      test_m = m;
      test_val = r.val;
      test_test = r.test;
    }
    if (refined_m == 0 && r.val <= goal) {
      refined_m = m;
      refined_kept = r.nodes;
      refined_val = r.val;
      refined_test = r.test;
    }
  }
  std::printf("\nNodes to reach the validation RMSE %.4f of the unrefined %zu-node run:\n", goal, kReference);
  std::printf("- without refinement: %zu nodes (growth of the %zu-node run)\n", plain_nodes, kReference);
  if (refined_m > 0) {
    std::printf("- with refine at_end (lm): M = %zu (%zu nodes kept, validation RMSE %.4f; its test RMSE %.4f against "
                "%.4f)\n", refined_m, refined_kept, refined_val, refined_test, reference.test);
  } else {
    std::printf("- with refine at_end (lm): not reached for M <= %zu\n", kReference);
  }
  if (test_m > 0) {
    std::printf("- on the test rows (RMSE %.4f of the unrefined %zu-node run): refined M = %zu reaches it (validation "
                "%.4f, test %.4f)\n", reference.test, kReference, test_m, test_val, test_test);
  } else {
    std::printf("- on the test rows (RMSE %.4f of the unrefined %zu-node run): no refined M <= %zu reaches it\n",
                reference.test, kReference, kReference);
  }
  std::printf("- scan: %zu runs of M = 2, 4, ..., %.1f s\n", scanned, scan_seconds);

}

void bench(const char* title, const rbf::data::Dataset& all, std::size_t rows, int threads) {
  const rbf::data::Dataset ds = slice(all, 0, rows), test = slice(all, rows, all.rows);
  const std::size_t d = ds.features;
  bool lm_fell_back = false;
  const std::vector<Variant> variants = {
      {"none", [](Config&, std::size_t) {}},
      {"at_end adam", [](Config& c, std::size_t) {
         c.refine.at_end = true;
         adam(c);
       }},
      {"at_end lm", [&](Config& c, std::size_t m) {
         c.refine.at_end = true;
         lm_fell_back |= !lm(c, m, d);
       }},
      {"every M/2 + at_end lm", [&](Config& c, std::size_t m) {
         c.refine.at_end = true;
         c.refine.every = m / 2;
         lm_fell_back |= !lm(c, m, d);
       }},
  };

  std::printf("\n## %s: %s, %zu features; training rows 0..%zu, test rows %zu..%zu\n\n", title,
              all.source.c_str(), d, rows - 1, rows, all.rows - 1);
  std::vector<std::vector<Run>> runs;  // [node count][variant]
  for (const std::size_t m : kNodes) {
    runs.emplace_back();
    for (const Variant& v : variants) {
      Config c = base_config(m, threads);
      v.apply(c, m);
      runs.back().push_back(run(ds, test, c));
    }
  }

  // "| M | variant | ... |" and the alignment row of a markdown table.
  const auto print_header = [&] {
    std::printf("| M |");
    for (const Variant& v : variants) std::printf(" %s |", v.name);
    std::printf("\n|---:|");
    for (std::size_t i = 0; i < variants.size(); ++i) std::printf("---:|");
    std::printf("\n");
  };
  for (const bool on_test : {false, true}) {
    std::printf("%s RMSE (target units; change against no refinement; [n kept] = the kept model's nodes):\n\n",
                on_test ? "Test" : "Validation");
    print_header();
    for (std::size_t a = 0; a < kNodes.size(); ++a) {
      std::printf("| %zu |", kNodes[a]);
      const Run& none = runs[a][0];
      for (std::size_t v = 0; v < variants.size(); ++v) {
        const Run& r = runs[a][v];
        const double value = on_test ? r.test : r.val, base = on_test ? none.test : none.val;
        std::printf(" %s |", cell(value, base, v == 0, r.nodes, kNodes[a]).c_str());
      }
      std::printf("\n");
    }
    std::printf("\n");
  }

  std::printf("Training RMSE (standardized); seconds of growth + seconds of refinement (every refinement,\n"
              "during growth and at the end, rebuilds included):\n\n");
  print_header();
  for (std::size_t a = 0; a < kNodes.size(); ++a) {
    std::printf("| %zu |", kNodes[a]);
    for (const Run& r : runs[a]) std::printf(" %.4f; %.2f s + %.2f s |", r.train, r.growth_only, r.refine_seconds);
    std::printf("\n");
  }
  std::printf("\nGrowth without refinement stopped with:");
  for (std::size_t a = 0; a < kNodes.size(); ++a) std::printf(" M=%zu: %s;", kNodes[a], runs[a][0].stop_reason.c_str());
  std::printf("\n");
  if (lm_fell_back) std::printf("\n(lm fell back to adam where M * (d + 2) + 1 > %zu)\n", rbf::model::kMaxLmParameters);

  const Run* reference = nullptr;
  for (std::size_t a = 0; a < kNodes.size(); ++a)
    if (kNodes[a] == kReference) reference = &runs[a][0];
  if (reference == nullptr) return;
  print_nodes_to_reach(ds, test, *reference, threads, lm_fell_back);

  std::printf("\nRefinement events:\n");
  for (std::size_t a = 0; a < kNodes.size(); ++a)
    for (std::size_t v = 1; v < variants.size(); ++v)
      for (const std::string& e : runs[a][v].events)
        std::printf("- M=%zu %s: %s\n", kNodes[a], variants[v].name, e.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t rows = argc > 1 ? static_cast<std::size_t>(std::atol(argv[1])) : 2000;
  const std::size_t test_rows = argc > 2 ? static_cast<std::size_t>(std::atol(argv[2])) : 1000;
  const int threads = argc > 3 ? std::atoi(argv[3]) : 0;
  spdlog::set_level(spdlog::level::warn);  // the events are printed below, once
  const auto t0 = Clock::now();
  bench("Friedman #1", rbf::data::make_friedman1(rows + test_rows, 10, 1.0, 1), rows, threads);
  bench("Mackey-Glass", rbf::data::make_mackey_glass(rows + test_rows), rows, threads);
  std::printf("\nwhole run: %.1f s\n", std::chrono::duration<double>(Clock::now() - t0).count());
  return 0;
}
