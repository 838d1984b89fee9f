// Raw tabular data (data/feature_encoding.hpp and the CSV reader's raw mode): text columns one-hot
// encoded with rare and unseen levels pooled, missing cells imputed with an indicator, the
// encoding stored in the model file, and training and prediction from raw rows.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "data/csv_reader.hpp"
#include "data/errors.hpp"
#include "data/feature_encoding.hpp"
#include "model/model_file.hpp"
#include "model/trainer.hpp"

using namespace rbf;

namespace {

data::CsvOptions raw_options() {
  data::CsvOptions o;
  o.missing_features = true;
  o.text_features = true;
  return o;
}

data::Dataset read_raw(const std::string& text, const data::CsvOptions& options = raw_options()) {
  data::ColumnSpec columns;
  columns.targets = {"y"};
  return data::parse_csv(text, "t.csv", options, columns, data::TaskHint::regression);
}

// 40 rows: port (A x20, B x15, C x4, D x1), age with 12 gaps, y depending on both.
std::string port_table() {
  std::string text = "port,age,y\n";
  const char* ports[] = {"A", "B", "C", "D"};
  for (int i = 0; i < 40; ++i) {
    const int p = i < 20 ? 0 : i < 35 ? 1 : i < 39 ? 2 : 3;
    const std::string age = i % 10 < 3 ? (i % 2 ? "NA" : "") : std::to_string(20 + i);
    text += std::string(ports[p]) + "," + age + "," + std::to_string(p * 10 + (i % 7)) + "\n";
  }
  return text;
}

}  // namespace

TEST_CASE("the raw CSV reader keeps text columns and reads missing markers as NaN") {
  const data::Dataset ds = read_raw("a,b,y\nred,1,0\n\"blue, dark\",NA,1\n,?,2\n");
  REQUIRE(ds.text_features.size() == 1);
  CHECK(ds.text_features[0].feature == 0);
  CHECK(ds.text_features[0].cells == std::vector<std::string>{"red", "blue, dark", ""});
  CHECK(std::isnan(ds.x[0]));
  CHECK(ds.x[1] == 1.0);
  CHECK(std::isnan(ds.x[3]));
  CHECK(std::isnan(ds.x[5]));
}

TEST_CASE("the CSV reader without raw options refuses text and gaps with the advice it is given") {
  data::CsvOptions off;
  off.text_advice = "ADVICE-TEXT";
  off.missing_advice = "ADVICE-MISSING";
  CHECK_THROWS_WITH_AS(read_raw("a,y\nred,1\n", off), doctest::Contains("t.csv:2:1: 'red' is not a number in column 1 ('a'); ADVICE-TEXT"), InputError);
  CHECK_THROWS_WITH_AS(read_raw("a,y\n,1\n", off), doctest::Contains("t.csv:2:1: missing value in column 1 ('a'); ADVICE-MISSING"), InputError);
}

TEST_CASE("columns named as text are read as text whatever they hold") {
  data::CsvOptions o;
  o.text_columns = {"code"};
  const data::Dataset ds = read_raw("code,v,y\n01,1,0\n2,2,1\n", o);
  REQUIRE(ds.text_features.size() == 1);
  CHECK(ds.text_features[0].cells == std::vector<std::string>{"01", "2"});
}

TEST_CASE("the fitted encoding: levels, rare levels pooled, the median and an indicator") {
  const data::Dataset raw = read_raw(port_table());
  data::EncodingOptions options;
  options.rare_rows = 5;
  const data::FeatureEncoding e = data::fit_encoding(raw, options);
  REQUIRE(e.columns.size() == 2);
  CHECK(e.columns[0].kind == data::ColumnKind::categorical);
  CHECK(e.columns[0].levels == std::vector<std::string>{"A", "B"});
  CHECK(e.columns[0].pooled);  // C (4 rows) and D (1 row)
  CHECK(e.columns[1].kind == data::ColumnKind::numeric);
  CHECK(e.columns[1].indicator);  // 12 missing >= 5
  CHECK(e.feature_names() == std::vector<std::string>{"port=A", "port=B", "port=(other)", "age", "age=(missing)"});

  options.rare_rows = 13;  // too few gaps to flag; B (15) keeps its feature, C and D do not
  const data::FeatureEncoding fewer = data::fit_encoding(raw, options);
  CHECK_FALSE(fewer.columns[1].indicator);
  options.max_levels = 1;
  CHECK(data::fit_encoding(raw, options).columns[0].levels == std::vector<std::string>{"A"});
}

TEST_CASE("applying the encoding: one-hot rows, filled gaps, and unseen levels reported") {
  data::Dataset raw = read_raw(port_table());
  data::EncodingOptions options;
  options.rare_rows = 5;
  const data::FeatureEncoding e = data::fit_encoding(raw, options);
  data::Dataset fresh = read_raw("port,age,y\nB,,0\nZ,30,0\n", raw_options());
  data::apply_encoding(e, raw);
  CHECK(raw.features == 5);
  CHECK(raw.text_features.empty());
  // Row 0: port A, age missing (i % 10 == 0): the median and the flag.
  CHECK(raw.x[0] == 1.0);
  CHECK(raw.x[1] == 0.0);
  CHECK(raw.x[4] == 1.0);
  CHECK(raw.x[3] == doctest::Approx(e.columns[1].fill));
  const data::EncodingReport report = data::apply_encoding(e, fresh);
  CHECK(fresh.x == std::vector<double>{0, 1, 0, e.columns[1].fill, 1, 0, 0, 1, 30, 0});
  REQUIRE(report.columns.size() == 1);  // the flagged gap is not news; the unseen level is
  CHECK(report.columns[0].unseen == 1);
  CHECK(report.sentence().find("the first 'Z'") != std::string::npos);
}

TEST_CASE("options turned off, typos in a numeric column and a model without an encoding are refused") {
  const data::Dataset raw = read_raw(port_table());
  data::EncodingOptions off;
  off.categorical = false;
  CHECK_THROWS_WITH_AS(data::fit_encoding(raw, off), doctest::Contains("column 'port' holds text"), InputError);
  off = data::EncodingOptions();
  off.missing = false;
  CHECK_THROWS_WITH_AS(data::fit_encoding(raw, off), doctest::Contains("column 'age' has 12 missing value(s), the first in data row 1"), InputError);

  std::string typo = "v,y\n";
  for (int i = 0; i < 30; ++i) typo += (i == 7 ? std::string("1.2.3") : std::to_string(i)) + ",0\n";
  CHECK_THROWS_WITH_AS(data::fit_encoding(read_raw(typo), data::EncodingOptions()),
                       doctest::Contains("'1.2.3' is not a number, but 29 of its 30 values are"), InputError);

  data::Dataset gap = read_raw("v,y\n1,0\n,1\n");
  CHECK_THROWS_WITH_AS(data::apply_encoding(data::FeatureEncoding(), gap),
                       doctest::Contains("column 'v', data row 2: the value is missing, and the model was trained on numbers only"),
                       InputError);
}

TEST_CASE("a model trained on raw rows keeps its encoding in the file and predicts from raw rows") {
  const data::Dataset raw = read_raw(port_table());
  model::Config config;
  config.data.folds = 0;
  config.data.rare_level_rows = 5;
  config.stopping.max_nodes = 4;
  config.trainer.threads = 1;
  config.backend.kind = model::BackendKind::cpu;
  const model::TrainResult result = model::train(raw, config);
  const model::Network& net = result.network;
  REQUIRE(net.encoding.columns.size() == 2);
  CHECK(net.inputs == 5);

  const model::Network loaded = model::parse_network(model::serialize_network(net).data(),
                                                     model::serialize_network(net).size(), "m.rbfn");
  CHECK(loaded.encoding.feature_names() == net.feature_names);
  CHECK(loaded.encoding.columns[1].fill == net.encoding.columns[1].fill);

  // The same rows with the columns swapped, read by name, predict the same.
  data::Dataset a = read_raw("port,age,y\nA,25,0\nB,,0\n");
  data::Dataset b = read_raw("age,port,y\n25,A,0\n,B,0\n");
  data::apply_encoding(loaded.encoding, a);
  data::apply_encoding(loaded.encoding, b);
  std::vector<double> pa, pb;
  loaded.predict(a.x.data(), a.rows, pa);
  loaded.predict(b.x.data(), b.rows, pb);
  CHECK(pa == pb);
  CHECK(std::isfinite(pa[1]));

  model::Network broken = net;
  broken.encoding.columns[0].levels.pop_back();
  CHECK_THROWS_WITH_AS(model::serialize_network(broken), doctest::Contains("the encoding does not make the model's features"),
                       RuntimeError);
}
