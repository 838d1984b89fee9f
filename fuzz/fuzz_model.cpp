// libFuzzer target for the model reader: any bytes either load into a consistent Network that
// predicts and re-serializes bit for bit, or fail with rbf::InputError.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "data/errors.hpp"
#include "fuzz/fuzz_check.hpp"
#include "model/model_file.hpp"
#include "model/sha256.hpp"

namespace rbf::fuzz {
namespace {

constexpr std::uint8_t kMagic[8] = {0x89, 'R', 'B', 'F', 'N', '\r', '\n', 0x1a};
constexpr std::size_t kSizeOffset = 16;
constexpr std::size_t kHeaderBytes = 24;
constexpr std::size_t kTrailerBytes = model::Sha256::kDigestBytes;

void parse_and_check(const std::uint8_t* data, std::size_t size) {
  model::Network net;
  try {
    net = model::parse_network(data, size, "fuzz.rbfn");
  } catch (const rbf::InputError&) {
    return;  // the expected way to refuse bad input; any other exception is reported
  }
  require(model::find_network_problem(net).empty(), "a loaded network is consistent");
  const std::vector<std::uint8_t> bytes = model::serialize_network(net);
  const model::Network again = model::parse_network(bytes.data(), bytes.size(), "round-trip.rbfn");
  require(model::serialize_network(again) == bytes, "a loaded network re-serializes bit for bit");
  // Predicting reads every array with the sizes the header claimed: any mismatch the reader
  // let through shows up here as an out-of-bounds read.
  const std::vector<double> row(net.inputs, 0.5);
  std::vector<double> out;
  try {
    net.predict(row.data(), 1, out);
  } catch (const rbf::InputError& e) {
    // A valid file's weights may still overflow (1e308 x 2): the one refusal predict makes,
    // instead of an inf or a NaN passed off as a prediction.
    require(std::string(e.what()).find("not a finite number") != std::string::npos, "predict refuses only overflow");
    return;
  }
  require(out.size() == net.outputs, "one prediction per output");
  for (const double v : out) require(std::isfinite(v), "a prediction is finite or refused");
}

}  // namespace
}  // namespace rbf::fuzz

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rbf::fuzz;
  // As given: the envelope checks (magic, size, checksum) see every mutation.
  parse_and_check(data, size);
  // Repaired: the same bytes with the magic, the size field and the SHA-256 trailer made
  // right, so that mutations reach the section parser instead of failing the checksum.
  if (size < kHeaderBytes + kTrailerBytes) return 0;
  std::vector<std::uint8_t> fixed(data, data + size);
  std::memcpy(fixed.data(), kMagic, sizeof kMagic);
  for (std::size_t i = 0; i < 8; ++i) fixed[kSizeOffset + i] = std::uint8_t(std::uint64_t(size) >> (8 * i));
  rbf::model::Sha256 hash;
  hash.update(fixed.data(), size - kTrailerBytes);
  const rbf::model::Sha256::Digest digest = hash.digest();
  std::copy(digest.begin(), digest.end(), fixed.end() - static_cast<std::ptrdiff_t>(kTrailerBytes));
  if (!std::equal(fixed.begin(), fixed.end(), data)) parse_and_check(fixed.data(), size);
  return 0;
}
