// Where an HTTP/1.1 request ends in the bytes received so far, checked against size limits before
// any parser sees it: the guarded server (guarded_server.hpp) reads whole requests itself, without
// a thread per connection, and hands only complete ones to cpp-httplib.
#pragma once

#include <cstddef>
#include <string_view>

namespace gpufl::http {

struct HeadLimits {
  size_t request_line_bytes = 2048;  // longer: 414 URI Too Long
  size_t header_bytes = 8192;        // request line and headers together; more: 431
  size_t body_bytes = 4096;          // a larger Content-Length: 413 Content Too Large
};

struct HeadScan {
  enum class State {
    Incomplete,  // more bytes needed
    Complete,    // a whole request (head and body) is at the start of the buffer
    Reject,      // answer `status` and close: the request is over a limit or cannot be framed
  };
  State state = State::Incomplete;
  int status = 0;           // Reject: 400, 413, 414, 431 or 501
  const char* reason = "";  // Reject: why, for the response body
  size_t head_bytes = 0;    // Complete: request line and headers, blank line included
  size_t body_bytes = 0;    // Complete: the Content-Length
  size_t total() const { return head_bytes + body_bytes; }
};

// Looks at the bytes of one request (and possibly the start of the next, pipelined) received so
// far. The head ends at the first empty line (CRLF CRLF, or LF LF, which the parser then refuses).
// A body is framed by Content-Length only: Transfer-Encoding is refused (501), as are two differing
// Content-Lengths or one that is not a number (400).
HeadScan scanRequestHead(std::string_view bytes, const HeadLimits& limits);

}  // namespace gpufl::http
