#include "core/demangle.hpp"

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

namespace gpufl {
namespace {

bool startsWith(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}
bool endsWith(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}
bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

// The qualified name at the start of a mangled name, read without the demangler: `_Z3foo...` or
// `_ZN<len><id>[B<len><tag>]...E...`. Used when __cxa_demangle rejects a name (e.g. a malformed
// Numba ABI tag).
std::optional<std::string> plainNestedName(std::string_view m) {
  if (!startsWith(m, "_Z")) return std::nullopt;
  size_t i = 2;
  const bool nested = i < m.size() && m[i] == 'N';
  if (nested) ++i;
  while (nested && i < m.size() && (m[i] == 'K' || m[i] == 'V' || m[i] == 'r')) ++i;
  std::string out;
  auto readSource = [&](std::string_view* text) {
    size_t len = 0, start = i;
    while (i < m.size() && std::isdigit(static_cast<unsigned char>(m[i])))
      len = len * 10 + (m[i++] - '0');
    if (i == start || len == 0 || len > m.size() - i) return false;
    *text = m.substr(i, len);
    i += len;
    return true;
  };
  while (i < m.size()) {
    std::string_view part;
    if (std::isdigit(static_cast<unsigned char>(m[i]))) {
      if (!readSource(&part)) break;
      if (!out.empty()) out += "::";
      out.append(part);
      if (!nested) break;
    } else if (m[i] == 'B' &&
               nested) {  // ABI tag: skip (a bad length still leaves the name read so far)
      ++i;
      if (!readSource(&part)) break;
    } else {
      break;  // 'E', template args, substitutions, parameters: the plain prefix ends here
    }
  }
  if (out.empty()) return std::nullopt;
  return out;
}

void eraseAll(std::string& s, std::string_view what) {
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p))
    s.erase(p, what.size());
}

// Removes every `[abi:...]` tag; returns true when one looks like Numba's (`[abi:v1]`).
bool stripAbiTags(std::string& s) {
  bool numba = false;
  for (size_t p = s.find("[abi:"); p != std::string::npos; p = s.find("[abi:", p)) {
    size_t close = s.find(']', p);
    if (close == std::string::npos) break;
    std::string_view tag(s.data() + p + 5, close - p - 5);
    if (tag.size() >= 2 && tag[0] == 'v' && std::isdigit(static_cast<unsigned char>(tag[1])))
      numba = true;
    s.erase(p, close - p + 1);
  }
  return numba;
}

// Length of the operator symbol after `operator` at s[i] (e.g. 2 for `operator()`), 0 when s[i] is
// not one.
size_t operatorSymbolLength(std::string_view s, size_t i) {
  constexpr std::string_view kWord = "operator";
  if (s.compare(i, kWord.size(), kWord) != 0 || (i > 0 && isIdentChar(s[i - 1]))) return 0;
  size_t j = i + kWord.size();
  if (s.compare(j, 2, "()") == 0 || s.compare(j, 2, "[]") == 0) return kWord.size() + 2;
  size_t k = j;
  while (k < s.size() && std::string_view("<>=!+-*/%&|^~,").find(s[k]) != std::string_view::npos)
    ++k;
  return k > j ? k - i : 0;
}

// Drops trailing cv/ref qualifiers and the final parenthesised parameter list.
void stripParameters(std::string& s) {
  for (bool again = true; again;) {
    again = false;
    for (std::string_view q : {" const", " volatile", " &&", " &", " noexcept"}) {
      if (endsWith(s, q)) {
        s.resize(s.size() - q.size());
        again = true;
      }
    }
  }
  if (s.empty() || s.back() != ')') return;
  int depth = 0;
  for (size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) {
      if (i >= 8 && s.compare(i - 8, 8, "operator") == 0)
        return;  // `operator()` itself, no parameter list
      s.resize(i);
      return;
    }
  }
}

// Drops a leading return type: everything up to the last space outside brackets.
void stripReturnType(std::string& s) {
  int depth = 0;
  size_t last_space = std::string::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    if (size_t op = operatorSymbolLength(s, i)) {
      i += op - 1;
      continue;
    }
    char c = s[i];
    if (c == '<' || c == '(' || c == '[' || c == '{') ++depth;
    if ((c == '>' || c == ')' || c == ']' || c == '}') && depth > 0) --depth;
    if (c == ' ' && depth == 0 && !endsWith(std::string_view(s).substr(0, i), "operator"))
      last_space = i;
  }
  if (last_space != std::string::npos) s.erase(0, last_space + 1);
}

// Numba: `cudapy::` prefix (old releases), `$N` uniquifier suffixes, `_XX` hex escapes of
// characters that are not valid in identifiers (`_3clocals_3e` -> `<locals>`).
void cleanNumba(std::string& s) {
  if (startsWith(s, "cudapy::")) s.erase(0, 8);
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '$' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
      while (i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1]))) ++i;
      continue;
    }
    if (s[i] == '_' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      int code = std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16);
      if (code >= 0x20 && code < 0x7f && !isIdentChar(static_cast<char>(code))) {
        out += static_cast<char>(code);
        i += 2;
        continue;
      }
    }
    out += s[i];
  }
  s = std::move(out);
}

// Rewrites template arguments: depth limit, namespace stripping inside arguments, `> >` -> `>>`.
// Inside template arguments a qualified name keeps its last component (`at::native::Copy<float>` ->
// `Copy<float>`), except that a lambda keeps its enclosing function without parameters
// (`f<A>(int)::{lambda(int)#1}` -> `f<A>::{lambda(int)#1}`).
std::string simplifyTemplates(std::string_view s, const ReadableNameOptions& opt) {
  struct Frame {
    char open;
    size_t open_pos;           // position of the bracket in `out`
    size_t outer_ident_start;  // ident_start to restore when the bracket closes
  };
  std::vector<Frame> stack;
  std::string out;
  int depth = 0;           // template-argument depth
  size_t ident_start = 0;  // where the current qualified identifier began in `out`
  const bool strip = opt.strip_argument_namespaces;
  auto scopeFollows = [&](size_t i) { return s.compare(i + 1, 2, "::") == 0; };
  for (size_t i = 0; i < s.size(); ++i) {
    if (size_t op = operatorSymbolLength(s, i)) {
      if (depth <= opt.max_template_depth) out.append(s.substr(i, op));
      i += op - 1;
      continue;
    }
    const char c = s[i];
    if (c == '<') {
      ++depth;
      stack.push_back({'<', out.size(), ident_start});
      if (depth == opt.max_template_depth + 1) out += "<...";
      if (depth <= opt.max_template_depth) out += c;
      ident_start = out.size();
      continue;
    }
    if (c == '>' && !stack.empty() && stack.back().open == '<') {
      if (depth <= opt.max_template_depth + 1) {
        if (endsWith(out, " ")) out.pop_back();
        out += '>';
      }
      ident_start = stack.back().outer_ident_start;
      stack.pop_back();
      --depth;
      continue;
    }
    if (depth > opt.max_template_depth) continue;
    if (c == '(') {
      stack.push_back({'(', out.size(), ident_start});
      out += c;
      ident_start = out.size();
      continue;
    }
    if (c == ')' && !stack.empty() && stack.back().open == '(') {
      Frame frame = stack.back();
      stack.pop_back();
      ident_start = frame.outer_ident_start;
      if (depth > 0 && strip &&
          scopeFollows(i)) {  // enclosing function of a local entity: drop its parameters
        out.resize(frame.open_pos);
        out += "::";
        i += 2;
        continue;
      }
      out += c;
      continue;
    }
    if (depth > 0 && strip && s.compare(i, 2, "::") == 0) {
      out.resize(ident_start);
      ++i;
      continue;
    }
    out += c;
    if (!isIdentChar(c) && c != ':') ident_start = out.size();
  }
  return out;
}

// Shortens an over-long name by dropping trailing top-level template arguments.
void limitLength(std::string& s, std::size_t max_length) {
  if (s.size() <= max_length) return;
  size_t open = s.find('<');
  if (open == std::string::npos) return;
  std::string best = s.substr(0, open) + "<...>";
  int depth = 0;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '<' || s[i] == '(' || s[i] == '{') ++depth;
    if (s[i] == '>' || s[i] == ')' || s[i] == '}') --depth;
    if (depth == 1 && s[i] == ',') {
      std::string candidate = s.substr(0, i) + ", ...>";
      if (candidate.size() > max_length) break;
      best = std::move(candidate);
    }
  }
  s = std::move(best);
}

}  // namespace

std::string demangle(std::string_view mangled) {
  if (!startsWith(mangled, "_Z")) return std::string(mangled);
  std::string input(mangled);  // __cxa_demangle needs a terminated string
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> result(
      abi::__cxa_demangle(input.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || !result) return input;
  return std::string(result.get());
}

std::string readableKernelName(std::string_view name, const ReadableNameOptions& options) {
  std::string s;
  if (startsWith(name, "_Z")) {
    s = demangle(name);
    if (s == name) {
      auto plain = plainNestedName(name);
      if (!plain) return s;
      s = std::move(*plain);
    }
  } else {
    s = std::string(name);
  }
  eraseAll(s, "(anonymous namespace)::");
  bool numba = stripAbiTags(s);
  stripParameters(s);
  stripReturnType(s);
  if (numba || startsWith(s, "cudapy::")) cleanNumba(s);
  s = simplifyTemplates(s, options);
  limitLength(s, options.max_length);
  return s;
}

}  // namespace gpufl
