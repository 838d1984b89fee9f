// Tests of the CSV reader: every malformed input gives one located error; good files read right.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "data/csv_reader.hpp"
#include "data/errors.hpp"
#include "data/split.hpp"

using rbf::InputError;
using rbf::data::ColumnSpec;
using rbf::data::CsvOptions;
using rbf::data::Dataset;
using rbf::data::parse_csv;
using rbf::data::read_csv;
using rbf::data::Task;
using rbf::data::TaskHint;

namespace {

ColumnSpec target(const std::string& name) {
  ColumnSpec spec;
  spec.targets = {name};
  return spec;
}

CsvOptions skipping(std::size_t rows) {
  CsvOptions options;
  options.skip_rows = rows;
  return options;
}

Dataset parse(std::string_view text, const ColumnSpec& columns = {}, const CsvOptions& options = {},
              TaskHint task = TaskHint::auto_detect) {
  return parse_csv(text, "t.csv", options, columns, task);
}

// The message of the InputError that parsing `text` throws, or a marker when none is thrown.
std::string error_of(std::string_view text, const ColumnSpec& columns = {}, const CsvOptions& options = {},
                     TaskHint task = TaskHint::auto_detect) {
  try {
    parse(text, columns, options, task);
  } catch (const InputError& e) {
    return e.what();
  }
  return "<no error was thrown>";
}

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string data_file(const std::string& name) { return std::string(RBF_TEST_DATA_DIR) + "/" + name; }

}  // namespace

// ---------------------------------------------------------------------------------------------
// Malformed input: one error each, naming file, line and (where one applies) column.

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
  CHECK(message == "t.csv:3:2: missing value in column 2 ('b')");
  // A missing target value too, and a blank one made of spaces.
  CHECK(starts_with(error_of("a,b,y\n1,2,\n", target("y")), "t.csv:2:3: missing value in target"));
  CHECK(starts_with(error_of("a,b,y\n1,  ,3\n", target("y")), "t.csv:2:2: missing value"));
}

TEST_CASE("csv error: non-numeric feature value") {
  const std::string message = error_of("a,b,y\n1,2,3\n4,abc,6\n", target("y"));
  CHECK(message == "t.csv:3:2: 'abc' is not a number in column 2 ('b')");
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
  CHECK(message.size() < 300);
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
    CHECK(std::string(e.what()) == path + ":6:2: 'abc' is not a number in column 2 ('sepal_width')");
  }
}

// ---------------------------------------------------------------------------------------------
// Well-formed input.

TEST_CASE("csv: numeric regression by target name") {
  const Dataset d = parse("a,b,y\n1,2,3\n4.5,-5e-1,6\n", target("y"));
  CHECK(d.source == "t.csv");
  CHECK(d.rows == 2);
  CHECK(d.features == 2);
  CHECK(d.targets == 1);
  CHECK(d.task == Task::regression);
  CHECK(d.feature_names == std::vector<std::string>{"a", "b"});
  CHECK(d.target_names == std::vector<std::string>{"y"});
  CHECK(d.x == std::vector<double>{1, 2, 4.5, -0.5});
  CHECK(d.y == std::vector<double>{3, 6});
  CHECK(d.row(1)[0] == 4.5);
  CHECK(d.class_names.empty());
}

TEST_CASE("csv: target and features by 0-based index, features in the order given") {
  ColumnSpec spec;
  spec.targets = {"0"};
  spec.features = {"2", "b"};
  const Dataset d = parse("y,b,c\n1,2,3\n4,5,6\n", spec);
  CHECK(d.target_names == std::vector<std::string>{"y"});
  CHECK(d.feature_names == std::vector<std::string>{"c", "b"});
  CHECK(d.x == std::vector<double>{3, 2, 6, 5});
  CHECK(d.y == std::vector<double>{1, 4});
}

TEST_CASE("csv: a column named like an index is found by name first") {
  const Dataset d = parse("2,b,c\n1,2,3\n", target("2"));
  CHECK(d.target_names == std::vector<std::string>{"2"});
  CHECK(d.y == std::vector<double>{1});
}

TEST_CASE("csv: RFC 4180 quoting") {
  const std::string text =
      "\"a,1\",\"say \"\"hi\"\"\",label\n"
      "\"1.5\", 2 ,\"x, \"\"y\"\"\"\n"
      "3,\"4\",\"multi\nline\"\n"
      "5,6,plain\n";
  const Dataset d = parse(text, target("label"));
  CHECK(d.feature_names == std::vector<std::string>{"a,1", "say \"hi\""});
  CHECK(d.x == std::vector<double>{1.5, 2, 3, 4, 5, 6});
  CHECK(d.task == Task::classification);
  CHECK(d.class_names == std::vector<std::string>{"multi\nline", "plain", "x, \"y\""});
  CHECK(d.y == std::vector<double>{2, 0, 1});
}

TEST_CASE("csv: line numbers count the lines inside quoted fields") {
  const std::string message = error_of("a,y\n1,\"two\nlines\"\n2,\"three\n\nlines\"\nx,3\n", target("y"));
  CHECK(starts_with(message, "t.csv:7:1: 'x' is not a number"));
}

TEST_CASE("csv: semicolon and tab delimiters are detected") {
  // A semicolon file with a decimal comma is not numeric: detection must still pick ';'.
  CHECK(starts_with(error_of("a;b;y\n1,5;2;3\n", target("y")), "t.csv:2:1: '1,5'"));
  const Dataset s = parse("a;b;y\n1;2;3\n", target("y"));
  CHECK(s.x == std::vector<double>{1, 2});
  const Dataset t = parse("a\tb\ty\n1\t2\t3\n", target("y"));
  CHECK(t.x == std::vector<double>{1, 2});
  CHECK(t.feature_names == std::vector<std::string>{"a", "b"});
  // Delimiters inside quotes do not vote.
  const Dataset q = parse("\"a;b;c\",y\n1,2\n", target("y"));
  CHECK(q.feature_names == std::vector<std::string>{"a;b;c"});
}

TEST_CASE("csv: an explicit delimiter overrides detection") {
  CsvOptions options;
  options.delimiter = ';';
  const Dataset d = parse("a,b;y\n1;2\n", target("y"), options);
  CHECK(d.feature_names == std::vector<std::string>{"a,b"});
  CHECK(d.x == std::vector<double>{1});
  options.delimiter = '|';
  CHECK(parse("a|y\n1|2\n", target("y"), options).y == std::vector<double>{2});
}

TEST_CASE("csv: CRLF and lone CR line endings") {
  const Dataset d = parse("a,y\r\n1,2\r\n3,4\r\n", target("y"));
  CHECK(d.rows == 2);
  CHECK(d.y == std::vector<double>{2, 4});
  CHECK(parse("a,y\r1,2\r3,4", target("y")).rows == 2);
  CHECK(starts_with(error_of("a,y\r\n1,2\r\nz,3\r\n", target("y")), "t.csv:3:1: 'z' is not a number"));
}

TEST_CASE("csv: a UTF-8 byte-order mark is skipped") {
  const Dataset d = parse(
      "\xEF\xBB\xBF"
      "a,y\n1,2\n",
      target("y"));
  CHECK(d.feature_names == std::vector<std::string>{"a"});
  CHECK(d.x == std::vector<double>{1});
}

TEST_CASE("csv: skip_rows skips metadata lines, which may hold anything") {
  const std::string text = "# exported \"by\" a logger, v2\nunits;mm;s\na,y\n1,2\n";
  const Dataset d = parse(text, target("y"), skipping(2));
  CHECK(d.feature_names == std::vector<std::string>{"a"});
  CHECK(d.y == std::vector<double>{2});
  CHECK(starts_with(error_of(text + "q,3\n", target("y"), skipping(2)), "t.csv:5:1: "));
}

TEST_CASE("csv: blank lines are skipped anywhere, the last newline is optional") {
  const Dataset d = parse("\na,y\n\n1,2\n\r\n\n3,4", target("y"));
  CHECK(d.rows == 2);
  CHECK(d.x == std::vector<double>{1, 3});
}

TEST_CASE("csv: blanks around fields and a leading plus sign") {
  const Dataset d = parse(" a , y \n 1 ,+2.5\n\t-3\t,  4e2  \n", target("y"));
  CHECK(d.feature_names == std::vector<std::string>{"a"});
  CHECK(d.x == std::vector<double>{1, -3});
  CHECK(d.y == std::vector<double>{2.5, 400});
}

TEST_CASE("csv: numbers parse exactly and independently of the locale") {
  const Dataset d = parse("a,y\n0.1,1e-400\n1.7976931348623157e308,-0\n", target("y"));
  CHECK(d.x[0] == 0.1);
  CHECK(d.x[1] == 1.7976931348623157e308);
  CHECK(d.y[0] == 0.0);  // underflow reads as zero, not as an error
}

TEST_CASE("csv: numbers equal a correctly rounded parse, in every written form") {
  // Short decimals take a fast path; long mantissas, big exponents and subnormals the full
  // parser. Both must give exactly what glibc's correctly rounded strtod gives.
  rbf::data::SplitMix64 rng(77);
  const char* const formats[] = {"%.6f", "%.17g", "%.9e", "%.3g", "%.20f", "%.0f", "%.15g"};
  std::string text = "v\n";
  std::vector<std::string> written;
  for (int i = 0; i < 20000; ++i) {
    const double scale = std::pow(10.0, static_cast<double>(rng.below(80)) - 40.0);
    const double v = (rng.uniform() - 0.5) * scale * (i % 50 == 0 ? 1e-280 : 1.0);
    char buffer[400];
    std::snprintf(buffer, sizeof buffer, formats[i % 7], v);
    written.emplace_back(buffer);
    text += buffer;
    text += '\n';
  }
  text += "123456789012345678901234567890\n0.1e-5\n9007199254740993\n4.9e-324\n1E22\n1e23\n";
  for (const char* extra :
       {"123456789012345678901234567890", "0.1e-5", "9007199254740993", "4.9e-324", "1E22", "1e23"}) {
    written.emplace_back(extra);
  }
  const Dataset d = parse(text);
  REQUIRE(d.rows == written.size());
  std::size_t mismatches = 0;
  for (std::size_t i = 0; i < written.size(); ++i) {
    if (d.x[i] != std::strtod(written[i].c_str(), nullptr)) {
      if (++mismatches < 5) MESSAGE("mismatch for " << written[i]);
    }
  }
  CHECK(mismatches == 0);
}

TEST_CASE("csv: string class labels sort byte-wise") {
  const Dataset d = parse("a,species\n1,virginica\n2,setosa\n3,versicolor\n4,setosa\n", target("species"));
  CHECK(d.task == Task::classification);
  CHECK(d.targets == 1);
  CHECK(d.class_names == std::vector<std::string>{"setosa", "versicolor", "virginica"});
  CHECK(d.y == std::vector<double>{2, 0, 1, 0});
}

TEST_CASE("csv: numeric class labels sort as numbers with the classification task") {
  const Dataset d = parse("a,y\n1,10\n2,2\n3,1\n4,2\n", target("y"), {}, TaskHint::classification);
  CHECK(d.task == Task::classification);
  CHECK(d.class_names == std::vector<std::string>{"1", "2", "10"});
  CHECK(d.y == std::vector<double>{2, 1, 0, 1});
  // Auto detection keeps an all-numeric target as regression.
  CHECK(parse("a,y\n1,10\n2,2\n", target("y")).task == Task::regression);
}

TEST_CASE("csv: one non-numeric label makes an auto target a classification target") {
  const Dataset d = parse("a,y\n1,0\n2,nan\n3,other\n", target("y"));
  CHECK(d.task == Task::classification);
  CHECK(d.class_names == std::vector<std::string>{"0", "nan", "other"});
}

TEST_CASE("csv: several target columns for multi-target regression") {
  ColumnSpec spec;
  spec.targets = {"y2", "y1"};
  const Dataset d = parse("y1,a,y2,b\n1,2,3,4\n5,6,7,8\n", spec);
  CHECK(d.task == Task::regression);
  CHECK(d.targets == 2);
  CHECK(d.target_names == std::vector<std::string>{"y2", "y1"});
  CHECK(d.y == std::vector<double>{3, 1, 7, 5});
  CHECK(d.feature_names == std::vector<std::string>{"a", "b"});
  CHECK(d.x == std::vector<double>{2, 4, 6, 8});
}

TEST_CASE("csv: features-only mode ignores the other columns, whatever they hold") {
  ColumnSpec spec;
  spec.features = {"b", "a"};
  const Dataset d = parse("id,a,b,label\nx1,1,2,cat\nx2,3,4,\"dog, big\"\n", spec);
  CHECK(d.targets == 0);
  CHECK(d.y.empty());
  CHECK(d.target_names.empty());
  CHECK(d.feature_names == std::vector<std::string>{"b", "a"});
  CHECK(d.x == std::vector<double>{2, 1, 4, 3});
  // Ignored columns still count for the row shape.
  CHECK(starts_with(error_of("id,a,b\nx1,1\n", spec), "t.csv:2:3: "));
}

TEST_CASE("csv: with no columns named every column is a feature") {
  const Dataset d = parse("a,b\n1,2\n3,4\n");
  CHECK(d.features == 2);
  CHECK(d.targets == 0);
  CHECK(d.x == std::vector<double>{1, 2, 3, 4});
}

TEST_CASE("csv: a one-column file reads") {
  const Dataset d = parse("a\n1\n2\n");
  CHECK(d.rows == 2);
  CHECK(d.x == std::vector<double>{1, 2});
}

TEST_CASE("csv: small real files read from disk") {
  SUBCASE("semicolons, CRLF, byte-order mark and metadata") {
    const Dataset d = read_csv(data_file("csv_semicolon_crlf_bom.csv"), skipping(1), target("quality"));
    CHECK(d.source == data_file("csv_semicolon_crlf_bom.csv"));
    CHECK(d.rows == 3);
    CHECK(d.feature_names == std::vector<std::string>{"acidity", "sugar"});
    CHECK(d.x == std::vector<double>{7.4, 1.9, 7.8, 2.6, 11.2, 1.9});
    CHECK(d.y == std::vector<double>{5, 5, 6});
  }
  SUBCASE("tabs with quoted labels") {
    const Dataset d = read_csv(data_file("csv_tab_labels.tsv"), {}, target("kind"));
    CHECK(d.task == Task::classification);
    CHECK(d.class_names == std::vector<std::string>{"big one", "small"});
    CHECK(d.y == std::vector<double>{0, 1, 0});
  }
}

TEST_CASE("csv: the bundled datasets load") {
  const std::string dir = std::string(RBF_TEST_DATA_DIR) + "/../../data/";
  const Dataset iris = read_csv(dir + "iris.csv", {}, target("species"));
  CHECK(iris.rows == 150);
  CHECK(iris.features == 4);
  CHECK(iris.task == Task::classification);
  CHECK(iris.class_names == std::vector<std::string>{"setosa", "versicolor", "virginica"});
  CHECK(iris.x[0] == 5.1);

  const Dataset diabetes = read_csv(dir + "diabetes.csv", {}, target("progression"));
  CHECK(diabetes.rows == 442);
  CHECK(diabetes.features == 10);
  CHECK(diabetes.task == Task::regression);
  CHECK(diabetes.feature_names.front() == "age");
  CHECK(diabetes.feature_names.back() == "s6");
  CHECK(diabetes.y[0] == 151);
}
