// Folders for output files: creating a folder and its parents.
#pragma once

#include <string>

namespace rbf::data {

// Creates the folder `path` and any missing parents, like `mkdir -p` (mode 0755 before the
// umask); a folder that already exists is fine. `what` names the folder in messages. Throws
// rbf::InputError "cannot create the output folder 'out/a': Not a directory" naming the first
// folder that cannot be made, or "... 'out': it exists and is not a folder".
void make_directories(const std::string& path, const std::string& what);

}  // namespace rbf::data
