// Early checks of the files named on the command line, so a typo in a path is reported before
// any work starts (and before a GPU is initialized).
#pragma once

#include <string>

namespace rbf::app {

// Throws rbf::InputError "data file 'x.csv' does not exist" (or is a directory, or cannot be
// read); `what` names the role of the file ("data file", "model file").
void require_readable_file(const std::string& path, const std::string& what);

}  // namespace rbf::app
