// Locale-independent text-to-double conversion for the CSV reader, fast on the common case.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#if defined(RBF_HAVE_FAST_FLOAT)
#include <fast_float/fast_float.h>
#elif defined(RBF_HAVE_FLOAT_FROM_CHARS)
#include <charconv>
#include <system_error>
#endif

namespace rbf::data {

// Why a field is or is not a usable number; the reader turns each into its own message.
enum class NumberStatus { ok, empty, not_a_number, not_finite, out_of_range };

#if !defined(RBF_HAVE_FAST_FLOAT) && !defined(RBF_HAVE_FLOAT_FROM_CHARS)
// strtod under the "C" locale, for toolchains without a floating-point from_chars (gcc < 11).
// Returns the end of the parsed prefix (== first when nothing parsed); sets `overflow` on
// a magnitude too large for a double.
const char* parse_double_c_locale(const char* first, const char* last, double& value, bool& overflow);
#endif

// Exact powers of ten: every 10^k with k <= 22 is a double without rounding.
constexpr double kExactPowersOfTen[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

constexpr std::uint64_t kPowersOfTenInt[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};

// Appends the run of decimal digits at `p` to `mantissa` (which wraps past 19 digits; the
// caller counts them) and returns the end of the run. Eight bytes at a time where the
// platform allows: digit runs of varying length then cost no mispredicted loop exits.
inline const char* accumulate_digits(const char* p, const char* last, std::uint64_t& mantissa) {
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  while (last - p >= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    // A byte is a digit when its high nibble is 3 and adding 6 keeps it 3 (low nibble <= 9).
    // A carry out of a non-digit byte only disturbs later bytes, which are not counted.
    const std::uint64_t high = word & 0xF0F0F0F0F0F0F0F0ull;
    const std::uint64_t high_plus_6 = (word + 0x0606060606060606ull) & 0xF0F0F0F0F0F0F0F0ull;
    const std::uint64_t non_digit = (high ^ 0x3030303030303030ull) | (high_plus_6 ^ 0x3030303030303030ull);
    const unsigned count = non_digit ? static_cast<unsigned>(__builtin_ctzll(non_digit)) / 8 : 8;
    if (count == 0) return p;
    // The digits move to the top bytes, zeros (leading zeros) fill the bottom; borrows from
    // the non-digit bytes above `count` are shifted out. Then the SWAR 8-digit conversion
    // (as in fast_float's parse_eight_digits_unrolled).
    std::uint64_t digits = (word - 0x3030303030303030ull) << (8 * (8 - count));
    digits = digits * 10 + (digits >> 8);
    digits = (((digits & 0x000000FF000000FFull) * (100 + (1000000ull << 32))) +
              (((digits >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32)))) >>
             32;
    mantissa = mantissa * kPowersOfTenInt[count] + digits;
    p += count;
    if (count < 8) return p;
  }
#endif
  while (p != last && static_cast<unsigned char>(*p - '0') <= 9) {
    mantissa = mantissa * 10 + static_cast<unsigned>(*p++ - '0');
  }
  return p;
}

// The common case of numeric CSV data, "-123.4567" or "1.5e-3" with few digits, parsed
// directly: when the digits fit in 53 bits and the decimal exponent is within +-22, one
// multiplication or division of two exact doubles is correctly rounded (Clinger 1990), so
// the result equals that of any correct parser. Returns nullptr for anything else (more
// digits, "inf", hexadecimal, a bare exponent marker...) so the caller uses a full parser.
inline const char* parse_short_decimal(const char* p, const char* last, double& value) {
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
  const auto is_digit = [](char c) { return static_cast<unsigned char>(c - '0') <= 9; };
  const bool negative = p != last && *p == '-';
  if (negative) ++p;
  std::uint64_t mantissa = 0;  // wraps harmlessly past 19 digits: that case is refused below
  const char* const integer_begin = p;
  p = accumulate_digits(p, last, mantissa);
  std::ptrdiff_t digits = p - integer_begin;
  std::ptrdiff_t exponent = 0;
  if (p != last && *p == '.') {
    const char* const fraction_begin = ++p;
    p = accumulate_digits(p, last, mantissa);
    exponent = fraction_begin - p;
    digits += p - fraction_begin;
  }
  if (digits == 0 || digits > 19) return nullptr;
  if (p != last && (*p == 'e' || *p == 'E')) {
    const char* q = p + 1;
    const bool negative_exponent = q != last && *q == '-';
    if (q != last && (*q == '-' || *q == '+')) ++q;
    if (q == last || !is_digit(*q)) return nullptr;
    std::ptrdiff_t written = 0;
    while (q != last && is_digit(*q)) {
      if (written < 100000) written = written * 10 + (*q - '0');
      ++q;
    }
    exponent += negative_exponent ? -written : written;
    p = q;
  }
  if (mantissa > (std::uint64_t{1} << 53) || exponent < -22 || exponent > 22) return nullptr;
  const double magnitude = exponent < 0 ? static_cast<double>(mantissa) / kExactPowersOfTen[-exponent]
                                        : static_cast<double>(mantissa) * kExactPowersOfTen[exponent];
  value = negative ? -magnitude : magnitude;
  return p;
#else
  // Extended-precision evaluation (x87) would round twice: always use the full parser.
  (void)p;
  (void)last;
  (void)value;
  return nullptr;
#endif
}

// Parses the longest number prefix of [first, last). Returns one past its end, or `first`
// when no number starts there. Accepts what from_chars accepts ("nan", "inf" included, no
// leading '+'), and never looks at the locale. A magnitude beyond the double range yields
// +-inf, which the caller reports as out of range.
inline const char* parse_double_full(const char* first, const char* last, double& value) {
#if defined(RBF_HAVE_FAST_FLOAT)
  const auto result = fast_float::from_chars(first, last, value);
  return result.ec == std::errc() ? result.ptr : first;
#elif defined(RBF_HAVE_FLOAT_FROM_CHARS)
  const auto result = std::from_chars(first, last, value);
  if (result.ec == std::errc::result_out_of_range) {
    // from_chars leaves `value` alone on overflow and underflow; tell them apart by the
    // exponent's sign so that 1e-400 reads as 0 and 1e400 as out of range.
    bool negative_exponent = false;
    for (const char* p = first; p + 1 < result.ptr; ++p) {
      if ((*p == 'e' || *p == 'E') && p[1] == '-') negative_exponent = true;
    }
    const double magnitude = negative_exponent ? 0.0 : HUGE_VAL;
    value = *first == '-' ? -magnitude : magnitude;
    return result.ptr;
  }
  return result.ec == std::errc() ? result.ptr : first;
#else
  bool overflow = false;
  const char* end = parse_double_c_locale(first, last, value, overflow);
  if (overflow) value = *first == '-' ? -HUGE_VAL : HUGE_VAL;
  return end;
#endif
}

// The same, trying the short-decimal path first.
inline const char* parse_double_prefix(const char* first, const char* last, double& value) {
  if (const char* end = parse_short_decimal(first, last, value)) return end;
  return parse_double_full(first, last, value);
}

// Classifies a whole field (already trimmed, quotes removed): a number only when the entire
// text is one finite number. A single leading '+' is allowed, as spreadsheets write it.
NumberStatus parse_number_field(std::string_view text, double& value);

}  // namespace rbf::data
