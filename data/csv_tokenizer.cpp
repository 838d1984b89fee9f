// RFC 4180 field scanning for the CSV reader: quotes, doubled quotes, blanks and line counts.
#include "data/csv_tokenizer.hpp"

#include <cstring>

namespace rbf::data {

namespace {

bool is_blank(char c, char delimiter) { return c == ' ' || (c == '\t' && delimiter != '\t'); }

}  // namespace

std::string CsvField::unescaped() const {
  if (!has_doubled_quotes) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] == '"') ++i;  // the second quote of a pair
  }
  return out;
}

FieldStatus read_field(CsvCursor& cursor, char delimiter, CsvField& field) {
  const char* p = cursor.pos;
  const char* const end = cursor.end;
  while (p != end && is_blank(*p, delimiter)) ++p;
  field.line = cursor.line;
  field.quoted = false;
  field.has_doubled_quotes = false;

  if (p != end && *p == '"') {
    field.quoted = true;
    const char* const content = ++p;
    for (;;) {
      // Long quoted fields are rare; memchr keeps them cheap anyway.
      const char* quote = static_cast<const char*>(std::memchr(p, '"', static_cast<std::size_t>(end - p)));
      const char* const stop = quote ? quote : end;
      for (const char* q = p; q != stop; ++q) {
        if (*q == '\n' || (*q == '\r' && (q + 1 == end || q[1] != '\n'))) ++cursor.line;
      }
      if (!quote) {
        cursor.pos = end;
        return FieldStatus::unterminated_quote;
      }
      if (quote + 1 != end && quote[1] == '"') {
        field.has_doubled_quotes = true;
        p = quote + 2;
        continue;
      }
      field.text = std::string_view(content, static_cast<std::size_t>(quote - content));
      p = quote + 1;
      break;
    }
    while (p != end && is_blank(*p, delimiter)) ++p;
    cursor.pos = p;
    if (p != end && *p != delimiter && *p != '\n' && *p != '\r') {
      return FieldStatus::text_after_quote;
    }
  } else {
    const char* const begin = p;
    while (p != end && *p != delimiter && *p != '\n' && *p != '\r') ++p;
    const char* last = p;
    while (last != begin && is_blank(last[-1], delimiter)) --last;
    field.text = std::string_view(begin, static_cast<std::size_t>(last - begin));
    cursor.pos = p;
  }
  field.end = consume_field_end(cursor, delimiter);
  return FieldStatus::ok;
}

void skip_physical_line(CsvCursor& cursor) {
  while (!cursor.at_end() && !cursor.at_line_end()) ++cursor.pos;
  if (!cursor.at_end()) cursor.consume_line_end();
}

bool skip_blank_lines(CsvCursor& cursor) {
  while (cursor.at_line_end()) cursor.consume_line_end();
  return !cursor.at_end();
}

char detect_delimiter(std::string_view line) {
  std::size_t commas = 0, semicolons = 0, tabs = 0;
  bool in_quotes = false;
  for (const char c : line) {
    if (c == '"') {
      in_quotes = !in_quotes;  // a doubled quote toggles twice: no change, as it should
    } else if (!in_quotes) {
      commas += c == ',';
      semicolons += c == ';';
      tabs += c == '\t';
    }
  }
  if (semicolons > commas && semicolons >= tabs) return ';';
  if (tabs > commas && tabs > semicolons) return '\t';
  return ',';
}

std::string_view physical_line(const char* begin, const char* end) {
  const char* p = begin;
  while (p != end && *p != '\n' && *p != '\r') ++p;
  return std::string_view(begin, static_cast<std::size_t>(p - begin));
}

}  // namespace rbf::data
