// Tests of the Markdown flags table (rbfnet help COMMAND --markdown): the config key and
// default taken from the help text's bracket, brackets inside a default, switches, flags
// without a key, and '|' kept inside its cell.
#include <doctest/doctest.h>

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "app/flags_markdown.hpp"
#include "tests/text_checks.hpp"

using rbf::test::contains;

TEST_CASE("flags table: one row per flag with its key, default and meaning") {
  CLI::App app("test", "test");
  std::vector<std::string> a, b, c;
  bool quiet = false;
  std::string out = "bench-out";
  app.add_option("--nodes", a, "Maximum Gaussian nodes, >= 1 [stopping.max_nodes, default 300]")->type_name("M");
  app.add_option("--widths", b, "Width factors [candidates.width_factors, default [0.5, 1, 2]]")->type_name("F,...");
  app.add_option("--data", c, "Training CSV file [data.path]")->type_name("FILE");
  app.add_flag("--quiet", quiet, "No progress line [logging.progress = false]");
  app.add_option("--out", out, "Folder | plots")->type_name("DIR")->capture_default_str();
  const std::string table = rbf::app::flags_markdown(app);
  CHECK(contains(table, "| flag | config key | default | meaning |\n|---|---|---|---|\n"));
  CHECK(contains(table, "| `--nodes M` | `stopping.max_nodes` | `300` | Maximum Gaussian nodes, >= 1 |\n"));
  CHECK(contains(table, "| `--widths F,...` | `candidates.width_factors` | `[0.5, 1, 2]` | Width factors |\n"));
  CHECK(contains(table, "| `--data FILE` | `data.path` |  | Training CSV file |\n"));
  CHECK(contains(table, "| `--quiet` | `logging.progress` = `false` |  | No progress line |\n"));
  CHECK(contains(table, "| `--out DIR` |  | `bench-out` | Folder \\| plots |\n"));
  CHECK_FALSE(contains(table, "--help"));
}

TEST_CASE("flags table: a bracket that names no key stays in the meaning") {
  CLI::App app("test", "test");
  std::string v;
  app.add_option("--keep,--id", v, "Copy columns [names or indices]")->type_name("COL");
  const std::string table = rbf::app::flags_markdown(app);
  CHECK(contains(table, "| `--keep COL`, `--id COL` |  |  | Copy columns [names or indices] |\n"));
}
