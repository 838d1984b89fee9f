// SHA-256 (FIPS 180-4) for model-file checksums and training-data provenance hashes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace rbf::model {

class Sha256 {
 public:
  static constexpr std::size_t kDigestBytes = 32;
  using Digest = std::array<std::uint8_t, kDigestBytes>;

  Sha256();

  // Appends `len` bytes; may be called any number of times, also after digest().
  void update(const void* data, std::size_t len);
  void update(const std::string& text) { update(text.data(), text.size()); }

  // The digest of everything passed to update() so far. Finalizes a copy of the state,
  // so the object stays usable and repeated calls agree.
  Digest digest() const;
  // The digest as 64 lowercase hex characters.
  std::string hex_digest() const;

 private:
  void compress(const std::uint8_t* block);

  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;       // bytes waiting in buffer_
  std::uint64_t total_bytes_ = 0;  // message length so far
};

// Lowercase hex of `digest`.
std::string to_hex(const Sha256::Digest& digest);

// Hex SHA-256 of a file's bytes, read in chunks so large CSVs never sit in memory.
// Throws rbf::InputError naming `path` when it cannot be opened or read.
std::string sha256_file_hex(const std::string& path);

}  // namespace rbf::model
