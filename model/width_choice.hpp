// The width factors chosen on the validation rows, for data too large to cross-validate but
// small enough to grow twice: each width set grown once on the same split, the better kept.
#pragma once

#include <cstddef>

#include "data/dataset.hpp"
#include "model/config.hpp"
#include "model/cross_validation.hpp"
#include "model/trainer.hpp"

namespace rbf::model {

// Up to this much work (model_selection_work: rows x candidates), data.folds auto chooses the
// width set on the held-out rows when it does not cross-validate: two float64 growths cost at
// this limit about what cross-validation's ten and a final growth cost at its own.
constexpr double kWidthChoiceMaxWork = 8e7;

// Whether this run grows each of cross_validation_width_sets once and keeps the one with the
// lower validation error: data.folds auto not cross-validating (`folds` is 0), at most
// kWidthChoiceMaxWork, more than one width factor, validation rows to choose by, and no
// setting that needs a single growth (a resumed run, checkpoints, refinement, a time limit).
bool chooses_widths_on_validation(const data::Dataset& dataset, const Config& config, const TrainOptions& options,
                                  std::size_t folds);

namespace detail {

// Grows `config` once per width set on the same held-out rows and returns the growth with
// the lower validation RMSE (the first on a tie), its events saying what was compared; the
// chosen widths go to `chosen`. The growths' iterations reach options.on_fold_iteration as
// they happen, and the kept growth's are then replayed to options.on_iteration. A stop
// during either growth returns an interrupted result with nothing to save.
TrainResult train_choosing_widths(const data::Dataset& dataset, const Config& config, const TrainOptions& options,
                                  const GrowFunction& grow, Config& chosen);

}  // namespace detail
}  // namespace rbf::model
