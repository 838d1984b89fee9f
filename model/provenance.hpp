// Where a model came from: the provenance record a training front end stamps on a new model.
#pragma once

#include <string>

#include "model/config.hpp"
#include "model/network.hpp"

namespace rbf::model {

// The current time as ISO 8601 UTC, e.g. "2024-05-01T12:00:00Z".
std::string utc_now_iso8601();

// This build's version, the data's name and digest (either may be empty), the effective
// configuration as YAML and the time now; the backend is left for the trainer to fill in.
Provenance training_provenance(const Config& config, const std::string& data_file, const std::string& data_sha256);

}  // namespace rbf::model
