#include "report/text/short_names.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_map>

#include "core/demangle.hpp"
#include "report/text/format.hpp"

namespace gpufl::report {
namespace {

// A name cut into words ([A-Za-z0-9]+) and separators (`_`, `::`, brackets, spaces, ...). Words
// are what the shortener keeps or elides; separators go with them.
struct Atom {
  std::string text;
  int word = -1;           // word id (shared by equal words across names); -1: a separator
  bool own_name = false;   // part of the function's own name (top level, not a qualifier)
  bool qualifier = false;  // a namespace or class the function is declared in
};

struct Parsed {
  std::string readable;
  std::vector<Atom> atoms;
  std::vector<int> words;  // distinct word ids, sorted
  int family = -1;         // word id of the first word of the function's own name
};

// Identifiers inside template arguments up to this length are one word.
constexpr size_t kWholeIdentifier = 20;

bool isWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}
bool opens(char c) {
  return c == '<' || c == '(' || c == '{' || c == '[';
}
bool closes(char c) {
  return c == '>' || c == ')' || c == '}' || c == ']';
}

// Every word kept: whole template arguments, namespaces inside them stripped (they repeat the
// kernel's own namespace and make names long without telling them apart).
std::string readableForm(const std::string& name) {
  ReadableNameOptions whole;
  whole.max_template_depth = 1000;
  whole.strip_argument_namespaces = true;
  whole.max_length = std::string::npos;
  return readableKernelName(name, whole);
}

Parsed parse(const std::string& name, std::unordered_map<std::string, int>& ids) {
  Parsed p;
  p.readable = readableForm(name);
  const std::string& s = p.readable;
  std::vector<int> depth_of;  // bracket depth of each atom
  int depth = 0;
  for (size_t i = 0; i < s.size();) {
    // The function's own name splits at `_` (`sm80_xmma_gemm_..._tilesize64x64x8_...`: its parts
    // are what variants differ in); an identifier inside template arguments stays whole
    // (`func_wrapper_t`, `normal_and_transform`: a fragment would read as noise) unless it is
    // long enough to be a name of that kind itself (`cutlass_80_simt_sgemm_64x64_8x5_tn_align1`).
    if (isWordChar(s[i]) || s[i] == '_') {
      size_t ident = i;
      while (ident < s.size() && (isWordChar(s[ident]) || s[ident] == '_')) ++ident;
      const bool whole = depth > 0 && ident - i <= kWholeIdentifier;
      size_t j = i;
      while (j < s.size() && (isWordChar(s[j]) || (whole && s[j] == '_'))) ++j;
      if (j == i) {  // a `_` between words of a split identifier: a separator
        p.atoms.push_back({"_"});
        depth_of.push_back(depth);
        ++i;
        continue;
      }
      std::string w = s.substr(i, j - i);
      auto [it, fresh] = ids.try_emplace(w, static_cast<int>(ids.size()));
      p.atoms.push_back({std::move(w), it->second});
      depth_of.push_back(depth);
      i = j;
      continue;
    }
    size_t len = s.compare(i, 2, "::") == 0 ? 2 : 1;
    if (opens(s[i])) ++depth;
    if (closes(s[i]) && depth > 0) --depth;
    p.atoms.push_back({s.substr(i, len)});
    depth_of.push_back(depth);
    i += len;
  }
  // Top-level identifiers (words joined by `_`): one followed by `::` (after its own template
  // arguments, if any) is a qualifier; the others are the function's own name.
  const size_t n = p.atoms.size();
  for (size_t i = 0; i < n;) {
    if (p.atoms[i].word < 0 || depth_of[i] != 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < n && (p.atoms[j].word >= 0 || p.atoms[j].text == "_")) ++j;
    size_t k = j;
    if (k < n && p.atoms[k].text == "<") {  // skip the identifier's template arguments
      int d = 0;
      for (; k < n; ++k) {
        if (p.atoms[k].text == "<") ++d;
        if (p.atoms[k].text == ">" && --d == 0) {
          ++k;
          break;
        }
      }
    }
    const bool qualifier = k < n && p.atoms[k].text == "::";
    for (size_t a = i; a < j; ++a) {
      if (p.atoms[a].word < 0) continue;
      p.atoms[a].qualifier = qualifier;
      p.atoms[a].own_name = !qualifier;
      if (!qualifier && p.family < 0) p.family = p.atoms[a].word;
    }
    i = j;
  }
  if (p.family < 0) {  // no own name at top level (a lambda's): the last qualifier stands for it
    for (auto it = p.atoms.rbegin(); it != p.atoms.rend(); ++it)
      if (it->qualifier) {
        p.family = it->word;
        break;
      }
  }
  for (const Atom& a : p.atoms)
    if (a.word >= 0) p.words.push_back(a.word);
  std::sort(p.words.begin(), p.words.end());
  p.words.erase(std::unique(p.words.begin(), p.words.end()), p.words.end());
  return p;
}

// Words of the function's own name offered right after the distinguishing ones.
constexpr size_t kHeadWords = 3;

bool has(const std::vector<int>& sorted, int w) {
  return std::binary_search(sorted.begin(), sorted.end(), w);
}

// Names sharing the first word of their own name, and what is counted once for all of them.
struct Family {
  std::vector<const Parsed*> members;
  std::unordered_map<int, size_t> having;  // word -> members with it
  bool shortened = false;                  // some member is wider than the width
};

// The words of `self` that tell it apart from the other members of its family, fewest first: a
// greedy set cover (each chosen word is absent from as many not-yet-distinguished siblings as
// possible; ties go to the function's own name, then to the earlier word). `same`: members with
// the readable form of `self` (itself included), which no word tells apart.
std::vector<int> distinguishingWords(const Parsed& self, const Family& family, size_t same) {
  std::vector<int> chosen;
  std::vector<const Parsed*> open;  // filled after the first choice; before it, every other member
  bool first = true;
  const size_t others = family.members.size() - same;
  while (first ? others > 0 : !open.empty()) {
    int best = -1;
    size_t best_count = 0;
    bool best_own = false;
    for (const Atom& a : self.atoms) {
      if (a.word < 0 || std::find(chosen.begin(), chosen.end(), a.word) != chosen.end()) continue;
      size_t count = 0;
      if (first) {  // from the family's counts: the members lacking the word
        count = others - (family.having.at(a.word) - same);
      } else {
        for (const Parsed* other : open) count += has(other->words, a.word) ? 0 : 1;
      }
      if (count > best_count || (count == best_count && count > 0 && a.own_name && !best_own)) {
        best = a.word;
        best_count = count;
        best_own = a.own_name;
      }
    }
    if (best < 0) break;  // the rest share every word of `self` (same words, another order)
    chosen.push_back(best);
    if (first) {
      for (const Parsed* other : family.members)
        if (other->readable != self.readable && has(other->words, best)) open.push_back(other);
      first = false;
    } else {
      std::erase_if(open, [&](const Parsed* other) { return !has(other->words, best); });
    }
  }
  return chosen;
}

// The words of `self` that some member lacks, the rarest in the family first (ties: earlier word).
std::vector<int> varyingWords(const Parsed& self, const Family& family) {
  std::vector<std::pair<size_t, int>> counted;  // (members having the word, word)
  std::vector<int> seen;
  for (const Atom& a : self.atoms) {
    if (a.word < 0 || std::find(seen.begin(), seen.end(), a.word) != seen.end()) continue;
    seen.push_back(a.word);
    size_t having = family.having.at(a.word);
    if (having < family.members.size()) counted.emplace_back(having, a.word);
  }
  std::stable_sort(counted.begin(), counted.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<int> words;
  for (const auto& [having, word] : counted) words.push_back(word);
  return words;
}

// The name with only the `kept` words: a run of atoms holding an elided word becomes one ellipsis
// (after any opening brackets it starts with, so `kernel<…` still reads as a template); a leading
// run of only qualifiers (`at::native::`) is dropped without a mark.
std::string render(const Parsed& p, const std::vector<bool>& kept, const std::string& ellipsis) {
  std::string out;
  std::string gap;        // separators since the last kept word, while nothing was elided
  std::string gap_opens;  // the opening brackets that start the current gap
  bool elided = false, elided_only_qualifiers = true, leading = true, gap_opening = true;
  auto flush = [&](bool at_end) {
    if (!elided) {
      out += gap;
    } else if (!(leading && elided_only_qualifiers && !at_end)) {
      out += gap_opens;
      out += ellipsis;
    }
    gap.clear();
    gap_opens.clear();
    elided = false;
    elided_only_qualifiers = true;
    gap_opening = true;
  };
  for (size_t i = 0; i < p.atoms.size(); ++i) {
    const Atom& a = p.atoms[i];
    if (a.word >= 0 && kept[i]) {
      flush(false);
      leading = false;
      out += a.text;
      continue;
    }
    if (a.word >= 0) {
      elided = true;
      elided_only_qualifiers = elided_only_qualifiers && a.qualifier;
      gap_opening = false;
      continue;
    }
    gap += a.text;
    if (gap_opening && !leading && a.text.size() == 1 && opens(a.text[0])) {
      gap_opens += a.text;
    } else {
      gap_opening = false;
    }
  }
  flush(true);
  return out;
}

// The first `width` columns of `s` (whole UTF-8 code points).
std::string cutToWidth(const std::string& s, size_t width) {
  size_t cols = 0, i = 0;
  for (; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (cols == width) break;
    ++cols;
  }
  return s.substr(0, i);
}

std::string shortenOne(const Parsed& p, const Family& family, size_t same, size_t width,
                       const std::string& ellipsis) {
  // A family shortened anywhere drops its leading qualifiers everywhere, so that siblings read
  // alike.
  if (!family.shortened) return p.readable;
  // Atom indices in the order they are offered a place.
  std::vector<size_t> order;
  std::vector<bool> offered(p.atoms.size(), false);
  auto offer = [&](size_t i) {
    if (!offered[i]) {
      offered[i] = true;
      order.push_back(i);
    }
  };
  auto offerFirst = [&](int word) {
    for (size_t i = 0; i < p.atoms.size(); ++i)
      if (p.atoms[i].word == word) return offer(i);
  };
  // 1. The fewest words that tell this name from each sibling.
  for (int w : distinguishingWords(p, family, same)) offerFirst(w);
  // 2. The head of the function's own name (`sm80_xmma_gemm`, `multi_tensor_apply`).
  size_t head = 0;
  for (size_t i = 0; i < p.atoms.size() && head < kHeadWords; ++i)
    if (p.atoms[i].own_name) {
      offer(i);
      ++head;
    }
  // 3. The other words that vary within the family, rarest first (tile sizes, functors).
  for (int w : varyingWords(p, family)) offerFirst(w);
  // 4. The rest of the own name, then template arguments; each left to right.
  for (size_t i = 0; i < p.atoms.size(); ++i)
    if (p.atoms[i].own_name) offer(i);
  for (size_t i = 0; i < p.atoms.size(); ++i)
    if (p.atoms[i].word >= 0 && !p.atoms[i].qualifier) offer(i);

  std::vector<bool> kept(p.atoms.size(), false);
  for (size_t i = 0; i < p.atoms.size(); ++i)
    kept[i] = p.atoms[i].word >= 0 && !p.atoms[i].qualifier;
  if (displayWidth(render(p, kept, ellipsis)) <= width) return render(p, kept, ellipsis);
  std::fill(kept.begin(), kept.end(), false);
  bool any = false;
  for (size_t i : order) {
    kept[i] = true;
    if (displayWidth(render(p, kept, ellipsis)) <= width) {
      any = true;
    } else {
      kept[i] = false;
    }
  }
  if (!any) return cutToWidth(p.readable, width - displayWidth(ellipsis)) + ellipsis;
  return render(p, kept, ellipsis);
}

}  // namespace

std::vector<std::string> shortNames(const std::vector<std::string>& names, std::size_t width,
                                    const ShortNameOptions& options) {
  width = std::max(width, kMinShortNameWidth);
  // Distinct inputs, parsed once; equal inputs share a result.
  std::unordered_map<std::string, size_t> index;
  std::vector<size_t> slot(names.size());
  std::vector<Parsed> parsed;
  std::unordered_map<std::string, int> ids;
  for (size_t i = 0; i < names.size(); ++i) {
    auto [it, fresh] = index.try_emplace(names[i], parsed.size());
    if (fresh) parsed.push_back(parse(names[i], ids));
    slot[i] = it->second;
  }
  std::unordered_map<int, Family> families;
  std::unordered_map<std::string_view, size_t> same;  // readable form -> distinct inputs with it
  for (const Parsed& p : parsed) {
    Family& f = families[p.family];
    f.members.push_back(&p);
    for (int w : p.words) ++f.having[w];
    f.shortened = f.shortened || displayWidth(p.readable) > width;
    ++same[p.readable];
  }

  std::vector<std::string> shortened(parsed.size());
  for (size_t u = 0; u < parsed.size(); ++u)
    shortened[u] = shortenOne(parsed[u], families[parsed[u].family], same[parsed[u].readable],
                              width, options.ellipsis);

  // Last resort for names that still coincide: a numeric suffix, in input order.
  std::set<std::string> taken;
  for (size_t u = 0; u < parsed.size(); ++u) {
    std::string s = shortened[u];
    for (int k = 2; !taken.insert(s).second; ++k) {
      std::string suffix = "~";
      suffix += std::to_string(k);
      std::string base = shortened[u];
      if (displayWidth(base) + suffix.size() > width)
        base = cutToWidth(base, width - suffix.size());
      s = base + suffix;
    }
    shortened[u] = s;
  }
  std::vector<std::string> out;
  out.reserve(names.size());
  for (size_t i = 0; i < names.size(); ++i) out.push_back(shortened[slot[i]]);
  return out;
}

KernelNames::KernelNames(const std::vector<std::string>& names, size_t width, bool whole)
    : width_(whole ? std::string::npos : width) {
  if (whole) {
    for (const std::string& name : names) short_.emplace(name, shortenKernelName(name, width_));
    return;
  }
  ShortNameOptions ascii;
  ascii.ellipsis = "...";
  const std::vector<std::string> shorts = shortNames(names, width, ascii);
  for (size_t i = 0; i < names.size(); ++i) short_.emplace(names[i], shorts[i]);
}

std::string KernelNames::operator()(const std::string& name) const {
  auto it = short_.find(name);
  return it != short_.end() ? it->second : shortenKernelName(name, width_);
}

}  // namespace gpufl::report
