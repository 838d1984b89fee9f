// Strict reading of one config scalar: the whole text must be the value, or it is an error.
#include "model/config_scalars.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "data/errors.hpp"
#include "data/text.hpp"
#include "model/config_messages.hpp"

namespace rbf::model::config_detail {
namespace {

bool parse_unsigned(const std::string& text, std::uint64_t& out) {
  std::string digits = text;
  if (!digits.empty() && digits[0] == '+') digits.erase(0, 1);
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  errno = 0;
  const unsigned long long value = std::strtoull(digits.c_str(), nullptr, 10);
  if (errno == ERANGE || value > std::numeric_limits<std::uint64_t>::max()) return false;
  out = static_cast<std::uint64_t>(value);
  return true;
}

bool parse_signed(const std::string& text, long long& out) {
  std::size_t start = (!text.empty() && (text[0] == '+' || text[0] == '-')) ? 1 : 0;
  if (start == text.size() || !std::all_of(text.begin() + static_cast<std::ptrdiff_t>(start), text.end(),
                                           [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  errno = 0;
  out = std::strtoll(text.c_str(), nullptr, 10);
  return errno != ERANGE;
}

bool parse_real(const std::string& text, double& out) {
  if (text.empty()) return false;
  // strtod also accepts hex floats, "nan" and "inf"; a config wants plain finite decimals.
  if (text.find_first_of("xXnN") != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  // ERANGE also flags underflow: 5e-324 is a subnormal number, not an error; only a magnitude
  // past the largest double is.
  const bool overflow = errno == ERANGE && std::fabs(value) > 1.0;
  if (end != text.c_str() + text.size() || overflow || !std::isfinite(value)) return false;
  out = value;
  return true;
}

bool parse_bool(const std::string& text, bool& out) {
  const std::string word = lower(text);
  if (word == "true" || word == "yes" || word == "on") {
    out = true;
    return true;
  }
  if (word == "false" || word == "no" || word == "off") {
    out = false;
    return true;
  }
  return false;
}

// The text of `node` as `parse` reads it into a Value; text it refuses is an error.
template <typename Value, typename Parse>
Value read_scalar(const YAML::Node& node, const std::string& subject, const std::string& allowed, Parse parse) {
  const std::string text = scalar_of(node, subject, allowed);
  Value value{};
  if (!parse(text, value)) fail_value(subject, allowed, "'" + text + "'");
  return value;
}

}  // namespace

std::string scalar_of(const YAML::Node& node, const std::string& subject, const std::string& allowed) {
  if (!node.IsScalar()) fail_value(subject, allowed, describe_node(node));
  return data::trim(node.Scalar());
}

std::uint64_t read_unsigned(const YAML::Node& node, const std::string& subject, const std::string& allowed,
                            std::uint64_t max) {
  return read_scalar<std::uint64_t>(node, subject, allowed, [max](const std::string& text, std::uint64_t& value) {
    return parse_unsigned(text, value) && value <= max;
  });
}

int read_int(const YAML::Node& node, const std::string& subject, const std::string& allowed) {
  return static_cast<int>(read_scalar<long long>(node, subject, allowed, [](const std::string& text, long long& value) {
    return parse_signed(text, value) && value >= std::numeric_limits<int>::min() &&
           value <= std::numeric_limits<int>::max();
  }));
}

double read_real(const YAML::Node& node, const std::string& subject, const std::string& allowed) {
  return read_scalar<double>(node, subject, allowed, parse_real);
}

bool read_bool(const YAML::Node& node, const std::string& subject, const std::string& allowed) {
  return read_scalar<bool>(node, subject, allowed, parse_bool);
}

}  // namespace rbf::model::config_detail
