// Provenance records for newly trained models.
#include "model/provenance.hpp"

#include <ctime>

#include "model/config_yaml.hpp"

namespace rbf::model {

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Provenance training_provenance(const Config& config, const std::string& data_file, const std::string& data_sha256) {
  Provenance provenance;
  provenance.rbfnet_version = RBF_VERSION;
  provenance.data_file = data_file;
  provenance.data_sha256 = data_sha256;
  provenance.config_yaml = config_to_yaml(config);
  provenance.created_utc = utc_now_iso8601();
  return provenance;
}

}  // namespace rbf::model
