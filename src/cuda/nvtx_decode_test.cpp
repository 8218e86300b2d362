// NVTX callbacks decoded from CUpti_NvtxData and generated_nvtx_meta.h parameter structs built in
// host memory, as CUPTI hands them to the tracer; and the handle tables behind domains and
// registered strings.
#include "cuda/nvtx_decode.hpp"

#include <generated_nvtx_meta.h>
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace gpufl::cuda {
namespace {

CUpti_NvtxData callback(const void* params, const void* returned = nullptr) {
  CUpti_NvtxData d{};
  d.functionName = "nvtx";
  d.functionParams = params;
  d.functionReturnValue = returned;
  return d;
}

nvtxEventAttributes_t attributes() {
  nvtxEventAttributes_t a{};
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  return a;
}

// Fake handles: NVTX's are opaque pointers.
nvtxDomainHandle_t domainHandle(uintptr_t v) {
  return reinterpret_cast<nvtxDomainHandle_t>(v);
}

class NvtxDecodeTest : public ::testing::Test {
 protected:
  NvtxCall decode(CUpti_CallbackId cbid, const CUpti_NvtxData& d) {
    return decodeNvtx(cbid, d, scratch_, domains_, strings_);
  }
  char scratch_[64];
  NvtxHandleNames domains_, strings_;
};

TEST_F(NvtxDecodeTest, PushAAndPopOfTheDefaultDomain) {
  nvtxRangePushA_params p{"forward"};
  const NvtxCall push = decode(CUPTI_CBID_NVTX_nvtxRangePushA, callback(&p));
  EXPECT_EQ(push.action, NvtxAction::Push);
  EXPECT_EQ(push.handle, 0u);
  EXPECT_EQ(push.text, "forward");
  EXPECT_EQ(push.tag, "nvtx");

  nvtxRangePop_params pop{};
  const NvtxCall popped = decode(CUPTI_CBID_NVTX_nvtxRangePop, callback(&pop));
  EXPECT_EQ(popped.action, NvtxAction::Pop);
  EXPECT_EQ(popped.handle, 0u);
}

TEST_F(NvtxDecodeTest, PushWIsConvertedToUtf8) {
  nvtxRangePushW_params p{L"step-\u00e9\u6b65"};  // é (2 bytes), 步 (3 bytes)
  const NvtxCall push = decode(CUPTI_CBID_NVTX_nvtxRangePushW, callback(&p));
  EXPECT_EQ(push.action, NvtxAction::Push);
  EXPECT_EQ(push.text, "step-\xc3\xa9\xe6\xad\xa5");
}

TEST_F(NvtxDecodeTest, PushExTakesEveryMessageType) {
  nvtxEventAttributes_t a = attributes();
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "backward";
  nvtxRangePushEx_params p{&a};
  EXPECT_EQ(decode(CUPTI_CBID_NVTX_nvtxRangePushEx, callback(&p)).text, "backward");

  a.messageType = NVTX_MESSAGE_TYPE_UNICODE;
  a.message.unicode = L"wide";
  EXPECT_EQ(decode(CUPTI_CBID_NVTX_nvtxRangePushEx, callback(&p)).text, "wide");

  // Registered: known only through the register call's callback.
  a.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  a.message.registered = reinterpret_cast<nvtxStringHandle_t>(uintptr_t{0x5000});
  EXPECT_EQ(decode(CUPTI_CBID_NVTX_nvtxRangePushEx, callback(&p)).text, kUnnamedNvtxRange);
  strings_.put(0x5000, "optimizer");
  EXPECT_EQ(decode(CUPTI_CBID_NVTX_nvtxRangePushEx, callback(&p)).text, "optimizer");

  // No message, or no attributes: still a push (its pop must stay matched), unnamed.
  a.messageType = NVTX_MESSAGE_UNKNOWN;
  EXPECT_EQ(decode(CUPTI_CBID_NVTX_nvtxRangePushEx, callback(&p)).text, kUnnamedNvtxRange);
  nvtxRangePushEx_params none{nullptr};
  const NvtxCall unnamed = decode(CUPTI_CBID_NVTX_nvtxRangePushEx, callback(&none));
  EXPECT_EQ(unnamed.action, NvtxAction::Push);
  EXPECT_EQ(unnamed.text, kUnnamedNvtxRange);
}

TEST_F(NvtxDecodeTest, DomainRangesCarryTheDomainAndItsTag) {
  // nvtxDomainCreateA("cudf") returned 0xd0: its callback registers the name.
  nvtxDomainCreateA_params create{"cudf"};
  nvtxDomainHandle_t created = domainHandle(0xd0);
  const NvtxCall c = decode(CUPTI_CBID_NVTX_nvtxDomainCreateA, callback(&create, &created));
  EXPECT_EQ(c.action, NvtxAction::DomainCreated);
  EXPECT_EQ(c.handle, 0xd0u);
  EXPECT_EQ(c.text, "cudf");
  domains_.put(c.handle, nvtxDomainTag(c.text));

  nvtxEventAttributes_t a = attributes();
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = "join";
  nvtxDomainRangePushEx_params p{domainHandle(0xd0), {&a}};
  const NvtxCall push = decode(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, callback(&p));
  EXPECT_EQ(push.action, NvtxAction::Push);
  EXPECT_EQ(push.handle, 0xd0u);
  EXPECT_EQ(push.text, "join");
  EXPECT_EQ(push.tag, "nvtx:cudf");

  // A domain created before gpufl subscribed: default tag.
  p.domain = domainHandle(0xe0);
  EXPECT_EQ(decode(CUPTI_CBID_NVTX_nvtxDomainRangePushEx, callback(&p)).tag, "nvtx");

  nvtxDomainRangePop_params pop{domainHandle(0xd0)};
  const NvtxCall popped = decode(CUPTI_CBID_NVTX_nvtxDomainRangePop, callback(&pop));
  EXPECT_EQ(popped.action, NvtxAction::Pop);
  EXPECT_EQ(popped.handle, 0xd0u);
}

TEST_F(NvtxDecodeTest, RegistrationsNeedTheirReturnedHandle) {
  nvtxDomainRegisterStringA_params reg{domainHandle(0xd0), "layer3"};
  void* handle = reinterpret_cast<void*>(uintptr_t{0x7000});
  const NvtxCall r = decode(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, callback(&reg, &handle));
  EXPECT_EQ(r.action, NvtxAction::StringRegistered);
  EXPECT_EQ(r.handle, 0x7000u);
  EXPECT_EQ(r.text, "layer3");
  // No return value, or a null handle: nothing to remember.
  EXPECT_EQ(decode(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, callback(&reg)).action,
            NvtxAction::Ignore);
  void* null_handle = nullptr;
  EXPECT_EQ(decode(CUPTI_CBID_NVTX_nvtxDomainRegisterStringA, callback(&reg, &null_handle)).action,
            NvtxAction::Ignore);
  // The W variant passes a wchar_t string through a parameter declared const char*.
  const wchar_t* wide = L"w-layer";
  nvtxDomainRegisterStringW_params regw{domainHandle(0xd0), reinterpret_cast<const char*>(wide)};
  EXPECT_EQ(decode(CUPTI_CBID_NVTX_nvtxDomainRegisterStringW, callback(&regw, &handle)).text,
            "w-layer");
}

TEST_F(NvtxDecodeTest, StartEndMarksAndMissingParamsAreIgnored) {
  nvtxRangeStartA_params start{"async"};
  EXPECT_EQ(decode(CUPTI_CBID_NVTX_nvtxRangeStartA, callback(&start)).action, NvtxAction::Ignore);
  nvtxRangeEnd_params end{42};
  EXPECT_EQ(decode(CUPTI_CBID_NVTX_nvtxRangeEnd, callback(&end)).action, NvtxAction::Ignore);
  nvtxMarkA_params mark{"here"};
  EXPECT_EQ(decode(CUPTI_CBID_NVTX_nvtxMarkA, callback(&mark)).action, NvtxAction::Ignore);
  EXPECT_EQ(decode(CUPTI_CBID_NVTX_nvtxRangePushA, callback(nullptr)).action, NvtxAction::Ignore);
  nvtxRangePushA_params null_message{nullptr};
  EXPECT_EQ(decode(CUPTI_CBID_NVTX_nvtxRangePushA, callback(&null_message)).text,
            kUnnamedNvtxRange);
}

TEST(NvtxWideToUtf8, TruncatesAtWholeCharactersAndReplacesInvalidOnes) {
  char out[4];
  EXPECT_EQ(wideToUtf8(L"ab\u00e9", out), 4u);  // a b é = 4 bytes: fits exactly
  EXPECT_EQ(std::string(out, 4), "ab\xc3\xa9");
  EXPECT_EQ(wideToUtf8(L"abc\u00e9", out), 3u);  // é would not fit: stop before it
  const wchar_t bad[] = {static_cast<wchar_t>(0xD800), 0};
  EXPECT_EQ(wideToUtf8(bad, out), 3u);  // U+FFFD
  EXPECT_EQ(std::string(out, 3), "\xef\xbf\xbd");
  EXPECT_EQ(wideToUtf8(nullptr, out), 0u);
  EXPECT_EQ(wideToUtf8(L"\U0001F600", out), 4u);
}

TEST(NvtxTorchSuffix, EmitNvtxPerCallFieldsAreCut) {
  EXPECT_EQ(withoutTorchNvtxSuffix("aten::addmm, seq = 812"), "aten::addmm");
  EXPECT_EQ(withoutTorchNvtxSuffix("aten::addmm, seq = 812, op_id = 3, sizes = [[64, 128], [128]]"),
            "aten::addmm");
  EXPECT_EQ(withoutTorchNvtxSuffix("aten::relu, op_id = 9, input_op_ids = [(3,0)]"), "aten::relu");
  EXPECT_EQ(withoutTorchNvtxSuffix("aten::view, sizes = [[2, 3]]"), "aten::view");
  EXPECT_EQ(withoutTorchNvtxSuffix("fwd"), "fwd");
  EXPECT_EQ(withoutTorchNvtxSuffix("step 3, lr = 0.1"), "step 3, lr = 0.1");
  EXPECT_EQ(withoutTorchNvtxSuffix(", seq = 1"), ", seq = 1");  // nothing before: kept
  // Through decode: an emit_nvtx push is one scope name per op.
  nvtxRangePushA_params p{"aten::mm, seq = 41, sizes = [[8, 8], [8, 8]]"};
  NvtxHandleNames none;
  char scratch[8];
  EXPECT_EQ(decodeNvtx(CUPTI_CBID_NVTX_nvtxRangePushA, callback(&p), scratch, none, none).text,
            "aten::mm");
}

TEST(NvtxDomainTag, NamesTheDomain) {
  EXPECT_EQ(nvtxDomainTag("NCCL"), "nvtx:NCCL");
  EXPECT_EQ(nvtxDomainTag(""), "nvtx");
}

TEST(NvtxHandleNames, PutGetReplaceAndBounds) {
  NvtxHandleNames t;
  EXPECT_TRUE(t.get(0x10).empty());
  EXPECT_FALSE(t.put(0, "zero"));
  EXPECT_TRUE(t.put(0x10, "a"));
  EXPECT_TRUE(t.put(0x10, "a"));  // same text again: nothing new kept
  EXPECT_EQ(t.size(), 1u);
  std::string_view first = t.get(0x10);
  EXPECT_TRUE(t.put(0x10, "b"));  // handle reused with another text
  EXPECT_EQ(t.get(0x10), "b");
  EXPECT_EQ(first, "a");  // earlier views stay valid
  for (uintptr_t h = 1; h < NvtxHandleNames::kCapacity; ++h)
    ASSERT_TRUE(t.put(0x100000 + (h << 4), "x"));
  EXPECT_EQ(t.size(), NvtxHandleNames::kCapacity);
  EXPECT_FALSE(t.put(uintptr_t{1} << 40, "no room"));
  EXPECT_TRUE(t.get(uintptr_t{1} << 40).empty());
  EXPECT_EQ(t.get(0x10), "b");
}

TEST(NvtxHandleNames, ReadersNeverSeeAKeyWithoutItsText) {
  NvtxHandleNames t;
  std::thread writer([&] {
    for (uintptr_t h = 1; h <= 2000; ++h) t.put(h * 64, "text-" + std::to_string(h));
  });
  for (int round = 0; round < 200; ++round) {
    for (uintptr_t h = 1; h <= 2000; h += 37) {
      std::string_view v = t.get(h * 64);
      if (!v.empty()) {
        ASSERT_EQ(v, "text-" + std::to_string(h));
      }
    }
  }
  writer.join();
  EXPECT_EQ(t.get(64 * 2000), "text-2000");
}

}  // namespace
}  // namespace gpufl::cuda
