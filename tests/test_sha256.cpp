// Tests of SHA-256: the FIPS 180 test vectors, split updates, and hashing files.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "data/errors.hpp"
#include "model/sha256.hpp"
#include "tests/model_file_test_support.hpp"

using namespace rbf::test::model_files;

TEST_SUITE("sha256") {
  TEST_CASE("FIPS 180 test vectors") {
    CHECK(sha_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha_hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(sha_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(sha_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
                  "klmnopqrlmnopqrsmnopqrstnopqrstu") ==
          "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");

    const std::string million(1000000, 'a');
    CHECK(sha_hex(million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    // Odd-sized pieces cross every block boundary position.
    rbf::model::Sha256 pieces;
    for (std::size_t pos = 0, step = 1; pos < million.size(); pos += step, step = step % 97 + 1) {
      pieces.update(million.data() + pos, std::min(step, million.size() - pos));
    }
    CHECK(pieces.hex_digest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  }

  TEST_CASE("split updates agree with one update and digest() can be repeated") {
    std::string text;
    for (int i = 0; i < 200; ++i) text.push_back(char(i * 37 + 11));
    const std::string whole = sha_hex(text);
    for (std::size_t split = 0; split <= text.size(); ++split) {
      rbf::model::Sha256 h;
      h.update(text.data(), split);
      h.update(text.data() + split, text.size() - split);
      REQUIRE(h.hex_digest() == whole);
      REQUIRE(h.hex_digest() == whole);
    }
  }

  TEST_CASE("hashing files") {
    TempDir dir;
    const std::string path = dir.file("data.csv");
    write_bytes(path, Bytes{'a', 'b', 'c'});
    CHECK(rbf::model::sha256_file_hex(path) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    write_bytes(path, Bytes(200000, 'a'));
    CHECK(rbf::model::sha256_file_hex(path) == sha_hex(std::string(200000, 'a')));

    const std::string missing = dir.file("missing.csv");
    CHECK_THROWS_WITH_AS(rbf::model::sha256_file_hex(missing), doctest::Contains(missing.c_str()), InputError);
    CHECK_THROWS_WITH_AS(rbf::model::sha256_file_hex(dir.path()), doctest::Contains(dir.path().c_str()), InputError);
  }
}
