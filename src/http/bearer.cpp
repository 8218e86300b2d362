#include "http/bearer.hpp"

namespace gpufl::http {

bool bearerMatches(const std::string& authorization, const std::string& token) {
  const std::string want = "Bearer " + token;
  unsigned char diff = authorization.size() == want.size() ? 0 : 1;
  for (size_t i = 0; i < want.size(); ++i)
    diff |= static_cast<unsigned char>(want[i] ^ (i < authorization.size() ? authorization[i] : 0));
  return diff == 0;
}

}  // namespace gpufl::http
