// `train --resume`: the resumed run must solve the problem the checkpoint was solving.
#pragma once

#include <string>

#include "model/config.hpp"

namespace rbf::app {

// Throws rbf::InputError (exit 2) when a setting that defines the problem (targets, features,
// task, split, CSV reading, candidate pool) differs from the checkpoint's, naming the flag and
// both values, e.g. "--target differs from the checkpoint 'm.ckpt': it was [y] and is [z] now".
void check_resume_matches(const std::string& checkpoint, const model::Config& saved, const model::Config& now);

// Throws rbf::InputError naming both files when the data's SHA-256 differs from the one the
// checkpoint recorded (an empty recorded hash, from an old checkpoint, is not checked).
void check_resumed_data(const std::string& checkpoint, const std::string& saved_file, const std::string& data_file,
                        const std::string& saved_sha256, const std::string& data_sha256);

}  // namespace rbf::app
