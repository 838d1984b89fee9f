// The CPU model of this machine, for the bench summary: /proc/cpuinfo on x86 and Arm alike,
// with fallbacks where it names none.
#include "app/cpu_model.hpp"

#include <sys/utsname.h>

#include <fstream>
#include <sstream>

namespace rbf::app {

namespace {

std::string trimmed(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return std::string();
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// The value of the first "key : value" line whose key is `key`; empty when there is none.
std::string field(const std::string& cpuinfo, const std::string& key) {
  std::istringstream lines(cpuinfo);
  std::string line;
  while (std::getline(lines, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos || trimmed(line.substr(0, colon)) != key) continue;
    const std::string value = trimmed(line.substr(colon + 1));
    if (!value.empty()) return value;
  }
  return std::string();
}

// Arm's implementer and part codes (the Arm ARM's MIDR fields) of the cores rbfnet is run on
// most: Jetson boards and Arm servers. Others are named by their codes.
std::string arm_core(const std::string& implementer, const std::string& part) {
  struct Known {
    const char *implementer, *part, *name;
  };
  static const Known kKnown[] = {
      {"0x41", "0xd03", "Arm Cortex-A53"},     {"0x41", "0xd07", "Arm Cortex-A57"},
      {"0x41", "0xd08", "Arm Cortex-A72"},     {"0x41", "0xd0b", "Arm Cortex-A76"},
      {"0x41", "0xd0c", "Arm Neoverse-N1"},    {"0x41", "0xd40", "Arm Neoverse-V1"},
      {"0x41", "0xd42", "Arm Cortex-A78AE"},   {"0x41", "0xd49", "Arm Neoverse-N2"},
      {"0x41", "0xd4f", "Arm Neoverse-V2"},    {"0x4e", "0x003", "NVIDIA Denver 2"},
      {"0x4e", "0x004", "NVIDIA Carmel"},      {"0x61", "0x000", "Apple"},
  };
  for (const Known& k : kKnown) {
    if (implementer == k.implementer && part == k.part) return k.name;
  }
  return "Arm core (implementer " + implementer + ", part " + part + ")";
}

std::string read_text(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::string();
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string cpu_model_from_cpuinfo(const std::string& cpuinfo) {
  // Arm kernels print a generic "ARMv8 Processor rev 1 (v8l)" as the model name, if any; the
  // implementer and part codes say more.
  const std::string model_name = field(cpuinfo, "model name");
  const bool generic = model_name.empty() || model_name.find("ARMv") == 0 || model_name.find("AArch64") == 0;
  if (!generic) return model_name;
  const std::string implementer = field(cpuinfo, "CPU implementer");
  const std::string part = field(cpuinfo, "CPU part");
  if (!implementer.empty() && !part.empty()) return arm_core(implementer, part);
  for (const char* key : {"Hardware", "cpu model", "cpu", "model name", "Processor"}) {
    const std::string value = field(cpuinfo, key);
    if (!value.empty()) return value;
  }
  return std::string();
}

std::string cpu_model() {
  std::string model = cpu_model_from_cpuinfo(read_text("/proc/cpuinfo"));
  if (!model.empty()) return model;
  // A board's device tree names it (e.g. "NVIDIA Jetson TX2 Developer Kit"); the text ends in NUL.
  model = trimmed(read_text("/sys/firmware/devicetree/base/model").c_str());
  if (!model.empty()) return model;
  struct utsname name {};
  if (::uname(&name) == 0) return std::string("unknown ") + name.machine + " CPU";
  return "unknown CPU";
}

}  // namespace rbf::app
