// libFuzzer target for the CSV reader: any bytes either read into a consistent Dataset or
// fail with rbf::InputError; anything else (a crash, another exception, a leak) is a bug.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "data/csv_reader.hpp"
#include "data/errors.hpp"
#include "fuzz/fuzz_check.hpp"

namespace rbf::fuzz {
namespace {

// The reader's options come from one byte taken from the END of the input, so the seeds
// (whole CSV files) keep their text and the fuzzer still explores every option.
struct CsvCase {
  data::CsvOptions options;
  data::ColumnSpec columns;
  data::TaskHint task = data::TaskHint::auto_detect;
};

CsvCase decode_options(std::uint8_t bits) {
  static const char kDelimiters[] = {0, ',', ';', '\t'};
  static const data::TaskHint kTasks[] = {data::TaskHint::auto_detect, data::TaskHint::regression,
                                          data::TaskHint::classification, data::TaskHint::auto_detect};
  CsvCase c;
  c.options.delimiter = kDelimiters[bits & 3];
  c.options.skip_rows = (bits >> 2) & 1;
  c.task = kTasks[(bits >> 3) & 3];
  // Columns: none (features only, as `rbfnet predict` reads), a target by index or by a name
  // the seeds use, two targets, explicit features.
  static const data::ColumnSpec kColumns[8] = {{{}, {}},       {{"0"}, {}},        {{"1"}, {}},
                                               {{"y"}, {}},    {{"0", "1"}, {}},   {{"species"}, {}},
                                               {{"0"}, {"1"}}, {{"2"}, {"1", "0"}}};
  c.columns = kColumns[bits >> 5];
  return c;
}

void check_dataset(const data::Dataset& ds, const CsvCase& c) {
  require(ds.rows >= 1, "an accepted file has at least one data row");
  require(ds.features >= 1, "an accepted file has at least one feature");
  require(ds.features == ds.feature_names.size(), "one name per feature");
  require(ds.targets == ds.target_names.size(), "one name per target");
  require(ds.targets == c.columns.targets.size(), "the targets asked for");
  require(ds.x.size() == ds.rows * ds.features, "x is rows x features");
  require(ds.y.size() == ds.rows * ds.targets, "y is rows x targets");
  for (const double v : ds.x) require(std::isfinite(v), "every feature value is finite");
  for (const double v : ds.y) require(std::isfinite(v), "every target value is finite");
  if (ds.task == data::Task::classification) {
    require(ds.targets == 1, "class labels come from exactly one target column");
    require(!ds.class_names.empty(), "a classification target has classes");
    for (const double v : ds.y) {
      require(v >= 0 && v < static_cast<double>(ds.class_names.size()) && v == std::floor(v),
              "every class index names a class");
    }
  } else {
    require(ds.class_names.empty(), "regression has no class names");
    require(c.task != data::TaskHint::classification || ds.targets == 0, "a classification request gives classes");
  }
}

}  // namespace
}  // namespace rbf::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider input(data, size);
  const rbf::fuzz::CsvCase c = rbf::fuzz::decode_options(input.ConsumeIntegral<std::uint8_t>());
  const std::string text = input.ConsumeRemainingBytesAsString();
  try {
    const rbf::data::Dataset ds = rbf::data::parse_csv(text, "fuzz.csv", c.options, c.columns, c.task);
    rbf::fuzz::check_dataset(ds, c);
  } catch (const rbf::InputError&) {
    // The expected way to refuse bad input; any other exception escapes and is reported.
  }
  return 0;
}
