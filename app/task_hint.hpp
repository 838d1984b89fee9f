// The CSV reader's task hint for the configured task (data/ cannot see model::TaskKind).
#pragma once

#include "data/csv_reader.hpp"
#include "model/config.hpp"

namespace rbf::app {

inline data::TaskHint task_hint(model::TaskKind task) {
  switch (task) {
    case model::TaskKind::regression: return data::TaskHint::regression;
    case model::TaskKind::classification: return data::TaskHint::classification;
    case model::TaskKind::auto_detect: break;
  }
  return data::TaskHint::auto_detect;
}

}  // namespace rbf::app
