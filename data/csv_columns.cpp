// Turns ColumnSpec names/indices into per-column roles, with messages that list the header.
#include "data/csv_columns.hpp"

#include <algorithm>

#include "data/closest_match.hpp"
#include "data/csv_messages.hpp"

namespace rbf::data {

namespace {

constexpr std::size_t kNotFound = static_cast<std::size_t>(-1);

// The header's names for a message, cut short on very wide files.
std::string list_names(const std::vector<std::string>& header) {
  constexpr std::size_t kMaxListed = 12;
  std::string out;
  for (std::size_t i = 0; i < header.size() && i < kMaxListed; ++i) {
    if (i > 0) out += ", ";
    out += quote_for_message(header[i]);
  }
  if (header.size() > kMaxListed) out += ", ... (" + std::to_string(header.size()) + " in all)";
  return out;
}

bool all_digits(const std::string& text) {
  return !text.empty() && text.size() <= 18 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::size_t resolve(const std::string& spec, const char* what, const std::vector<std::string>& header,
                    const std::string& file, std::size_t header_line) {
  const auto found = std::find(header.begin(), header.end(), spec);
  if (found != header.end()) return static_cast<std::size_t>(found - header.begin());
  // "-1" is the last column, "-2" the one before, as Python counts from the end.
  const bool from_end = spec.size() > 1 && spec[0] == '-' && all_digits(spec.substr(1));
  if (from_end) {
    const std::size_t back = std::stoull(spec.substr(1));
    if (back >= 1 && back <= header.size()) return header.size() - back;
  }
  if (all_digits(spec) || from_end) {
    const std::size_t index = from_end ? header.size() : std::stoull(spec);
    if (index < header.size()) return index;
    throw csv_error(file, header_line,
                    std::string(what) + " column index " + spec + " is out of range: the header has " +
                        std::to_string(header.size()) + " columns (indices 0 to " + std::to_string(header.size() - 1) +
                        ", or -1 to -" + std::to_string(header.size()) + " from the end)");
  }
  const std::string near = closest_match(spec, header);
  const std::string hint = near.empty() ? std::string() : " (did you mean " + quote_for_message(near) + "?)";
  throw csv_error(file, header_line,
                  std::string("unknown ") + what + " column " + quote_for_message(spec) + hint +
                      ": the header has no such name (columns: " + list_names(header) + ")");
}

const char* role_name(ColumnRole role) {
  switch (role) {
    case ColumnRole::target: return "target";
    case ColumnRole::feature: return "feature";
    case ColumnRole::weight: return "weight";
    case ColumnRole::ignored: break;
  }
  return "ignored";
}

}  // namespace

ColumnPlan plan_columns(const std::vector<std::string>& header, const ColumnSpec& columns, const std::string& file,
                        std::size_t header_line) {
  ColumnPlan plan;
  plan.role.assign(header.size(), ColumnRole::ignored);
  plan.slot.assign(header.size(), kNotFound);

  const auto claim = [&](const std::string& spec, ColumnRole role, const char* what) {
    const std::size_t index = resolve(spec, what, header, file, header_line);
    if (plan.role[index] != ColumnRole::ignored) {
      const bool same_role = plan.role[index] == role;
      throw csv_error(file, header_line,
                      column_label(index, header[index]) +
                          (same_role ? std::string(" is given twice as a ") + what + " column"
                                     : std::string(" is given both as a ") + role_name(plan.role[index]) +
                                           " and as a " + what + " column"));
    }
    plan.role[index] = role;
    if (role == ColumnRole::weight) {
      plan.weight_column = index;
      return;
    }
    auto& list = role == ColumnRole::target ? plan.target_columns : plan.feature_columns;
    plan.slot[index] = list.size();
    list.push_back(index);
  };

  for (const auto& spec : columns.targets) claim(spec, ColumnRole::target, "target");
  if (!columns.weight.empty()) claim(columns.weight, ColumnRole::weight, "weight");
  if (columns.features.empty()) {
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (plan.role[i] == ColumnRole::ignored) {
        plan.role[i] = ColumnRole::feature;
        plan.slot[i] = plan.feature_columns.size();
        plan.feature_columns.push_back(i);
      }
    }
  } else {
    for (const auto& spec : columns.features) claim(spec, ColumnRole::feature, "feature");
  }
  if (plan.feature_columns.empty()) {
    throw csv_error(
        file, header_line,
        "no feature columns are left: the header's " + std::to_string(header.size()) + " column(s) are all targets");
  }
  return plan;
}

}  // namespace rbf::data
