// Kernel names for people: the full demangled form (kernel_def.demangled) and a short form for
// report tables.
//
// Runs on the writer thread (demangling allocates); never call it from a CUPTI callback or an app
// thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace gpufl {

// The Itanium-ABI demangling of `mangled` (abi::__cxa_demangle). Returns the input unchanged when
// it is not a mangled name (e.g. an `extern "C"` kernel) or cannot be demangled.
std::string demangle(std::string_view mangled);

struct ReadableNameOptions {
  // Template argument lists nested deeper than this are shown as `<...>` (1 = only the kernel's own
  // arguments).
  int max_template_depth = 2;
  // Inside template arguments, `a::b::Name` is shortened to `Name`.
  bool strip_argument_namespaces = true;
  // A result longer than this has its trailing template arguments replaced by `...`.
  std::size_t max_length = 100;
};

// A short name for tables, from a mangled or already demangled name:
//  - the return type and parameter list are dropped, as are `[abi:...]` tags and `(anonymous
//  namespace)::`;
//  - template arguments are kept to ReadableNameOptions::max_template_depth, with namespaces
//  stripped inside them;
//  - Numba names lose their ABI-tag hash, `cudapy::` prefix, `$N` suffix and `_XX` character
//  escapes
//    (`__main__::matmul_kernel`);
//  - a mangled name the demangler rejects still yields its qualified name when its prefix is a
//  plain nested name.
// Example: `void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>,
// std::array<char*, 1ul> >(int, ...)` -> `at::native::vectorized_elementwise_kernel<4,
// FillFunctor<float>, array<char*, 1ul>>`.
std::string readableKernelName(std::string_view name, const ReadableNameOptions& options = {});

}  // namespace gpufl
