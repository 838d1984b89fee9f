// The switch's cost figures: config values, the per-host GPU calibration cache, or a fresh probe.
#include "model/switching/calibration_cache.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

#include "data/atomic_file.hpp"
#include "data/errors.hpp"
#include "data/paths.hpp"
#include "data/text.hpp"

namespace rbf::model {

namespace {

const char* const kFormatLine = "# rbfnet GPU calibration, format 1 (`rbfnet calibrate` redoes it)";

std::string safe_name(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const bool keep =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    out += keep ? c : '_';
  }
  return out.empty() ? std::string("_") : out;
}

// The figures of a calibration by their names in the cache file, in file order.
std::vector<std::pair<const char*, double GpuCalibration::*>> figures() {
  using C = GpuCalibration;
  return {{"startup_ms", &C::startup_ms},
          {"alloc_ms", &C::alloc_ms},
          {"sync_ms", &C::sync_ms},
          {"launch_ms", &C::launch_ms},
          {"overhead_ms", &C::overhead_ms},
          {"bandwidth_gbs", &C::bandwidth_gbs},
          {"transfer_gbs", &C::transfer_gbs},
          {"pageable_transfer_gbs", &C::pageable_transfer_gbs},
          {"gflops", &C::gflops},
          {"probe_ms", &C::probe_ms}};
}

// Values are written as JSON-style quoted strings (a valid YAML scalar) so any device name survives.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string unquoted(const std::string& text) {
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') return text;
  std::string out;
  for (std::size_t i = 1; i + 1 < text.size(); ++i) {
    if (text[i] == '\\' && i + 2 < text.size()) ++i;
    out += text[i];
  }
  return out;
}

bool read_number(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);  // gcc 7 has no floating-point from_chars
  if (end != text.c_str() + text.size() || !std::isfinite(value) || value < 0) return false;
  out = value;
  return true;
}

// The figures given in the config (> 0) replace those of `gpu` and `migration`.
SwitchCosts with_config(const BackendConfig& config, const CostModel& gpu, const MigrationModel& migration) {
  auto pick = [](double configured, double other) { return configured > 0 ? configured : other; };
  SwitchCosts costs;
  costs.gpu.overhead_ms = pick(config.gpu_overhead_ms, gpu.overhead_ms);
  costs.gpu.bandwidth_gbs = pick(config.gpu_bandwidth_gbs, gpu.bandwidth_gbs);
  costs.gpu.gflops = pick(config.gpu_gflops, gpu.gflops);
  costs.migration.fixed_ms = pick(config.migration_fixed_ms, migration.fixed_ms);
  // A fixed cost given in the config is taken whole, start-up and all.
  costs.migration.startup_ms = config.migration_fixed_ms > 0 ? 0.0 : migration.startup_ms;
  costs.migration.transfer_gbs = pick(config.migration_gbs, migration.transfer_gbs);
  return costs;
}

}  // namespace

std::string calibration_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/rbfnet";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') return std::string(home) + "/.cache/rbfnet";
  return std::string();
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "unknown-host";
  return buf;
}

std::string calibration_cache_path(const std::string& host, int device, const std::string& device_name) {
  const std::string dir = calibration_cache_dir();
  if (dir.empty()) return std::string();
  return dir + "/gpu-" + safe_name(host) + "-" + std::to_string(device) + "-" + safe_name(device_name) + ".yaml";
}

std::string calibration_to_text(const GpuCalibration& calibration, const std::string& host) {
  std::ostringstream out;
  out << kFormatLine << "\n";
  out << "host: " << quoted(host) << "\n";
  out << "device: " << calibration.device << "\n";
  out << "device_name: " << quoted(calibration.device_name) << "\n";
  out << "integrated: " << (calibration.integrated ? "true" : "false") << "\n";
  for (const auto& figure : figures()) {
    out << figure.first << ": " << data::round_trip_text(calibration.*figure.second) << "\n";
  }
  return out.str();
}

bool calibration_from_text(const std::string& text, const std::string& host, int device, const std::string& device_name,
                           GpuCalibration& out) {
  std::map<std::string, std::string> values;
  std::istringstream in(text);
  std::string line;
  bool format_ok = false;
  while (std::getline(in, line)) {
    if (data::trim(line) == kFormatLine) format_ok = true;
    if (line.empty() || line[0] == '#') continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) return false;
    values[data::trim(line.substr(0, colon))] = unquoted(data::trim(line.substr(colon + 1)));
  }
  // A file from another format, machine or device is not this device's calibration.
  if (!format_ok || values["host"] != host || values["device"] != std::to_string(device) ||
      values["device_name"] != device_name) {
    return false;
  }
  GpuCalibration cal;
  cal.device = device;
  cal.device_name = device_name;
  cal.integrated = values["integrated"] == "true";
  for (const auto& figure : figures()) {
    const auto found = values.find(figure.first);
    if (found == values.end() || !read_number(found->second, cal.*figure.second)) return false;
  }
  out = cal;
  return true;
}

bool load_cached_calibration(int device, const std::string& device_name, GpuCalibration& out) {
  const std::string path = calibration_cache_path(host_name(), device, device_name);
  if (path.empty()) return false;
  std::ifstream in(path);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  if (!calibration_from_text(text.str(), host_name(), device, device_name, out)) {
    spdlog::debug("ignoring the unusable GPU calibration cache '{}'", path);
    return false;
  }
  return true;
}

std::string save_calibration(const GpuCalibration& calibration) {
  const std::string path = calibration_cache_path(host_name(), calibration.device, calibration.device_name);
  if (path.empty()) {
    throw RuntimeError("cannot cache the GPU calibration: neither XDG_CACHE_HOME nor HOME names a folder");
  }
  try {
    data::make_directories(calibration_cache_dir(), "calibration cache folder");
  } catch (const InputError& e) {
    throw RuntimeError(e.what());  // a cache that cannot be made is a warning to switch_costs, not bad input
  }
  const std::string text = calibration_to_text(calibration, host_name());
  try {
    data::write_file_atomically(path, text.data(), text.size());
  } catch (const std::exception& e) {
    throw RuntimeError(std::string("cannot write the GPU calibration cache: ") + e.what());
  }
  return path;
}

SwitchCosts switch_costs(const BackendConfig& config, const GpuCalibration& calibration) {
  CostModel gpu;
  gpu.overhead_ms = calibration.overhead_ms;
  gpu.bandwidth_gbs = calibration.bandwidth_gbs;
  gpu.gflops = calibration.gflops;
  MigrationModel migration;
  migration.fixed_ms = calibration.startup_ms + kMigrationAllocations * calibration.alloc_ms;
  migration.startup_ms = calibration.startup_ms;
  migration.transfer_gbs =
      calibration.pageable_transfer_gbs > 0 ? calibration.pageable_transfer_gbs : calibration.transfer_gbs;
  SwitchCosts costs = with_config(config, gpu, migration);
  costs.source = "calibration of " + calibration.device_name;
  return costs;
}

SwitchCosts switch_costs(const BackendConfig& config, const GpuProbe& probe) {
  const bool all_given = config.gpu_overhead_ms > 0 && config.gpu_bandwidth_gbs > 0 && config.gpu_gflops > 0 &&
                         config.migration_fixed_ms > 0 && config.migration_gbs > 0;
  std::string name, why_no_gpu;
  try {
    name = probe.device_name();
  } catch (const std::exception& e) {  // InputError (none, or built without CUDA) or a CUDA failure
    why_no_gpu = e.what();
  }
  if (all_given || !why_no_gpu.empty()) {
    // Without a GPU the figures matter to nobody; the built-in ones fill what the config leaves.
    SwitchCosts costs = with_config(config, CostModel(), MigrationModel());
    costs.gpu_available = why_no_gpu.empty();
    costs.why_no_gpu = why_no_gpu;
    costs.source = all_given ? "config" : "built-in defaults";
    return costs;
  }
  GpuCalibration calibration;
  std::string origin;
  const int device = first_gpu_device(config);
  if (load_cached_calibration(device, name, calibration)) {
    origin = "calibration cached in " + calibration_cache_path(host_name(), device, name);
  } else {
    calibration = probe.calibrate();
    origin = "calibration measured now in " + std::to_string(static_cast<long>(calibration.probe_ms)) + " ms";
    try {
      origin += ", cached in " + save_calibration(calibration);
    } catch (const RuntimeError& e) {
      spdlog::warn("{}", e.what());
    }
  }
  SwitchCosts costs = switch_costs(config, calibration);
  costs.source = origin;
  return costs;
}

}  // namespace rbf::model
