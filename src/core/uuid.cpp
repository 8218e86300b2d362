#include "core/uuid.hpp"

#include <sys/random.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <random>

#include "core/clock.hpp"

namespace gpufl::core {
namespace {

void randomBytes(uint8_t (&out)[16]) {
  size_t got = 0;
  while (got < sizeof(out)) {
    ssize_t n = getrandom(out + got, sizeof(out) - got, 0);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  if (got == sizeof(out)) return;
  // Fallback: random_device mixed with time and pid, so two processes never share an id by
  // accident.
  std::random_device rd;
  std::seed_seq seq{rd(),
                    rd(),
                    rd(),
                    rd(),
                    static_cast<unsigned>(monotonicNs()),
                    static_cast<unsigned>(unixNs()),
                    static_cast<unsigned>(getpid())};
  uint32_t words[4];
  seq.generate(words, words + 4);
  std::memcpy(out, words, sizeof(out));
}

constexpr char kHex[] = "0123456789abcdef";

}  // namespace

std::string uuidV4() {
  uint8_t b[16];
  randomBytes(b);
  b[6] = static_cast<uint8_t>((b[6] & 0x0f) | 0x40);  // version 4
  b[8] = static_cast<uint8_t>((b[8] & 0x3f) | 0x80);  // variant 10xx
  std::string s;
  s.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s.push_back('-');
    s.push_back(kHex[b[i] >> 4]);
    s.push_back(kHex[b[i] & 0xf]);
  }
  return s;
}

std::string sidOf(std::string_view uuid) {
  return std::string(uuid.substr(0, 8));
}

bool isUuid(std::string_view s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
      return false;
    }
  }
  return true;
}

}  // namespace gpufl::core
