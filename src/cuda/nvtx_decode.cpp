#include "cuda/nvtx_decode.hpp"

#include <generated_nvtx_meta.h>

namespace gpufl::cuda {
namespace {

// generated_nvtx_meta.h has no struct for nvtxDomainCreateW; its one parameter is laid out like
// nvtxDomainCreateA's.
struct DomainCreateWParams {
  const wchar_t* name;
};

// The name of a range from its event attributes (nvtxRangePushEx, nvtxDomainRangePushEx).
std::string_view attributeMessage(const nvtxEventAttributes_t* attr, std::span<char> scratch,
                                  const NvtxHandleNames& strings) {
  if (attr == nullptr) return {};
  switch (attr->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
      return attr->message.ascii != nullptr ? std::string_view(attr->message.ascii)
                                            : std::string_view();
    case NVTX_MESSAGE_TYPE_UNICODE:
      return {scratch.data(), wideToUtf8(attr->message.unicode, scratch)};
    case NVTX_MESSAGE_TYPE_REGISTERED:
      return strings.get(reinterpret_cast<uintptr_t>(attr->message.registered));
    default:  // NVTX_MESSAGE_UNKNOWN: no message
      return {};
  }
}

NvtxCall push(uintptr_t domain, std::string_view name, const NvtxHandleNames& domains) {
  NvtxCall c;
  c.action = NvtxAction::Push;
  c.handle = domain;
  name = withoutTorchNvtxSuffix(name);
  c.text = name.empty() ? kUnnamedNvtxRange : name;
  c.tag = kNvtxTag;
  if (domain != 0) {
    if (std::string_view tag = domains.get(domain); !tag.empty()) c.tag = tag;
  }
  return c;
}

// A create/register call: the handle it returned and the text it was given.
NvtxCall registration(NvtxAction action, const void* returned, std::string_view text) {
  NvtxCall c;
  if (returned == nullptr) return c;
  // Both calls return a pointer-sized handle (nvtxDomainHandle_t, nvtxStringHandle_t).
  const auto handle = reinterpret_cast<uintptr_t>(*static_cast<void* const*>(returned));
  if (handle == 0) return c;
  c.action = action;
  c.handle = handle;
  c.text = text;
  return c;
}

}  // namespace

size_t wideToUtf8(const wchar_t* text, std::span<char> out) noexcept {
  if (text == nullptr) return 0;
  size_t n = 0;
  for (; *text != L'\0'; ++text) {
    auto cp = static_cast<uint32_t>(*text);
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
    char buf[4];
    size_t len = 0;
    if (cp < 0x80) {
      buf[len++] = static_cast<char>(cp);
    } else if (cp < 0x800) {
      buf[len++] = static_cast<char>(0xC0 | (cp >> 6));
      buf[len++] = static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      buf[len++] = static_cast<char>(0xE0 | (cp >> 12));
      buf[len++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      buf[len++] = static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      buf[len++] = static_cast<char>(0xF0 | (cp >> 18));
      buf[len++] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      buf[len++] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      buf[len++] = static_cast<char>(0x80 | (cp & 0x3F));
    }
    if (n + len > out.size()) break;  // whole characters only
    for (size_t i = 0; i < len; ++i) out[n++] = buf[i];
  }
  return n;
}

std::string_view withoutTorchNvtxSuffix(std::string_view name) noexcept {
  // torch/csrc/profiler/util.cpp getNvtxStr(): the op name, then these fields in this order.
  static constexpr std::string_view kSuffixes[] = {
      ", seq = ", ", stashed seq = ", ", op_id = ", ", sizes = ", ", input_op_ids = "};
  size_t cut = name.size();
  for (std::string_view s : kSuffixes) {
    const size_t at = name.find(s);
    if (at != std::string_view::npos && at > 0 && at < cut) cut = at;
  }
  return name.substr(0, cut);
}

std::string nvtxDomainTag(std::string_view name) {
  if (name.empty()) return std::string(kNvtxTag);
  std::string tag(kNvtxTag);
  tag += ':';
  tag += name;
  return tag;
}

NvtxCall decodeNvtx(CUpti_CallbackId cbid, const CUpti_NvtxData& data, std::span<char> scratch,
                    const NvtxHandleNames& domains, const NvtxHandleNames& strings) noexcept {
  const void* params = data.functionParams;
  if (params == nullptr) return {};
  switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA: {
      const char* m = static_cast<const nvtxRangePushA_params*>(params)->message;
      return push(0, m != nullptr ? std::string_view(m) : std::string_view(), domains);
    }
    case CUPTI_CBID_NVTX_nvtxRangePushW: {
      const wchar_t* m = static_cast<const nvtxRangePushW_params*>(params)->message;
      return push(0, {scratch.data(), wideToUtf8(m, scratch)}, domains);
    }
    case CUPTI_CBID_NVTX_nvtxRangePushEx: {
      const auto* p = static_cast<const nvtxRangePushEx_params*>(params);
      return push(0, attributeMessage(p->eventAttrib, scratch, strings), domains);
    }
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx: {
      const auto* p = static_cast<const nvtxDomainRangePushEx_params*>(params);
      return push(reinterpret_cast<uintptr_t>(p->domain),
                  attributeMessage(p->core.eventAttrib, scratch, strings), domains);
    }
    case CUPTI_CBID_NVTX_nvtxRangePop: {
      NvtxCall c;
      c.action = NvtxAction::Pop;
      return c;
    }
    case CUPTI_CBID_NVTX_nvtxDomainRangePop: {
      NvtxCall c;
      c.action = NvtxAction::Pop;
      c.handle = reinterpret_cast<uintptr_t>(
          static_cast<const nvtxDomainRangePop_params*>(params)->domain);
      return c;
    }
    case CUPTI_CBID_NVTX_nvtxDomainCreateA: {
      const char* n = static_cast<const nvtxDomainCreateA_params*>(params)->name;
      return registration(NvtxAction::DomainCreated, data.functionReturnValue,
                          n != nullptr ? std::string_view(n) : std::string_view());
    }
    case CUPTI_CBID_NVTX_nvtxDomainCreateW: {
      const wchar_t* n = static_cast<const DomainCreateWParams*>(params)->name;
      return registration(NvtxAction::DomainCreated, data.functionReturnValue,
                          {scratch.data(), wideToUtf8(n, scratch)});
    }
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringA: {
      const char* s = static_cast<const nvtxDomainRegisterStringA_params*>(params)->string;
      return registration(NvtxAction::StringRegistered, data.functionReturnValue,
                          s != nullptr ? std::string_view(s) : std::string_view());
    }
    case CUPTI_CBID_NVTX_nvtxDomainRegisterStringW: {
      // generated_nvtx_meta.h declares the parameter const char*; nvtxDomainRegisterStringW passes
      // a const wchar_t*.
      const auto* s = reinterpret_cast<const wchar_t*>(
          static_cast<const nvtxDomainRegisterStringW_params*>(params)->string);
      return registration(NvtxAction::StringRegistered, data.functionReturnValue,
                          {scratch.data(), wideToUtf8(s, scratch)});
    }
    default:
      return {};
  }
}

}  // namespace gpufl::cuda
