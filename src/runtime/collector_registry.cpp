#include "runtime/collector_registry.hpp"

#include <algorithm>
#include <mutex>

namespace gpufl::runtime {

namespace {

struct Registry {
  std::mutex mu;
  std::vector<std::pair<std::string, core::CollectorFactory>> factories;
};

Registry& registry() {
  static Registry* r = new Registry();  // immortal: sessions may start from atexit handlers
  return *r;
}

void add(std::string name, core::CollectorFactory factory) {
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  auto it = std::find_if(r.factories.begin(), r.factories.end(),
                         [&](const auto& f) { return f.first == name; });
  if (it != r.factories.end()) {
    it->second = std::move(factory);
  } else {
    r.factories.emplace_back(std::move(name), std::move(factory));
  }
}

void ensureBuiltins() {
  static std::once_flag once;
  std::call_once(once, [] { registerBuiltinCollectors(&add); });
}

}  // namespace

void registerCollectorFactory(std::string name, core::CollectorFactory factory) {
  ensureBuiltins();
  add(std::move(name), std::move(factory));
}

void unregisterCollectorFactory(const std::string& name) {
  ensureBuiltins();
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  std::erase_if(r.factories, [&](const auto& f) { return f.first == name; });
}

std::vector<std::pair<std::string, core::CollectorFactory>> collectorFactories() {
  ensureBuiltins();
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  return r.factories;
}

}  // namespace gpufl::runtime
