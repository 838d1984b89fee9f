// A small JSON writer for the machine-readable outputs (inspect --json, evaluate --json,
// train --metrics-json): objects, arrays, strings and numbers, commas placed for the caller.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace rbf::app {

class JsonWriter {
 public:
  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  // The name of the next member of the enclosing object.
  JsonWriter& key(const std::string& name);
  JsonWriter& value(const std::string& text);
  JsonWriter& value(const char* text) { return value(std::string(text)); }
  // Not-a-number and infinities have no JSON form: they are written as null.
  JsonWriter& value(double number);
  JsonWriter& value(std::size_t number);
  JsonWriter& value(bool flag);
  JsonWriter& null();
  JsonWriter& strings(const std::vector<std::string>& items);
  JsonWriter& numbers(const std::vector<double>& items);

  // The document with a final line feed.
  std::string str() const { return text_ + "\n"; }

 private:
  JsonWriter& open(char bracket);
  JsonWriter& close(char bracket);
  void separate();  // the comma before a value, unless it follows a key or opens a container
  std::string text_;
  std::vector<bool> has_items_;  // per open container: something was written in it
  bool after_key_ = false;
};

}  // namespace rbf::app
