// Model file internals shared by its reader, writer and file entry points: the format's constants.
// The layout is documented in docs/MODEL_FORMAT.md; keep the two in step. The model file's code:
//   model_file.cpp         save_network and load_network: files, atomic writing
//   model_file_writer.cpp  serialization (serialize_network)
//   model_file_reader.cpp  parsing and checking the bytes, with their error messages (parse_network)
//   model_file_check.cpp   a network's consistency, refused by both writer and reader (find_network_problem)
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "model/network.hpp"
#include "model/sha256.hpp"

namespace rbf::model::detail {

static_assert(std::numeric_limits<double>::is_iec559, "model files store IEEE 754 binary64 doubles bit for bit");

// "\x89RBFN\r\n\x1a": the high byte catches 7-bit transfers, CR LF catches newline
// conversion, 0x1a stops `type` on Windows (the PNG signature's reasoning).
inline constexpr std::uint8_t kMagic[8] = {0x89, 'R', 'B', 'F', 'N', '\r', '\n', 0x1a};
inline constexpr std::size_t kHeaderBytes = 24;  // magic, major, minor, file size
inline constexpr std::size_t kTrailerBytes = Sha256::kDigestBytes;
inline constexpr std::size_t kSectionHeaderBytes = 16;  // tag, flags, payload length
inline constexpr std::uint32_t kSectionRequired = 1;

inline constexpr char kTagMeta[] = "META";
inline constexpr char kTagNames[] = "NAME";
inline constexpr char kTagXScaler[] = "XSCL";
inline constexpr char kTagYScaler[] = "YSCL";
inline constexpr char kTagNodes[] = "NODE";
inline constexpr char kTagProvenance[] = "PROV";
inline constexpr char kTagTrainingState[] = "TRNS";  // optional: checkpoints only
// Only in models with linear terms, and then required: a reader that skipped it would
// predict without them, so builds from before it refuse such a file instead.
inline constexpr char kTagLinear[] = "LINR";
// The minor version of a file with linear terms; one without is written as before, byte for byte.
inline constexpr std::uint32_t kModelFormatMinorLinear = 1;
// Optional: a classifier's probability scale (Network::proba_scale). Older builds skip it and
// give clipped scores as probabilities; the predicted classes are the same either way.
inline constexpr char kTagProbability[] = "PROB";
inline constexpr std::uint32_t kModelFormatMinorProbability = 2;

// Only in models trained on raw tabular data, and then required: a reader that skipped it
// would read the raw columns as the encoded features.
inline constexpr char kTagEncoding[] = "ENCD";
inline constexpr std::uint32_t kModelFormatMinorEncoding = 3;

// Only in partitioned models (Network::parts), and then required: the partition, then each
// part as a whole model file of its own (length, bytes).
inline constexpr char kTagParts[] = "PART";
inline constexpr std::uint32_t kModelFormatMinorParts = 4;
inline constexpr std::uint64_t kMaxModelParts = 65536;

inline constexpr std::uint32_t kTaskRegression = 0;
inline constexpr std::uint32_t kTaskClassification = 1;

// The bytes of a network find_network_problem has accepted (model_file_writer.cpp).
std::vector<std::uint8_t> serialize_unchecked(const Network& net);

// Checks the header and size of a file of `file_size` bytes whose first `head_size` bytes
// (at most kHeaderBytes) are `head`; throws InputError naming `name` (model_file_reader.cpp).
void check_envelope(const std::uint8_t* head, std::size_t head_size, std::uint64_t file_size, const std::string& name);

}  // namespace rbf::model::detail
