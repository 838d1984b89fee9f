// The "C" locale for this thread while a binding runs: numbers read and written by rbfnet's
// code (config values, JSON, messages) use a decimal point whatever locale the Python program
// set (locale.setlocale with a decimal comma made every fit fail on "0.2").
#pragma once

#include <clocale>
#include <locale.h>

namespace rbf::python {

class CLocaleScope {
 public:
  CLocaleScope() {
    static const locale_t c_locale = ::newlocale(LC_ALL_MASK, "C", static_cast<locale_t>(0));
    if (c_locale != static_cast<locale_t>(0)) previous_ = ::uselocale(c_locale);
  }
  ~CLocaleScope() {
    if (previous_ != static_cast<locale_t>(0)) ::uselocale(previous_);
  }
  CLocaleScope(const CLocaleScope&) = delete;
  CLocaleScope& operator=(const CLocaleScope&) = delete;

 private:
  locale_t previous_ = static_cast<locale_t>(0);
};

}  // namespace rbf::python
