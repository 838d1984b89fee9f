// Where the automatic switch's cost figures come from: the config, this machine's cached GPU
// calibration, or a fresh probe that is then cached (per host and device, since power modes and
// boards move the CPU/GPU crossover and a calibration must not be copied between machines).
#pragma once

#include <functional>
#include <string>

#include "model/config.hpp"
#include "contracts/gpu_calibration.hpp"
#include "model/switching/cost_model.hpp"

namespace rbf::model {

// $XDG_CACHE_HOME/rbfnet when XDG_CACHE_HOME is set and absolute, else $HOME/.cache/rbfnet;
// empty when neither can be found.
std::string calibration_cache_dir();

// This machine's name (gethostname), "unknown-host" when it has none.
std::string host_name();

// DIR/gpu-<host>-<device>-<device name>.yaml, characters other than letters, digits, '-', '_'
// and '.' in the host and device name replaced by '_'. Empty when there is no cache folder.
std::string calibration_cache_path(const std::string& host, int device, const std::string& device_name);

// The cache file's text: "key: value" lines (valid YAML) with the host and every figure.
std::string calibration_to_text(const GpuCalibration& calibration, const std::string& host);

// Reads calibration_to_text's output. False when the text is not a complete calibration of
// exactly this host, device index and device name, or a figure is not a finite number >= 0.
bool calibration_from_text(const std::string& text, const std::string& host, int device, const std::string& device_name,
                           GpuCalibration& out);

// The cached calibration of `device` on this host; false when none is cached or it is unusable.
bool load_cached_calibration(int device, const std::string& device_name, GpuCalibration& out);

// Writes the cache file (atomically, creating the folder) and returns its path. Throws
// rbf::RuntimeError when it cannot be written.
std::string save_calibration(const GpuCalibration& calibration);

// One-time costs of a migration beyond start-up: this many device allocations (X, Y, X_val,
// centers, widths, rows, Phi_C, Q, E, n_c, s_c, g_c, used marks, Phi_val and scratch).
constexpr int kMigrationAllocations = 16;

struct SwitchCosts {
  CostModel gpu;
  MigrationModel migration;
  bool gpu_available = true;  // false: no usable GPU (the figures are the built-in defaults)
  std::string why_no_gpu;     // set when gpu_available is false
  std::string source;         // for the log: "config", "calibration cached in PATH", ...
};

// Pure: every figure given in `config` (> 0) wins; the others come from `calibration`:
// overhead, bandwidth and gflops as measured; migration fixed = startup + kMigrationAllocations
// allocations; migration rate = the pageable host -> device rate (the state lives in
// std::vectors), else the pinned one.
SwitchCosts switch_costs(const BackendConfig& config, const GpuCalibration& calibration);

// How the switch reaches a GPU without naming the backend: the device's name (to find its
// cached calibration) and a fresh probe. model/backend_factory.cpp provides both over gpu/.
struct GpuProbe {
  std::function<std::string()> device_name;     // throws when there is no usable GPU
  std::function<GpuCalibration()> calibrate;   // throws rbf::model::DeviceError when the probe fails
};

// The figures for a run: from the config alone when it gives all five; otherwise from the
// cached calibration of first_gpu_device(config) on this host, or, when none is cached,
// from probe.calibrate() (well under a second), then cached. Without a usable GPU gpu_available
// is false and why_no_gpu says why. Only a failure of the probe itself throws.
SwitchCosts switch_costs(const BackendConfig& config, const GpuProbe& probe);

}  // namespace rbf::model
