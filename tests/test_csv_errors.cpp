// Tests of the CSV reader on malformed input: one error each, naming file and line.
// The column is named too where one applies.
#include <doctest/doctest.h>

#include <string>

#include "data/csv_reader.hpp"
#include "data/errors.hpp"
#include "tests/csv_test_support.hpp"

using rbf::data::read_csv;
using namespace rbf::test::csv;

TEST_CASE("csv error: empty file") {
  const std::string message = error_of("", target("y"));
  CHECK(starts_with(message, "t.csv:1: "));
  CHECK(contains(message, "empty"));
}

TEST_CASE("csv error: a file of only a byte-order mark and blank lines has no header") {
  const std::string message = error_of("\xEF\xBB\xBF\n\r\n\n", target("y"));
  CHECK(starts_with(message, "t.csv:4: "));
  CHECK(contains(message, "no header"));
}

TEST_CASE("csv error: header only") {
  const std::string message = error_of("a,b,y\n", target("y"));
  CHECK(starts_with(message, "t.csv:2: "));
  CHECK(contains(message, "no data rows"));
  // Without a final newline, and with trailing blank lines, the same.
  CHECK(starts_with(error_of("a,b,y", target("y")), "t.csv:2: "));
  CHECK(starts_with(error_of("a,b,y\n\n\n", target("y")), "t.csv:4: "));
}

TEST_CASE("csv error: ragged row with too many fields") {
  const std::string message = error_of("a,b,y\n1,2,3\n4,5,6,7,8\n", target("y"));
  CHECK(starts_with(message, "t.csv:3:4: "));
  CHECK(contains(message, "5 fields"));
  CHECK(contains(message, "header has 3"));
}

TEST_CASE("csv error: ragged row with too few fields") {
  const std::string message = error_of("a,b,y\n1,2,3\n4,5\n", target("y"));
  CHECK(starts_with(message, "t.csv:3:3: "));
  CHECK(contains(message, "2 field(s)"));
  CHECK(contains(message, "column 3 ('y') is missing"));
}

TEST_CASE("csv error: missing value") {
  const std::string message = error_of("a,b,y\n1,2,3\n4,,6\n", target("y"));
  CHECK(message == "t.csv:3:2: missing value in column 2 ('b'); every feature needs a number: fill the cell or drop "
                   "the row, or leave the column out of the features (train --features)");
  // A missing target value too, and a blank one made of spaces.
  CHECK(starts_with(error_of("a,b,y\n1,2,\n", target("y")), "t.csv:2:3: missing value in target"));
  CHECK(starts_with(error_of("a,b,y\n1,  ,3\n", target("y")), "t.csv:2:2: missing value"));
}

TEST_CASE("csv error: non-numeric feature value") {
  const std::string message = error_of("a,b,y\n1,2,3\n4,abc,6\n", target("y"));
  CHECK(message == "t.csv:3:2: 'abc' is not a number in column 2 ('b'); rbfnet reads numeric features only: encode "
                   "text as numbers (one 0/1 column per category), or leave the column out of the features (train "
                   "--features)");
  // Trailing junk after a number, a decimal comma and a lone sign are not numbers either.
  CHECK(starts_with(error_of("a,y\n1.5x,2\n", target("y")), "t.csv:2:1: '1.5x' is not a number"));
  CHECK(starts_with(error_of("a;y\n1,5;2\n", target("y")), "t.csv:2:1: '1,5' is not a number"));
  CHECK(starts_with(error_of("a,y\n-,2\n", target("y")), "t.csv:2:1: '-' is not a number"));
}

TEST_CASE("csv error: a wrong explicit delimiter is hinted at") {
  CsvOptions options;
  options.delimiter = ';';
  const std::string message = error_of("a,y\n1,2\n", {}, options);
  CHECK(starts_with(message, "t.csv:2:1: '1,2' is not a number in column 1 ('a,y')"));
  CHECK(contains(message, "delimiter may be wrong"));
}

TEST_CASE("csv error: a file read as one column names the likely delimiter and the flag") {
  CsvOptions comma;
  comma.delimiter = ',';
  // The usual case: a semicolon file read with ','. The target is not found in "a;b;y".
  CHECK(error_of("a;b;y\n1;2;3\n", target("y"), comma) ==
        "t.csv:1: unknown target column 'y': the header has no such name (columns: 'a;b;y'); the header has a single "
        "column, so the delimiter may be wrong: try --delimiter ';' (the header line holds 2 of them)");
  // Undetected: '|' is none of the three that detection tries.
  CHECK(contains(error_of("a|b|y\n1|2|3\n", target("y")), "try --delimiter '|' (the header line holds 2 of them)"));
  // A tab file read with ';'; the flag spells a tab "tab".
  CsvOptions semicolon;
  semicolon.delimiter = ';';
  CHECK(contains(error_of("a\tb\ty\n1\t2\t3\n", target("y"), semicolon), "try --delimiter tab"));
  // Without a target, the first row is the error; the hint is the same.
  CHECK(contains(error_of("a;y\n1;2\n", {}, comma), "'1;2' is not a number in column 1 ('a;y'); the header has a "
                                                      "single column, so the delimiter may be wrong: try --delimiter ';'"));
  // No separator in sight (a true one-column file), or several columns: no hint.
  CHECK_FALSE(contains(error_of("a b y\n1 2 3\n", target("y")), "delimiter"));
  CHECK_FALSE(contains(error_of("a,y\n1,2\n", target("z")), "delimiter"));
}

TEST_CASE("csv error: non-numeric target with the regression task") {
  const std::string message = error_of("a,y\n1,2\n3,cat\n", target("y"), {}, TaskHint::regression);
  CHECK(starts_with(message, "t.csv:3:2: 'cat' is not a number in target column 2 ('y')"));
  CHECK(contains(message, "regression"));
}

TEST_CASE("csv error: NaN value") {
  const std::string message = error_of("a,b,y\n1,nan,3\n", target("y"));
  CHECK(starts_with(message, "t.csv:2:2: 'nan' is not a finite number in column 2 ('b')"));
  CHECK(starts_with(error_of("a,b,y\n1,NaN,3\n", target("y")), "t.csv:2:2: "));
}

TEST_CASE("csv error: infinite value") {
  CHECK(starts_with(error_of("a,b,y\n1,2,3\n-inf,2,3\n", target("y")), "t.csv:3:1: '-inf' is not a finite number"));
  CHECK(starts_with(error_of("a,b,y\n1,Infinity,3\n", target("y")), "t.csv:2:2: 'Infinity' is not a finite number"));
}

TEST_CASE("csv error: NaN in a numeric target is reported once the column is known numeric") {
  const std::string message = error_of("a,y\n1,2\n3,nan\n4,5\n", target("y"));
  CHECK(starts_with(message, "t.csv:3:2: 'nan' is not a finite number in target column 2 ('y')"));
}

TEST_CASE("csv error: out-of-range number") {
  const std::string message = error_of("a,b,y\n1,2,3\n1e999,2,3\n", target("y"));
  CHECK(message == "t.csv:3:1: '1e999' is out of range for a double in column 1 ('a')");
  CHECK(starts_with(error_of("a,b,y\n1,2,-1e400\n", target("y")), "t.csv:2:3: '-1e400' is out of range"));
}

TEST_CASE("csv error: duplicate column names") {
  const std::string message = error_of("a,b,a,y\n1,2,3,4\n", target("y"));
  CHECK(starts_with(message, "t.csv:1:3: duplicate column name 'a'"));
  CHECK(contains(message, "repeats column 1"));
}

TEST_CASE("csv error: empty column name") {
  const std::string message = error_of(",a,y\n0,1,2\n", target("y"));
  CHECK(starts_with(message, "t.csv:1:1: "));
  CHECK(contains(message, "no name"));
}

TEST_CASE("csv error: unknown target column") {
  const std::string message = error_of("a,b,y\n1,2,3\n", target("z"));
  CHECK(starts_with(message, "t.csv:1: unknown target column 'z'"));
  CHECK(contains(message, "'a', 'b', 'y'"));
  // Line numbers count skipped metadata lines.
  CHECK(starts_with(error_of("# meta\na,b,y\n1,2,3\n", target("z"), skipping(1)), "t.csv:2: unknown"));
}

TEST_CASE("csv error: target index out of range") {
  const std::string message = error_of("a,b,y\n1,2,3\n", target("3"));
  CHECK(starts_with(message, "t.csv:1: target column index 3 is out of range"));
  CHECK(contains(message, "0 to 2"));
}

TEST_CASE("csv error: unknown feature column") {
  ColumnSpec spec = target("y");
  spec.features = {"a", "c"};
  CHECK(starts_with(error_of("a,b,y\n1,2,3\n", spec), "t.csv:1: unknown feature column 'c'"));
}

TEST_CASE("csv error: a column given both as target and feature, or twice") {
  ColumnSpec both = target("y");
  both.features = {"a", "y"};
  CHECK(starts_with(error_of("a,b,y\n1,2,3\n", both), "t.csv:1: column 3 ('y') is given both"));
  ColumnSpec twice;
  twice.targets = {"y", "2"};
  CHECK(starts_with(error_of("a,b,y\n1,2,3\n", twice), "t.csv:1: column 3 ('y') is given twice"));
}

TEST_CASE("csv error: every column a target leaves no features") {
  ColumnSpec spec;
  spec.targets = {"a", "b"};
  CHECK(starts_with(error_of("a,b\n1,2\n", spec), "t.csv:1: no feature columns"));
}

TEST_CASE("csv error: unterminated quote") {
  const std::string message = error_of("a,b,y\n1,2,3\n4,\"5,6\n7,8,9\n", target("y"));
  CHECK(starts_with(message, "t.csv:3:2: unterminated quote"));
  CHECK(contains(message, "column 2 ('b')"));
  CHECK(starts_with(error_of("a,\"b,y\n1,2,3\n", target("y")), "t.csv:1:2: unterminated quote"));
}

TEST_CASE("csv error: text after a closing quote") {
  const std::string message = error_of("a,b,y\n1,\"2\"x,3\n", target("y"));
  CHECK(starts_with(message, "t.csv:2:2: unexpected text 'x,3' after the closing quote"));
}

TEST_CASE("csv error: binary garbage with NUL bytes") {
  const std::string text("a,b,y\n1,2,3\n4,5\0\x01\x02,6\n", 21);
  const std::string message = error_of(text, target("y"));
  CHECK(starts_with(message, "t.csv:3:2: "));
  CHECK(contains(message, "binary"));
}

TEST_CASE("csv error: a UTF-16 file reads as binary") {
  const std::string text(
      "\xFF\xFE"
      "a\0,\0y\0\n\0"
      "1\0,\0"
      "2\0\n\0",
      18);
  const std::string message = error_of(text, target("y"));
  CHECK(starts_with(message, "t.csv:1:1: "));
  CHECK(contains(message, "binary"));
}

TEST_CASE("csv error: invalid UTF-8 in the header") {
  const std::string message = error_of("a,\xC3\x28\xFF,y\n1,2,3\n", target("y"));
  CHECK(starts_with(message, "t.csv:1:2: "));
  CHECK(contains(message, "UTF-8"));
  CHECK(contains(message, "\\x28") == false);  // valid bytes are not escaped...
  CHECK(contains(message, "\\xC3"));           // ...the first bad one is named
}

TEST_CASE("csv error: invalid UTF-8 in a class label") {
  const std::string message = error_of("a,y\n1,cat\n2,\xFE\xFF\n", target("y"));
  CHECK(starts_with(message, "t.csv:3:2: '\\xFE\\xFF' in target column 2 ('y') is not valid UTF-8"));
}

TEST_CASE("csv error: garbage in a numeric field is shown escaped and cut short") {
  const std::string garbage(200, '\x07');
  const std::string message = error_of("a,y\n" + garbage + ",1\n", target("y"));
  CHECK(starts_with(message, "t.csv:2:1: '\\x07\\x07"));
  CHECK(contains(message, "...' is not a number"));
  CHECK(message.size() < 450);  // the text cut short, then the advice on numeric features
}

TEST_CASE("csv error: string labels with several targets") {
  ColumnSpec spec;
  spec.targets = {"y1", "y2"};
  const std::string message = error_of("a,y1,y2\n1,2,3\n4,5,cat\n", spec);
  CHECK(starts_with(message, "t.csv:3:3: 'cat' in target column 3 ('y2') is not a number"));
  CHECK(contains(message, "exactly one target column"));
  CHECK(starts_with(error_of("a,y1,y2\n1,2,3\n", spec, {}, TaskHint::classification),
                    "t.csv:1: classification needs exactly one target column, but 2 were given"));
}

TEST_CASE("csv error: skip_rows past the end of the file") {
  const std::string message = error_of("# one\n# two\n", target("y"), skipping(5));
  CHECK(starts_with(message, "t.csv:3: the file ends after 2 line(s)"));
  CHECK(starts_with(error_of("# one\n# two\n", target("y"), skipping(2)), "t.csv:3: no header row"));
}

TEST_CASE("csv error: a delimiter that cannot work is refused") {
  CsvOptions options;
  options.delimiter = '"';
  CHECK(starts_with(error_of("a,y\n1,2\n", target("y"), options), "t.csv: the delimiter"));
}

TEST_CASE("csv error: a missing file names its path") {
  const std::string path = data_file("no_such_file.csv");
  try {
    read_csv(path, {}, target("y"));
    FAIL("no error was thrown");
  } catch (const InputError& e) {
    CHECK(contains(e.what(), path));
    CHECK(contains(e.what(), "cannot open"));
  }
  CHECK_THROWS_AS(read_csv(RBF_TEST_DATA_DIR, {}, target("y")), InputError);
}

TEST_CASE("csv error: a real file's message uses its path and physical line") {
  const std::string path = data_file("csv_bad_value.csv");
  try {
    read_csv(path, {}, target("species"));
    FAIL("no error was thrown");
  } catch (const InputError& e) {
    // Line 6 of the file: a quoted label spans lines 3 and 4, so this is the fifth record.
    CHECK(starts_with(std::string(e.what()), path + ":6:2: 'abc' is not a number in column 2 ('sepal_width'); "));
  }
}
