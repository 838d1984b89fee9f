// rbfnet's log output: spdlog's default logger on standard error with a short pattern.
#pragma once

#include <string>

namespace rbf::app {

// Installs the stderr logger as spdlog's default (level info). Call once, first thing.
void setup_logging();

// Sets the level by name: trace, debug, info, warn, error or off (validated by the config).
void set_log_level(const std::string& level);

}  // namespace rbf::app
