// Sends every spdlog message to standard error, so that standard output stays clean for data
// (predictions, `info`, `--print-config`) and can be piped.
#include "app/logging_setup.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>
#include <utility>

#include "app/progress_line.hpp"

namespace rbf::app {

namespace {

// The stderr sink, ending a progress line (app/progress_line.hpp) before each log line.
class ProgressAwareSink final : public spdlog::sinks::sink {
 public:
  explicit ProgressAwareSink(std::shared_ptr<spdlog::sinks::sink> inner) : inner_(std::move(inner)) {}
  void log(const spdlog::details::log_msg& message) override {
    if (progress_line_open().exchange(false)) std::fputs("\n", stderr);
    inner_->log(message);
  }
  void flush() override { inner_->flush(); }
  void set_pattern(const std::string& pattern) override { inner_->set_pattern(pattern); }
  void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override {
    inner_->set_formatter(std::move(formatter));
  }

 private:
  std::shared_ptr<spdlog::sinks::sink> inner_;
};

}  // namespace

void setup_logging() {
  auto sink = std::make_shared<ProgressAwareSink>(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  auto logger = std::make_shared<spdlog::logger>("rbfnet", sink);
  spdlog::register_logger(logger);
  spdlog::set_default_logger(logger);
  // Time of day and level are enough; the logger name is always "rbfnet".
  spdlog::set_pattern("[%H:%M:%S.%e] %^%l%$: %v");
  spdlog::set_level(spdlog::level::info);
}

void set_log_level(const std::string& level) { spdlog::set_level(spdlog::level::from_str(level)); }

}  // namespace rbf::app
