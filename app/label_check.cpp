// Detects integer class labels that were read as a regression target.
#include "app/label_check.hpp"

#include <cmath>
#include <set>

#include "data/text.hpp"

namespace rbf::app {

std::string integer_label_warning(const data::Dataset& ds) {
  if (ds.task != data::Task::regression || ds.targets != 1 || ds.rows < 4) return "";
  std::set<double> values;
  for (double v : ds.y) {
    if (v != std::floor(v)) return "";
    values.insert(v);
    if (values.size() > kMaxLabelValues) return "";
  }
  // Two values in four rows is as likely a coarse measurement as a label; ask for repetition.
  if (values.size() < 2 || values.size() * 2 > ds.rows) return "";
  std::string listed;
  for (double v : values) listed += (listed.empty() ? "" : ", ") + data::round_trip_text(v);
  return "target column '" + ds.target_names[0] + "' holds only " + std::to_string(values.size()) +
         " distinct integer values (" + listed +
         ") and is trained as regression; if they are class labels, give --task classification "
         "(or --task regression to keep regression and silence this warning)";
}

}  // namespace rbf::app
