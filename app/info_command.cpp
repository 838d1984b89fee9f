// `rbfnet info`: what this binary was built with and which CUDA devices it can use, so that a
// bug report or a deployment check starts from facts (build facts come from app/CMakeLists.txt).
#include <spdlog/spdlog.h>
#include <spdlog/version.h>

#include <CLI/Version.hpp>
#include <Eigen/Core>
#include <cstdio>
#include <string>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "app/commands.hpp"
#include "cpu/simd_variant.hpp"
#include "contracts/gpu_entry_points.hpp"

#ifndef RBF_INFO_BUILD_TYPE
#define RBF_INFO_BUILD_TYPE ""
#endif
#ifndef RBF_INFO_COMPILER
#define RBF_INFO_COMPILER "unknown"
#endif
#ifndef RBF_INFO_CXX_FLAGS
#define RBF_INFO_CXX_FLAGS ""
#endif
#ifndef RBF_INFO_SYSTEM
#define RBF_INFO_SYSTEM "unknown"
#endif
#ifndef RBF_INFO_NATIVE
#define RBF_INFO_NATIVE 0
#endif
#ifndef RBF_INFO_SANITIZE
#define RBF_INFO_SANITIZE 0
#endif
#ifndef RBF_INFO_YAML_CPP_VERSION
#define RBF_INFO_YAML_CPP_VERSION "unknown"
#endif
#ifndef RBF_INFO_CUDA_TOOLKIT
#define RBF_INFO_CUDA_TOOLKIT ""
#endif
#ifndef RBF_INFO_CUDA_ARCHITECTURES
#define RBF_INFO_CUDA_ARCHITECTURES ""
#endif

namespace rbf::app {
namespace {

void row(const char* label, const std::string& value) { std::printf("  %-18s %s\n", label, value.c_str()); }

std::string or_none(const std::string& text) { return text.empty() ? "(none)" : text; }

// 13000 -> "13.0", 10020 -> "10.2" (CUDA's encoding: 1000 * major + 10 * minor).
std::string cuda_version(int encoded) {
  if (encoded <= 0) return "unknown";
  return std::to_string(encoded / 1000) + "." + std::to_string((encoded % 1000) / 10);
}

std::string gib(std::size_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return text;
}

std::string cxx_standard() {
  const long standard = __cplusplus;
  const char* name = standard >= 202002L ? "C++20" : standard >= 201703L ? "C++17" : "C++14";
  return std::string(name) + " (" + std::to_string(standard) + ")";
}

std::string openmp() {
#ifdef _OPENMP
  const int version = _OPENMP;
  std::string name = std::to_string(version);
  if (version >= 201811) {
    name = "5.0";
  } else if (version >= 201511) {
    name = "4.5";
  } else if (version >= 201307) {
    name = "4.0";
  } else if (version >= 201107) {
    name = "3.1";
  }
  return "yes, " + name + " (" + std::to_string(omp_get_max_threads()) + " threads)";
#else
  return "no";
#endif
}

// The matrix-free scoring kernels' variant, chosen at run time, and the ones built in.
std::string cpu_kernels() {
  std::string built;
  for (cpu::SimdVariant v : {cpu::SimdVariant::portable, cpu::SimdVariant::avx2, cpu::SimdVariant::avx512}) {
    if (!cpu::simd_variant_built_in(v)) continue;
    built += (built.empty() ? "" : ", ") + std::string(cpu::simd_variant_name(v));
  }
  return std::string(cpu::simd_variant_name(cpu::best_simd_variant())) + " (chosen at run time; built in: " + built + ")";
}

void print_build() {
  std::printf("Build\n");
  row("build type", or_none(RBF_INFO_BUILD_TYPE));
  row("compiler", RBF_INFO_COMPILER);
  row("C++ standard", cxx_standard());
  row("compiler flags", or_none(RBF_INFO_CXX_FLAGS));
  row("target system", RBF_INFO_SYSTEM);
  row("-march=native", RBF_INFO_NATIVE ? "on (RBF_NATIVE)" : "off (RBF_NATIVE=OFF)");
  row("sanitizers", RBF_INFO_SANITIZE ? "address, undefined (RBF_SANITIZE)" : "off");
  row("OpenMP", openmp());
  row("Eigen SIMD", Eigen::SimdInstructionSetsInUse());
  row("CPU kernels", cpu_kernels());
  if (gpu::built_with_cuda()) {
    std::string cuda = std::string("built in, toolkit ") + RBF_INFO_CUDA_TOOLKIT;
    if (std::string(RBF_INFO_CUDA_ARCHITECTURES).size() > 0) {
      cuda += ", architectures " + std::string(RBF_INFO_CUDA_ARCHITECTURES);
    }
    row("CUDA backend", cuda);
  } else {
    row("CUDA backend", "not built in");
  }
}

void print_libraries() {
  std::printf("Libraries\n");
  row("Eigen", std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                   std::to_string(EIGEN_MINOR_VERSION));
  row("yaml-cpp", RBF_INFO_YAML_CPP_VERSION);
  row("spdlog", std::to_string(SPDLOG_VER_MAJOR) + "." + std::to_string(SPDLOG_VER_MINOR) + "." +
                    std::to_string(SPDLOG_VER_PATCH));
  row("fmt", std::to_string(FMT_VERSION / 10000) + "." + std::to_string(FMT_VERSION / 100 % 100) + "." +
                 std::to_string(FMT_VERSION % 100));
  row("CLI11", CLI11_VERSION);
}

void print_devices(const gpu::DeviceReport& report) {
  std::printf("CUDA devices\n");
  if (report.driver_version > 0 || report.runtime_version > 0) {
    row("driver / runtime", cuda_version(report.driver_version) + " / " + cuda_version(report.runtime_version));
  }
  if (report.devices.empty()) {
    std::printf("  none: %s\n", or_none(report.why_none).c_str());
    return;
  }
  for (const gpu::DeviceInfo& device : report.devices) {
    std::printf("  [%d] %s: compute capability %d.%d, %s memory (%s free), %d multiprocessors, %s\n", device.index,
                device.name.c_str(), device.major, device.minor, gib(device.total_memory).c_str(),
                gib(device.free_memory).c_str(), device.multiprocessors,
                device.integrated ? "integrated (shares memory with the CPU)" : "discrete");
  }
}

}  // namespace

int run_info() {
  std::printf("rbfnet %s\n\n", RBF_VERSION);
  print_build();
  std::printf("\n");
  print_libraries();
  std::printf("\n");
  print_devices(gpu::query_devices());
  std::fflush(stdout);
  return 0;
}

}  // namespace rbf::app
