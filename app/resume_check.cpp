// Comparing a resumed run's problem definition with its checkpoint's, key by key.
#include "app/resume_check.hpp"

#include "data/errors.hpp"
#include "model/config_yaml.hpp"

namespace rbf::app {

namespace {

struct ProblemKey {
  const char* key;
  const char* flag;
};

// The resume contract: what makes two runs the same problem, and so may not change. Everything
// else (stopping, refinement, the arithmetic's backend, threads, logging, outputs) may, and
// applies from the resumed iteration on.
const ProblemKey kProblemKeys[] = {
    {"data.target", "--target"},         {"data.features", "--features"}, {"data.task", "--task"},
    {"data.validation", "--validation"}, {"data.seed", "--seed"},         {"data.delimiter", "--delimiter"},
    {"data.skip_rows", "--skip-rows"},   {"candidates.pool", "--pool"},
    {"data.stratify", "data.stratify"},  {"data.validation_path", "--validation-data"},
    // The encoding makes the features the nodes live among.
    {"data.categorical", "--categorical"}, {"data.missing", "--missing"},
    {"data.rare_level_rows", "data.rare_level_rows"}, {"data.max_levels", "data.max_levels"},
    // The saved nodes' widths are indices into the candidates' widths: other widths would
    // silently re-width every saved node (or make one dependent on the others).
    {"candidates.sigma0", "--sigma"},    {"candidates.width_factors", "--widths"},
    {"candidates.sigma0_sample", "candidates.sigma0_sample"},
    // The nodes were grown on what the linear terms leave: they are part of the problem.
    {"trainer.linear_terms", "--linear-terms"},
    // The weights decide which rows the nodes were chosen to fit (and which rows count at all).
    {"data.weight", "--weight"},
};

}  // namespace

void check_resume_matches(const std::string& checkpoint, const model::Config& saved, const model::Config& now) {
  for (const ProblemKey& k : kProblemKeys) {
    const std::string before = model::config_value_to_yaml(saved, k.key);
    const std::string after = model::config_value_to_yaml(now, k.key);
    if (before == after) continue;
    throw InputError(std::string(k.flag) + " (" + k.key + ") differs from the checkpoint '" + checkpoint +
                     "': it was " + before + " there and is " + after +
                     " now; a resumed run must solve the same problem, so drop the flag or start a new run");
  }
}

void check_resumed_data(const std::string& checkpoint, const std::string& saved_file, const std::string& data_file,
                        const std::string& saved_sha256, const std::string& data_sha256) {
  if (saved_sha256.empty() || saved_sha256 == data_sha256) return;
  throw InputError("the data file '" + data_file + "' differs from '" + saved_file + "', the data the checkpoint '" +
                   checkpoint + "' was trained on (their SHA-256 differ); resume with the same data");
}

}  // namespace rbf::app
