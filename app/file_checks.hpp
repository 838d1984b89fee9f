// Early checks of the files named on the command line, so a typo in a path is reported before
// any work starts (and before a GPU is initialized).
#pragma once

#include <string>

namespace rbf::app {

// Throws rbf::InputError "data file 'x.csv' does not exist" (or is a directory, or cannot be
// read); `what` names the role of the file ("data file", "model file"). "-" (standard
// input) always passes.
void require_readable_file(const std::string& path, const std::string& what);

// "-" names standard input on the command line: the path that reads it ("/dev/stdin", which
// read_input_file treats as the pipe or file it is). Any other path is returned unchanged.
std::string input_path(const std::string& given);
// How messages name that input: "standard input" for "-", else the path.
std::string input_name(const std::string& given);

}  // namespace rbf::app
