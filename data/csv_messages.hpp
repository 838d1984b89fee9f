// Builds the CSV reader's "FILE:LINE:COLUMN: sentence" errors and quotes field text safely.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "data/errors.hpp"
#include "data/number_parse.hpp"

namespace rbf::data {

// "FILE:LINE:COLUMN: sentence" (line and column 1-based), for a problem in one field.
InputError csv_error(const std::string& file, std::size_t line, std::size_t column, const std::string& sentence);
// "FILE:LINE: sentence", for a problem with a whole line (an empty file, a missing row).
InputError csv_error(const std::string& file, std::size_t line, const std::string& sentence);

// The error for a field that is not a usable number (`status`), at 1-based `column` of `where`
// ("target column 3 ('y')"). A plain non-number in a target column says the task was set to
// regression; `hint` (may be empty) ends its sentence. A feature's missing or text cell ends
// with `advice` instead of the default advice, where that is not empty.
InputError csv_number_error(const std::string& file, std::size_t line, std::size_t column, NumberStatus status,
                            std::string_view text, const std::string& where, bool target, const std::string& hint,
                            const std::string& advice = std::string());

// "column 3 ('petal_length')" from a 0-based column index and its header name.
std::string column_label(std::size_t index, std::string_view name);

// Field text as it may appear inside a message: quoted with '', control bytes and invalid
// UTF-8 written as \xNN, and long text cut short, so a garbage field cannot garble the line.
std::string quote_for_message(std::string_view text);

// True when `text` is well-formed UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF). `bad_offset` receives the offset of the first bad byte otherwise.
bool is_valid_utf8(std::string_view text, std::size_t& bad_offset);

// Throws csv_error at the first NUL byte of `text`, if any: binary data, said plainly.
void reject_nul_bytes(std::string_view text, const std::string& name, char delimiter_option);

}  // namespace rbf::data
