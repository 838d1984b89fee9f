// Tests of the small data/ helpers: trimming text.
#include <doctest/doctest.h>

#include <string>

#include "data/text.hpp"

using rbf::data::trim;

TEST_CASE("trim: removes spaces, tabs and line ends at both ends only") {
  CHECK(trim("  a b\t") == "a b");
  CHECK(trim("\r\n\tkey: value \r\n") == "key: value");
  CHECK(trim("x") == "x");
  CHECK(trim(" \t\r\n ") == "");
  CHECK(trim("") == "");
  CHECK(trim("\va\f") == "\va\f");  // only the four characters above count
}
