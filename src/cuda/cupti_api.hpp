// The CUPTI calls of src/cuda, through the run-time loaded library (cuda/cupti_loader.hpp). Each
// CUPTI function has a forwarder of the same name and exact signature in gpufl::cuda::cupti, so a
// call reads
//     cupti::cuptiActivityEnable(kind)
// and behaves like CUPTI's, except that when libcupti (or this function) is missing it returns
// CUPTI_ERROR_NOT_COMPATIBLE instead of failing to load. Code that starts a feature checks
// cuptiLibrary().has(feature, &why) first, so the user reads why, not an error code.
// cupti.h still supplies the types and enums; calling its global functions directly would need
// libcupti linked.
#pragma once

#include <type_traits>

#include "cuda/cupti_loader.hpp"

namespace gpufl::cuda::cupti {

inline constexpr CUptiResult kMissingFunction = CUPTI_ERROR_NOT_COMPATIBLE;

template <auto Member, typename Fn>
struct Forward;

template <auto Member, typename R, typename... Args>
struct Forward<Member, R (*)(Args...)> {
  static_assert(std::is_same_v<R, CUptiResult>,
                "every forwarded CUPTI function returns CUptiResult");
  CUptiResult operator()(Args... args) const {
    const auto fn = cuptiLibrary().*Member;
    return fn != nullptr ? fn(args...) : kMissingFunction;
  }
};

#define GPUFL_CUPTI_FORWARD(name) \
  inline constexpr Forward<&CuptiLibrary::name, decltype(&::name)> name{};
GPUFL_CUPTI_FUNCTIONS(GPUFL_CUPTI_FORWARD)
#undef GPUFL_CUPTI_FORWARD

}  // namespace gpufl::cuda::cupti
