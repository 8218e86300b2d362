#include "http/request_head.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <optional>

namespace gpufl::http {
namespace {

bool sameNoCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

HeadScan reject(int status, const char* reason) {
  HeadScan r;
  r.state = HeadScan::State::Reject;
  r.status = status;
  r.reason = reason;
  return r;
}

// The end of the head: just past the first empty line; npos while there is none.
size_t headEnd(std::string_view bytes) {
  for (size_t nl = bytes.find('\n'); nl != std::string_view::npos; nl = bytes.find('\n', nl + 1)) {
    const size_t next = nl + 1;
    if (next < bytes.size() && bytes[next] == '\n') return next + 1;
    if (next + 1 < bytes.size() && bytes[next] == '\r' && bytes[next + 1] == '\n') return next + 2;
  }
  return std::string_view::npos;
}

}  // namespace

HeadScan scanRequestHead(std::string_view bytes, const HeadLimits& limits) {
  const size_t first_nl = bytes.find('\n');
  const size_t line_bytes = first_nl == std::string_view::npos ? bytes.size() : first_nl;
  if (line_bytes > limits.request_line_bytes) return reject(414, "request line too long");
  const size_t end = headEnd(bytes);
  if (end == std::string_view::npos) {
    if (bytes.size() > limits.header_bytes) return reject(431, "request header fields too large");
    return {};
  }
  if (end > limits.header_bytes) return reject(431, "request header fields too large");

  std::optional<uint64_t> length;
  std::string_view head = bytes.substr(0, end);
  for (size_t at = first_nl + 1; at < head.size();) {
    size_t nl = head.find('\n', at);
    if (nl == std::string_view::npos) nl = head.size();
    const std::string_view line = head.substr(at, nl - at);
    at = nl + 1;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;  // the parser decides about such a line
    const std::string_view name = line.substr(0, colon), value = trim(line.substr(colon + 1));
    if (sameNoCase(name, "transfer-encoding"))
      return reject(501, "Transfer-Encoding is not supported; send a Content-Length");
    if (!sameNoCase(name, "content-length")) continue;
    if (value.empty() || value.size() > 18 ||
        !std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return reject(400, "Content-Length is not a number");
    uint64_t n = 0;
    for (char c : value) n = n * 10 + static_cast<uint64_t>(c - '0');
    if (length && *length != n) return reject(400, "two different Content-Lengths");
    length = n;
  }
  if (length && *length > limits.body_bytes) return reject(413, "request body too large");

  HeadScan r;
  r.head_bytes = end;
  r.body_bytes = static_cast<size_t>(length.value_or(0));
  r.state = bytes.size() >= r.total() ? HeadScan::State::Complete : HeadScan::State::Incomplete;
  return r;
}

}  // namespace gpufl::http
