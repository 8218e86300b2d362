// Short kernel names that stay distinct: one shortener for every table and legend (the text
// report, the Python analyzer's tables, the plot legends).
//
// Shortening names one at a time makes siblings collide: six cuBLAS `sm80_xmma_gemm_..._cublas`
// variants or a dozen `at::native::multi_tensor_apply_kernel<...>` instantiations all become the
// same head...tail. Shortening them as a set keeps, in each name, the words that tell it apart from
// its siblings (template arguments, tile sizes, layouts) and elides the words they share.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpufl::report {

struct ShortNameOptions {
  // What stands in for elided words. One column; pass "..." for pure ASCII output.
  std::string ellipsis = "\xE2\x80\xA6";  // U+2026
};

// The narrowest width shortNames honours; a smaller width is raised to this.
inline constexpr std::size_t kMinShortNameWidth = 8;

// Short forms of `names` (mangled or demangled kernel names), in the same order:
//  - each is the readable form (core/demangle: no return type, parameters or ABI tags) when it and
//    every other name of its family (names sharing the first word of the function's own name) fit
//    in `width` display columns; when one does not, the family loses its leading namespaces
//    (`at::native::`), and names still too wide have words elided, an elided run shown as one
//    ellipsis, keeping first the words that tell the name from its siblings, then the head of the
//    function's own name, then the other words that vary in the family (rarest first), then the
//    rest left to right;
//  - every result fits in max(width, kMinShortNameWidth) columns;
//  - distinct inputs give distinct results (a numeric `~2` suffix is the last resort, e.g. for
//    overloads that differ only in their parameters); equal inputs give equal results.
std::vector<std::string> shortNames(const std::vector<std::string>& names, std::size_t width,
                                    const ShortNameOptions& options = {});

// The short names of kernels shown together (one table, one section): shortNames over the whole
// set, so that names that differ stay different; ASCII ("..."). A name not in the set is shortened
// alone (format.hpp: shortenKernelName).
class KernelNames {
 public:
  // `whole`: the readable names uncut (report --wide), whatever `width` says.
  KernelNames(const std::vector<std::string>& names, size_t width, bool whole = false);
  std::string operator()(const std::string& name) const;

 private:
  size_t width_;
  std::map<std::string, std::string> short_;
};

}  // namespace gpufl::report
