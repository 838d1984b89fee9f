// Appends a second file's rows, matching class labels by name.
#include "data/dataset_append.hpp"

#include <map>
#include <string>

#include "data/errors.hpp"

namespace rbf::data {

namespace {

// The text columns of both files, by feature: `more` was read with into's text columns as text.
void append_text_features(Dataset& into, const Dataset& more) {
  for (const TextFeature& extra : more.text_features) {
    TextFeature* target = nullptr;
    for (TextFeature& t : into.text_features)
      if (t.feature == extra.feature) target = &t;
    if (!target)
      throw InputError(more.source + ": column '" + more.feature_names[extra.feature] +
                       "' holds text, but in the training data " + into.source + " it holds numbers");
    target->cells.insert(target->cells.end(), extra.cells.begin(), extra.cells.end());
  }
}

}  // namespace

void append_rows(Dataset& into, const Dataset& more) {
  append_text_features(into, more);
  into.x.insert(into.x.end(), more.x.begin(), more.x.end());
  if (into.task == Task::classification) {
    // Each file numbers its classes by its own sorted labels: translate by name.
    std::map<std::string, std::size_t> index;
    for (std::size_t c = 0; c < into.class_names.size(); ++c) index[into.class_names[c]] = c;
    for (std::size_t i = 0; i < more.rows; ++i) {
      const std::string& label = more.class_names[static_cast<std::size_t>(more.y[i])];
      const auto found = index.find(label);
      if (found == index.end())
        throw InputError(more.source + ": class '" + label + "' in target column '" + more.target_names[0] +
                         "' (data row " + std::to_string(i + 1) + ") does not occur in the training data " +
                         into.source);
      into.y.push_back(static_cast<double>(found->second));
    }
  } else {
    into.y.insert(into.y.end(), more.y.begin(), more.y.end());
  }
  // Both files were read with the same columns, so both have a weight column or neither.
  into.weights.insert(into.weights.end(), more.weights.begin(), more.weights.end());
  into.rows += more.rows;
}

}  // namespace rbf::data
