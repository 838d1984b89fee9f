// JSON text: escaping per RFC 8259 and numbers that read back as the same double.
#include "app/json_writer.hpp"

#include <cmath>
#include <cstdio>

#include "data/text.hpp"

namespace rbf::app {

namespace {

std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
          out += escape;
        } else {
          out += c;  // UTF-8 passes through as it is
        }
    }
  }
  return out + "\"";
}

}  // namespace

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!has_items_.empty()) {
    if (has_items_.back()) text_ += ',';
    has_items_.back() = true;
  }
}

JsonWriter& JsonWriter::open(char bracket) {
  separate();
  text_ += bracket;
  has_items_.push_back(false);
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  has_items_.pop_back();
  text_ += bracket;
  return *this;
}

JsonWriter& JsonWriter::key(const std::string& name) {
  separate();
  text_ += quoted(name) + ':';
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& text) {
  separate();
  text_ += quoted(text);
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  if (!std::isfinite(number)) return null();
  separate();
  text_ += data::round_trip_text(number);
  return *this;
}

JsonWriter& JsonWriter::value(std::size_t number) {
  separate();
  text_ += std::to_string(number);
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  separate();
  text_ += flag ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  separate();
  text_ += "null";
  return *this;
}

JsonWriter& JsonWriter::strings(const std::vector<std::string>& items) {
  begin_array();
  for (const std::string& item : items) value(item);
  return end_array();
}

JsonWriter& JsonWriter::numbers(const std::vector<double>& items) {
  begin_array();
  for (double item : items) value(item);
  return end_array();
}

}  // namespace rbf::app
