// Measures CSV reading speed (MB/s) on a generated numeric file; figures go to docs/BENCHMARKS.md.
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <string>
#include <vector>

#include "data/csv_reader.hpp"
#include "data/split.hpp"

namespace {

struct BenchOptions {
  double megabytes = 100.0;   // size of the generated file
  std::size_t features = 20;  // numeric feature columns; one target column is added
  int repeats = 3;            // the best run counts: the others absorb page-cache and CPU noise
  std::string file;           // parse this file instead of generating one
  std::string target;         // target column of `file`
  bool precise = false;       // every value with 17 significant digits, as doubles round-trip
};

void usage(const char* program) {
  std::printf(
      "usage: %s [--mb N] [--features N] [--repeats N] [--precise] [--file CSV --target COLUMN]\n"
      "  Generates an N-megabyte numeric CSV (default 100 MB, 20 features + target) in the\n"
      "  temporary directory, reads it with rbf::data::read_csv (best of --repeats runs,\n"
      "  default 3) and prints the throughput. --precise writes every value with 17 significant\n"
      "  digits (the way doubles round-trip) instead of short decimals. --file reads an\n"
      "  existing CSV instead.\n",
      program);
}

BenchOptions parse_arguments(int argc, char** argv) {
  BenchOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      usage(argv[0]);
      std::exit(0);
    } else if (arg == "--mb" && has_value) {
      options.megabytes = std::atof(argv[++i]);
    } else if (arg == "--features" && has_value) {
      options.features = static_cast<std::size_t>(std::atol(argv[++i]));
    } else if (arg == "--repeats" && has_value) {
      options.repeats = std::atoi(argv[++i]);
    } else if (arg == "--precise") {
      options.precise = true;
    } else if (arg == "--file" && has_value) {
      options.file = argv[++i];
    } else if (arg == "--target" && has_value) {
      options.target = argv[++i];
    } else {
      usage(argv[0]);
      std::exit(2);
    }
  }
  if (options.megabytes <= 0 || options.features == 0 || options.repeats <= 0) {
    usage(argv[0]);
    std::exit(2);
  }
  return options;
}

// Writes rows of random numbers in the shapes real exports have (fixed decimals, %g with
// exponents, small integers; or all %.17g when `precise`) until the file reaches `megabytes`.
std::size_t write_numeric_csv(const std::string& path, double megabytes, std::size_t features, bool precise) {
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (!out) {
    std::fprintf(stderr, "cannot create %s: %s\n", path.c_str(), std::strerror(errno));
    std::exit(1);
  }
  std::string line;
  for (std::size_t j = 0; j < features; ++j) line += "x" + std::to_string(j + 1) + ",";
  line += "y\n";
  std::fputs(line.c_str(), out);
  const auto target_bytes = static_cast<std::size_t>(megabytes * 1e6);
  std::size_t bytes = line.size();
  std::size_t rows = 0;
  rbf::data::SplitMix64 rng(2024);
  char number[64];
  while (bytes < target_bytes) {
    line.clear();
    for (std::size_t j = 0; j <= features; ++j) {
      const double v = (rng.uniform() - 0.5) * 200.0;
      switch (precise ? 3 : j % 3) {
        case 0:
          std::snprintf(number, sizeof number, "%.6f", v);
          break;
        case 1:
          std::snprintf(number, sizeof number, "%.9g", v * 1e-5);
          break;
        case 2:
          std::snprintf(number, sizeof number, "%d", static_cast<int>(v));
          break;
        default:
          std::snprintf(number, sizeof number, "%.17g", v);
          break;
      }
      line += number;
      line += j == features ? '\n' : ',';
    }
    std::fwrite(line.data(), 1, line.size(), out);
    bytes += line.size();
    ++rows;
  }
  std::fclose(out);
  return rows;
}

std::size_t file_bytes(const std::string& path) {
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (!in) return 0;
  std::fseek(in, 0, SEEK_END);
  const long size = std::ftell(in);
  std::fclose(in);
  return size > 0 ? static_cast<std::size_t>(size) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  const BenchOptions options = parse_arguments(argc, argv);
  std::string path = options.file;
  std::string target = options.target;
  const bool generated = path.empty();
  if (generated) {
    const char* tmp = std::getenv("TMPDIR");
    path = std::string(tmp && *tmp ? tmp : "/tmp") + "/rbfnet_csv_bench_" +
           std::to_string(static_cast<long>(getpid())) + ".csv";
    target = "y";
    std::printf("generating %.0f MB numeric CSV (%zu features + target%s) at %s\n", options.megabytes, options.features,
                options.precise ? ", 17 digits" : "", path.c_str());
    write_numeric_csv(path, options.megabytes, options.features, options.precise);
  }
  const double megabytes = static_cast<double>(file_bytes(path)) / 1e6;

  int status = 0;
  try {
    rbf::data::ColumnSpec columns;
    if (!target.empty()) columns.targets = {target};
    double best = 1e300;
    std::size_t rows = 0, features = 0;
    for (int run = 0; run < options.repeats; ++run) {
      // Wall time is the figure; process CPU time is printed beside it because on a shared
      // machine a wall time far above the CPU time means the run waited for a core.
      const std::clock_t cpu_start = std::clock();
      const auto start = std::chrono::steady_clock::now();
      const rbf::data::Dataset data = rbf::data::read_csv(path, {}, columns);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double cpu_seconds = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
      rows = data.rows;
      features = data.features;
      best = std::min(best, seconds);
      std::printf("  run %d: %.3f s wall, %.3f s cpu  (%.1f MB/s)\n", run + 1, seconds, cpu_seconds,
                  megabytes / seconds);
    }
    std::printf("read_csv: %.1f MB, %zu rows x %zu features, best of %d: %.3f s = %.1f MB/s\n", megabytes, rows,
                features, options.repeats, best, megabytes / best);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    status = 1;
  }
  if (generated) std::remove(path.c_str());
  return status;
}
