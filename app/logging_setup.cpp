// Sends every spdlog message to standard error, so that standard output stays clean for data
// (predictions, `info`, `--print-config`) and can be piped.
#include "app/logging_setup.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace rbf::app {

void setup_logging() {
  auto logger = spdlog::stderr_color_mt("rbfnet");
  spdlog::set_default_logger(logger);
  // Time of day and level are enough; the logger name is always "rbfnet".
  spdlog::set_pattern("[%H:%M:%S.%e] %^%l%$: %v");
  spdlog::set_level(spdlog::level::info);
}

void set_log_level(const std::string& level) { spdlog::set_level(spdlog::level::from_str(level)); }

}  // namespace rbf::app
