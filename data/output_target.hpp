// Where an output file really goes: symlinks followed, devices and standard streams written in
// place, and every check that can fail made before any work starts.
#pragma once

#include <string>

namespace rbf::data {

struct OutputTarget {
  std::string path;       // as the user named it, for messages
  std::string resolved;   // the last symlink followed: the file that is replaced
  bool exists = false;    // `resolved` exists now
  bool in_place = false;  // a character device, a FIFO or a standard stream: written, never replaced
  int stream_fd = -1;     // /dev/stdout, /dev/stderr, /dev/fd/N: write to this descriptor
};

// Follows `path`'s symlinks (a link is kept and its target replaced) and classifies what it
// names. Throws rbf::InputError, naming `what` ("--out"), when `path` is empty, a directory,
// a block device or a socket, when its folder is missing or not writable, or when the name
// plus the temporary suffix ".tmp-PID" is longer than the file system allows.
OutputTarget resolve_output(const std::string& path, const std::string& what);

// The folder part of `path` ("." for a bare name, "/" for a file at the root).
std::string directory_of(const std::string& path);

// The temporary file beside `target` that an atomic replacement writes first.
std::string temporary_path(const OutputTarget& target);

// Removes "<resolved>.tmp-PID" files left by processes that no longer run (a save killed
// with SIGKILL), so they do not pile up beside the output.
void remove_stale_temporaries(const OutputTarget& target);

}  // namespace rbf::data
