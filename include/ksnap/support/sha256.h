// ksnap support: SHA-256 (FIPS 180-4), for the HTML report's
// Content-Security-Policy hashes of its own script and style.
//
// xxHash (hash.h) is fast but not cryptographic: a CSP hash must be SHA-256,
// -384 or -512. This is the plain one-shot algorithm, checked against the
// FIPS 180-4 example vectors (tests/support/sha256_test.cc).
//
// Worked example:
//   sha256_hex("abc") ==
//     "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
//   sha256_base64("")  == "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace ksnap {

/// The 32-byte SHA-256 digest of `data`.
std::array<uint8_t, 32> sha256(std::string_view data);

/// The digest as 64 lowercase hex digits.
std::string sha256_hex(std::string_view data);

/// The digest in standard base64 with padding (44 characters), as a CSP
/// source expression 'sha256-<base64>' spells it.
std::string sha256_base64(std::string_view data);

}  // namespace ksnap
