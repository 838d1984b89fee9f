// The CPU model of this machine, from /proc/cpuinfo where it names one (x86 and Arm alike).
#pragma once

#include <string>

namespace rbf::app {

// The CPU model named by the text of /proc/cpuinfo: x86's "model name"; on Arm, where that is
// generic or absent, the core named by its implementer and part codes; else the "Hardware",
// "cpu" or generic lines. Empty when the text names none.
std::string cpu_model_from_cpuinfo(const std::string& cpuinfo);

// This machine's CPU model: /proc/cpuinfo, then the device-tree model (boards such as Jetson),
// then the architecture uname reports.
std::string cpu_model();

}  // namespace rbf::app
