// Error text for the CSV reader: positions, column labels and safely quoted field contents.
#include "data/csv_messages.hpp"

#include <cstdio>
#include <cstring>

#include "data/csv_tokenizer.hpp"

namespace rbf::data {

InputError csv_error(const std::string& file, std::size_t line, std::size_t column, const std::string& sentence) {
  return InputError(file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + sentence);
}

InputError csv_error(const std::string& file, std::size_t line, const std::string& sentence) {
  return InputError(file + ":" + std::to_string(line) + ": " + sentence);
}

std::string column_label(std::size_t index, std::string_view name) {
  return "column " + std::to_string(index + 1) + " (" + quote_for_message(name) + ")";
}

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is not valid.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // UTF-16 surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // beyond U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

bool is_valid_utf8(std::string_view text, std::size_t& bad_offset) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      bad_offset = i;
      return false;
    }
    i += length;
  }
  return true;
}

std::string quote_for_message(std::string_view text) {
  constexpr std::size_t kMaxShown = 40;
  std::string out = "'";
  std::size_t shown = 0;
  std::size_t i = 0;
  for (; i < text.size() && shown < kMaxShown; ++shown) {
    const auto c = static_cast<unsigned char>(text[i]);
    const std::size_t length = utf8_sequence_length(text, i);
    if (c >= 0x20 && c != 0x7F && length > 0) {
      out.append(text.substr(i, length));
      i += length;
      continue;
    }
    char escaped[8];
    std::snprintf(escaped, sizeof escaped, "\\x%02X", static_cast<unsigned>(c));
    out += escaped;
    ++i;
  }
  if (i < text.size()) out += "...";
  out += "'";
  return out;
}

InputError csv_number_error(const std::string& file, std::size_t line, std::size_t column, NumberStatus status,
                            std::string_view text, const std::string& where, bool target, const std::string& hint,
                            const std::string& advice) {
  const bool advised = status == NumberStatus::empty || status == NumberStatus::not_a_number;
  if (!target && hint.empty() && !advice.empty() && advised) {
    const std::string what = status == NumberStatus::empty ? "missing value in " + where
                                                          : quote_for_message(text) + " is not a number in " + where;
    return csv_error(file, line, column, what + "; " + advice);
  }
  // What to do about a feature cell (the delimiter's hint, when there is one, says more).
  const bool advise = !target && hint.empty();
  switch (status) {
    case NumberStatus::empty:
      return csv_error(file, line, column,
                       "missing value in " + where +
                           (advise ? "; every feature needs a number: fill the cell or drop the row, or leave the "
                                     "column out of the features (train --features)"
                                   : hint));
    case NumberStatus::not_finite:
      return csv_error(file, line, column,
                       quote_for_message(text) + " is not a finite number in " + where +
                           " (NaN and infinity are not allowed)");
    case NumberStatus::out_of_range:
      return csv_error(file, line, column, quote_for_message(text) + " is out of range for a double in " + where);
    case NumberStatus::ok:
    case NumberStatus::not_a_number:
      break;
  }
  std::string why = quote_for_message(text) + " is not a number in " + where;
  if (target) why += " (the task was set to regression)";
  if (advise)
    return csv_error(file, line, column,
                     why + "; rbfnet reads numeric features only: encode text as numbers (one 0/1 column per "
                           "category), or leave the column out of the features (train --features)");
  return csv_error(file, line, column, why + hint);
}

// NUL never occurs in CSV text; finding one early names binary files plainly, wherever
// the NUL is, instead of failing later on a confusing number.
void reject_nul_bytes(std::string_view text, const std::string& name, char delimiter_option) {
  const void* hit = std::memchr(text.data(), 0, text.size());
  if (!hit) return;
  const char* nul = static_cast<const char*>(hit);
  std::size_t line = 1;
  const char* line_start = text.data();
  for (const char* p = text.data(); p != nul; ++p) {
    if (*p == '\n' || (*p == '\r' && p[1] != '\n')) {
      ++line;
      line_start = p + 1;
    }
  }
  const char delimiter =
      delimiter_option ? delimiter_option : detect_delimiter(physical_line(line_start, text.data() + text.size()));
  std::size_t column = 1;
  bool in_quotes = false;
  for (const char* p = line_start; p != nul; ++p) {
    if (*p == '"') in_quotes = !in_quotes;
    if (*p == delimiter && !in_quotes) ++column;
  }
  throw csv_error(name, line, column, "NUL byte found: this looks like binary data, not CSV text");
}

}  // namespace rbf::data
