// Text encoding of the trainer's progress for checkpoints, strict on reading.
#include "model/training_state.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "data/errors.hpp"
#include "data/text.hpp"

namespace rbf::model {

namespace {

// Version 2 adds the refinement fields and the closing "end"; version 1 is still read.
constexpr const char* kHeader = "rbfnet-training-state 2";
constexpr const char* kHeaderV1 = "rbfnet-training-state 1";

// Counts as integers, reals as the shortest text that reads back exactly (data/text.hpp).
std::string text_of(std::size_t value) { return std::to_string(value); }
std::string text_of(double value) { return data::round_trip_text(value); }

template <typename V>
void put_list(std::ostringstream& out, const char* key, const std::vector<V>& values) {
  out << key << ' ' << values.size();
  for (const V& v : values) out << ' ' << text_of(v);
  out << '\n';
}

// Reads "key value..." lines in a fixed order, each checked.
class StateReader {
 public:
  StateReader(const std::string& text, const std::string& name) : in_(text), name_(name) {}

  // Returns the version.
  int expect_header() {
    std::string line;
    if (std::getline(in_, line) && line == kHeader) return 2;
    if (line == kHeaderV1) return 1;
    fail("it is not an rbfnet training state");
  }
  void key(const char* expected) {
    std::string k;
    if (!(in_ >> k) || k != expected) fail(std::string("field '") + expected + "' is missing");
    current_ = expected;
  }
  std::size_t count(std::size_t limit) {
    unsigned long long v = 0;
    if (!(in_ >> v) || v > limit) fail("'" + current_ + "' is not a count up to " + std::to_string(limit));
    return static_cast<std::size_t>(v);
  }
  double real() {
    std::string token;
    if (!(in_ >> token)) fail("'" + current_ + "' is missing a number");
    char* end = nullptr;
    const double v = std::strtod(token.c_str(), &end);
    if (!end || *end != '\0' || !std::isfinite(v)) fail("'" + current_ + "' holds '" + token + "', not a finite number");
    return v;
  }
  // Reads the next key into `k`; false at the end of the text.
  bool next_key(std::string& k) {
    if (!(in_ >> k)) return false;
    current_ = k;
    return true;
  }
  std::string word() {
    std::string token;
    if (!(in_ >> token)) fail("'" + current_ + "' is missing");
    return token;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(name_ + ": invalid checkpoint (" + what + ")");
  }

 private:
  std::istringstream in_;
  std::string name_;
  std::string current_;
};

constexpr std::size_t kLimit = std::size_t(1) << 32;

}  // namespace

std::string encode_training_state(const TrainingState& s) {
  std::ostringstream out;
  out << kHeader << '\n';
  out << "iteration " << s.iteration << '\n';
  put_list(out, "chosen", s.chosen);
  put_list(out, "skipped", s.skipped);
  out << "best_nodes " << s.best_nodes << '\n';
  out << "since_best " << s.since_best << '\n';
  out << "best_val_rmse " << text_of(s.best_val_rmse) << '\n';
  out << "best_val_accuracy " << text_of(s.best_val_accuracy) << '\n';
  put_list(out, "train_rmse_at", s.train_rmse_at);
  out << "elapsed_seconds " << text_of(s.elapsed_seconds) << '\n';
  out << "candidates " << s.candidates << '\n';
  out << "data_sha256 " << (s.data_sha256.empty() ? "-" : s.data_sha256) << '\n';
  if (!s.node_widths.empty()) {
    put_list(out, "node_centers", s.node_centers);
    put_list(out, "node_widths", s.node_widths);
  }
  if (s.best_snapshot_nodes > 0) {
    out << "best_snapshot_nodes " << s.best_snapshot_nodes << '\n';
    put_list(out, "best_snapshot", s.best_snapshot);
    out << "best_snapshot_train_rmse " << text_of(s.best_snapshot_train_rmse) << '\n';
  }
  out << "grown_since_refine " << s.grown_since_refine << '\n';
  out << "end\n";  // optional fields precede it; a state cut short lacks it
  return out.str();
}

TrainingState decode_training_state(const std::string& text, const std::string& name) {
  StateReader r(text, name);
  TrainingState s;
  const int version = r.expect_header();
  r.key("iteration");
  s.iteration = r.count(kLimit);
  r.key("chosen");
  s.chosen.resize(r.count(text.size()));  // each listed number takes 2+ characters
  for (auto& c : s.chosen) c = r.count(kLimit);
  r.key("skipped");
  s.skipped.resize(r.count(text.size()));
  for (auto& c : s.skipped) c = r.count(kLimit);
  r.key("best_nodes");
  s.best_nodes = r.count(kLimit);
  r.key("since_best");
  s.since_best = r.count(kLimit);
  r.key("best_val_rmse");
  s.best_val_rmse = r.real();
  r.key("best_val_accuracy");
  s.best_val_accuracy = r.real();
  r.key("train_rmse_at");
  s.train_rmse_at.resize(r.count(text.size()));
  for (auto& v : s.train_rmse_at) v = r.real();
  r.key("elapsed_seconds");
  s.elapsed_seconds = r.real();
  r.key("candidates");
  s.candidates = r.count(kLimit);
  r.key("data_sha256");
  s.data_sha256 = r.word();
  if (s.data_sha256 == "-") s.data_sha256.clear();
  // Optional fields (refinement), in any order, then "end".
  std::string name_read;
  while (version >= 2) {
    if (!r.next_key(name_read)) r.fail("it ends before its 'end' line");
    if (name_read == "end") break;
    if (name_read == "node_centers") {
      s.node_centers.resize(r.count(text.size()));
      for (auto& v : s.node_centers) v = r.real();
      r.key("node_widths");
      s.node_widths.resize(r.count(text.size()));
      for (auto& v : s.node_widths) {
        v = r.real();
        if (!(v > 0)) r.fail("a node width is not positive");
      }
      if (s.node_widths.size() != s.chosen.size()) r.fail("node_widths does not match the nodes chosen");
    } else if (name_read == "best_snapshot_nodes") {
      s.best_snapshot_nodes = r.count(kLimit);
      if (s.best_snapshot_nodes == 0) r.fail("best_snapshot_nodes is 0");
      r.key("best_snapshot");
      s.best_snapshot.resize(r.count(text.size()));
      for (auto& v : s.best_snapshot) v = r.real();
      r.key("best_snapshot_train_rmse");
      s.best_snapshot_train_rmse = r.real();
    } else if (name_read == "grown_since_refine") {
      s.grown_since_refine = r.count(kLimit);
    } else {
      r.fail("unknown field '" + name_read + "'");
    }
  }

  if (s.best_nodes > s.chosen.size()) r.fail("best_nodes exceeds the nodes chosen");
  if (s.train_rmse_at.size() != s.chosen.size() + 1) r.fail("train_rmse_at does not match the nodes chosen");
  if (s.iteration < s.chosen.size() + s.skipped.size()) r.fail("iteration is smaller than the nodes tried");
  for (std::size_t c : s.chosen)
    if (c >= s.candidates) r.fail("a chosen candidate is outside the pool");
  for (std::size_t c : s.skipped)
    if (c >= s.candidates) r.fail("a skipped candidate is outside the pool");
  return s;
}

}  // namespace rbf::model
