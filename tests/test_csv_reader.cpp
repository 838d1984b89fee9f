// Tests of the CSV reader on well-formed input.
// Quoting, delimiters, line endings, exact numbers, class labels, column selection, real files.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "data/csv_reader.hpp"
#include "data/split.hpp"
#include "tests/csv_test_support.hpp"

using rbf::data::read_csv;
using rbf::data::Task;
using namespace rbf::test::csv;

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

TEST_CASE("csv: a target of mostly words is an auto classification target") {
  const Dataset d = parse("a,y\n1,0\n2,cat\n3,other\n", target("y"));
  CHECK(d.task == Task::classification);
  CHECK(d.class_names == std::vector<std::string>{"0", "cat", "other"});
}

TEST_CASE("csv: one word in a numeric target is an error at its line, unless classification is asked for") {
  const std::string text = "a,y\n1,0.5\n2,1.5\n3,NA\n4,2.5\n";
  try {
    parse(text, target("y"));
    FAIL("a numeric target with one NA was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).rfind("t.csv:4:2: 'NA' in target column 2 ('y') is not a number, but 3 of its 4", 0) == 0);
    CHECK(std::string(e.what()).find("--task classification") != std::string::npos);
  }
  CHECK(parse(text, target("y"), {}, TaskHint::classification).class_names.size() == 4);
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
