// Uses the installed rbfnet library: loads a model file, predicts the classes of a labelled CSV
// file and checks the training accuracy, as a program of a user's own would.
//   rbfnet_consumer MODEL DATA.csv TARGET MIN_ACCURACY
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "data/csv_reader.hpp"
#include "data/errors.hpp"
#include "model/model_file.hpp"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: rbfnet_consumer MODEL DATA.csv TARGET MIN_ACCURACY\n");
    return 2;
  }
  try {
    const rbf::model::Network net = rbf::model::load_network(argv[1]);
    if (net.task != rbf::data::Task::classification) {
      std::fprintf(stderr, "%s is not a classifier\n", argv[1]);
      return 1;
    }
    rbf::data::ColumnSpec columns;
    columns.targets = {argv[3]};
    columns.features = net.feature_names;
    const rbf::data::Dataset ds =
        rbf::data::read_csv(argv[2], rbf::data::CsvOptions{}, columns, rbf::data::TaskHint::classification);
    const std::vector<std::size_t> predicted = net.predict_classes(ds.x.data(), ds.rows);
    std::size_t right = 0;
    for (std::size_t i = 0; i < ds.rows; ++i) {
      const std::string& truth = ds.class_names[static_cast<std::size_t>(ds.y[i])];
      if (net.class_names[predicted[i]] == truth) ++right;
    }
    const double accuracy = ds.rows ? double(right) / double(ds.rows) : 0.0;
    std::printf("model by rbfnet %s, library %s: %zu nodes, accuracy %.4f on %zu rows\n",
                net.provenance.rbfnet_version.c_str(), RBF_VERSION, net.nodes(), accuracy, ds.rows);
    if (net.provenance.rbfnet_version != RBF_VERSION) {
      std::fprintf(stderr, "the model was written by rbfnet %s, the library is %s\n",
                   net.provenance.rbfnet_version.c_str(), RBF_VERSION);
      return 1;
    }
    return accuracy >= std::atof(argv[4]) ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rbfnet_consumer: %s\n", e.what());
    return 1;
  }
}
