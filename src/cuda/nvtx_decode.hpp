// CUPTI NVTX callbacks (CUPTI_CB_DOMAIN_NVTX) -> what gpufl does with them: a thread range pushed
// or popped, or a domain / registered string to remember. A pure function of one callback, so tests
// feed it CUpti_NvtxData and generated_nvtx_meta.h parameter structs built in host memory.
//
// Which calls: push/pop ranges of the default domain (nvtxRangePushA/W/Ex, nvtxRangePop) and of
// named domains (nvtxDomainRangePushEx, nvtxDomainRangePop), which nest per thread like scopes.
// Start/end ranges (nvtxRangeStart*/End, nvtxDomainRangeStartEx/End) are not followed: they may end
// on another thread and overlap without nesting, which a per-thread scope path cannot express.
// Marks are not followed either (no duration, nothing to attribute).
//
// CUPTI calls back once per NVTX call (no enter/exit sites), on the calling thread; for the create
// and register calls functionReturnValue points to the new handle (CUPTI's NVTX sample reads it
// there; a null pointer is ignored). Strings in the parameters live only during the callback; the
// caller copies what it keeps (scopeBegin interns names).
//
// [application thread]
#pragma once

#include <cupti.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "cuda/nvtx_handles.hpp"

namespace gpufl::cuda {

inline constexpr std::string_view kNvtxTag = "nvtx";                // tag of default-domain ranges
inline constexpr std::string_view kUnnamedNvtxRange = "(unnamed)";  // a range pushed without text

// The NVTX callbacks the tracer enables.
inline constexpr CUpti_CallbackId kNvtxCbids[] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,
    CUPTI_CBID_NVTX_nvtxRangePushW,
    CUPTI_CBID_NVTX_nvtxRangePushEx,
    CUPTI_CBID_NVTX_nvtxRangePop,
    CUPTI_CBID_NVTX_nvtxDomainRangePushEx,
    CUPTI_CBID_NVTX_nvtxDomainRangePop,
    CUPTI_CBID_NVTX_nvtxDomainCreateA,
    CUPTI_CBID_NVTX_nvtxDomainCreateW,
    CUPTI_CBID_NVTX_nvtxDomainRegisterStringA,
    CUPTI_CBID_NVTX_nvtxDomainRegisterStringW,
};

enum class NvtxAction : uint8_t { Ignore, Push, Pop, DomainCreated, StringRegistered };

struct NvtxCall {
  NvtxAction action = NvtxAction::Ignore;
  // Push/Pop: the range's domain handle (0 = the default domain). DomainCreated/StringRegistered:
  // the handle the call returned.
  uintptr_t handle = 0;
  // Push: the range name (kUnnamedNvtxRange without text). DomainCreated: the domain name.
  // StringRegistered: the string. Points into the callback's parameters or into `scratch`.
  std::string_view text;
  // Push: kNvtxTag, or the domain's tag when `domains` knows it.
  std::string_view tag;
};

// Decodes one NVTX callback. Wide strings are converted to UTF-8 in `scratch` (truncated to it);
// a registered message is looked up in `strings`, a domain's tag in `domains`. Never throws, never
// allocates.
NvtxCall decodeNvtx(CUpti_CallbackId cbid, const CUpti_NvtxData& data, std::span<char> scratch,
                    const NvtxHandleNames& domains, const NvtxHandleNames& strings) noexcept;

// A range name without the per-call suffixes PyTorch's emit_nvtx() appends to an op's name
// ("aten::addmm, seq = 812, op_id = 3, sizes = [[64, 128], ...], input_op_ids = [...]" ->
// "aten::addmm"): one scope name per op rather than per call, so the aggregate means something and
// the name table (bounded, see core/intern.hpp) does not fill with one name per call. Other names
// are returned unchanged.
std::string_view withoutTorchNvtxSuffix(std::string_view name) noexcept;

// The scope tag of ranges in the domain named `name`: "nvtx:<name>" ("nvtx" when unnamed), so
// `tag` tells NVTX scopes from GFL_SCOPEs and one library's domain from another.
std::string nvtxDomainTag(std::string_view name);

// UTF-32 (Linux wchar_t) to UTF-8 into `out`, stopping before a character that would not fit;
// invalid code points become U+FFFD. Returns the bytes written.
size_t wideToUtf8(const wchar_t* text, std::span<char> out) noexcept;

}  // namespace gpufl::cuda
