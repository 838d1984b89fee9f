// Whole-field number classification, and the strtod fallback for toolchains without from_chars.
#include "data/number_parse.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#if !defined(RBF_HAVE_FAST_FLOAT) && !defined(RBF_HAVE_FLOAT_FROM_CHARS)
#include <locale.h>

#include <clocale>
#endif

namespace rbf::data {

namespace {

// "nan", "inf" and "infinity" in any case, after an optional sign: text that names a
// non-finite value rather than a finite number too large for a double.
bool names_non_finite(std::string_view text) {
  for (const char c : text) {
    if (c == 'n' || c == 'N' || c == 'i' || c == 'I') return true;
  }
  return false;
}

}  // namespace

NumberStatus parse_number_field(std::string_view text, double& value) {
  if (text.empty()) return NumberStatus::empty;
  const char* first = text.data();
  const char* last = first + text.size();
  // Only the mantissa may carry a '+'; "+-1" and a lone "+" stay errors.
  if (*first == '+' && last - first > 1 && first[1] != '-' && first[1] != '+') ++first;
  const char* end = parse_double_prefix(first, last, value);
  if (end == first || end != last) return NumberStatus::not_a_number;
  if (std::isfinite(value)) return NumberStatus::ok;
  return names_non_finite(text) ? NumberStatus::not_finite : NumberStatus::out_of_range;
}

#if !defined(RBF_HAVE_FAST_FLOAT) && !defined(RBF_HAVE_FLOAT_FROM_CHARS)
const char* parse_double_c_locale(const char* first, const char* last, double& value, bool& overflow) {
  // strtod needs a terminated string and reads the global locale; copy the number-like
  // prefix (never the rest of the text) and use a private "C" locale so that a user's
  // LC_NUMERIC (a decimal comma) cannot change the result. Leaving 'x' and 'p' out of the
  // copy also refuses hexadecimal floats, which from_chars does not read either.
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
  // from_chars does not skip leading space or accept '+'; neither may this fallback.
  if (first == last || *first == ' ' || *first == '\t' || *first == '+') return first;
  const char* stop = first;
  while (stop != last && std::strchr("0123456789+-.eEnNaAiIfFtTyY", *stop) && *stop) ++stop;
  const std::string copy(first, stop);
  char* end = nullptr;
  errno = 0;
  value = strtod_l(copy.c_str(), &end, c_locale);
  overflow = errno == ERANGE && (value == HUGE_VAL || value == -HUGE_VAL);
  return first + (end - copy.c_str());
}
#endif

}  // namespace rbf::data
