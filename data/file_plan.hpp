// The files one command reads and writes, checked together before any work starts, so that
// no output can overwrite an input or another output.
#pragma once

#include <string>
#include <vector>

#include "data/output_target.hpp"

namespace rbf::data {

class FilePlan {
 public:
  // Registers a file the command reads; `role` names it in messages ("--data").
  // `replaced_by` names the one output role allowed to be the same file: a checkpoint that
  // is resumed, read whole, and then updated in place by the continuing run.
  void input(const std::string& path, const std::string& role, const std::string& replaced_by = "");
  // Registers a file the command writes and checks it can be written (resolve_output).
  // Throws rbf::InputError when it is the same file as a registered input or output, e.g.
  // "--out 'train.csv' is the same file as --data 'train.csv'; choose another output name".
  OutputTarget output(const std::string& path, const std::string& role);

 private:
  struct Entry {
    std::string path;
    std::string role;
    bool output = false;
    bool known_inode = false;  // the file exists: compare device and inode
    unsigned long long device = 0, inode = 0;
    std::string where;  // otherwise: the absolute path it would be created at
    bool shared = false;  // a character device or stream (/dev/null twice is harmless)
    std::string replaced_by;
  };
  void add(Entry entry);
  std::vector<Entry> entries_;
};

}  // namespace rbf::data
