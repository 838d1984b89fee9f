// Splits CSV text into RFC 4180 fields while counting physical lines, without copying.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace rbf::data {

// A read position in CSV text. `line` is the 1-based physical line of `pos`; every line
// ending ("\n", "\r\n" or a lone "\r") counts, inside quoted fields too.
struct CsvCursor {
  const char* pos = nullptr;
  const char* end = nullptr;
  std::size_t line = 1;

  bool at_end() const { return pos == end; }
  bool at_line_end() const { return pos != end && (*pos == '\n' || *pos == '\r'); }
  // Steps over one line ending at `pos` (which must be at one).
  void consume_line_end() {
    if (*pos == '\r' && pos + 1 != end && pos[1] == '\n') ++pos;
    ++pos;
    ++line;
  }
};

// What stopped a field: a delimiter (more fields follow), a line ending or the end of text.
enum class FieldEnd { delimiter, record, file };

enum class FieldStatus {
  ok,
  unterminated_quote,  // a quoted field runs to the end of the text
  text_after_quote     // something other than a delimiter or line end follows a closing quote
};

struct CsvField {
  // Unquoted: the text with surrounding blanks trimmed. Quoted: the text between the quotes,
  // doubled quotes still doubled (see unescaped()).
  std::string_view text;
  bool quoted = false;
  bool has_doubled_quotes = false;
  std::size_t line = 0;  // physical line where the field starts
  FieldEnd end = FieldEnd::file;

  // The field's value; allocates only when the field holds doubled quotes.
  std::string unescaped() const;
};

// Reads the field at `cursor` and steps past its terminator. Blanks (space, and tab unless
// it is the delimiter) around an unquoted field or a quoted one are not part of the value.
// A quote inside an unquoted field is taken literally. On an error status the cursor is left
// at the offending place: the end of text or the character after the closing quote.
FieldStatus read_field(CsvCursor& cursor, char delimiter, CsvField& field);

// Steps past the terminator that follows a field parsed in place (a delimiter, a line
// ending or the end of text), and says which it was.
inline FieldEnd consume_field_end(CsvCursor& cursor, char delimiter) {
  if (cursor.at_end()) return FieldEnd::file;
  if (*cursor.pos == delimiter) {
    ++cursor.pos;
    return FieldEnd::delimiter;
  }
  cursor.consume_line_end();
  return FieldEnd::record;
}

// Steps past the rest of the current physical line, ignoring quotes (metadata lines).
void skip_physical_line(CsvCursor& cursor);

// Steps over empty lines; returns true if any text remains.
bool skip_blank_lines(CsvCursor& cursor);

// The delimiter among ',', ';' and tab that occurs most often outside quotes in `line`
// (',' on a tie or when none occurs, so a one-column file still reads).
char detect_delimiter(std::string_view line);

// Text from `begin` up to the next line ending or `end`.
std::string_view physical_line(const char* begin, const char* end);

}  // namespace rbf::data
