// Counters registry: named 64-bit counters a model registers ("hostA.eth1.GPRC",
// "hostA.netstat.TcpExt.DelayedACKs", "hostA.interrupts.CPU0.eth1"), dumped in results.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <nlohmann/json.hpp>
#include <string>

namespace nicsim {

class Counters {
 public:
  /// The counter named `path`, created at 0 on first use. The reference stays valid for the
  /// registry's lifetime (models keep it and increment it on their hot path).
  uint64_t& at(const std::string& path) {
    auto& p = map_[path];
    if (!p) p = std::make_unique<uint64_t>(0);
    return *p;
  }
  /// Value of `path`, 0 when it was never registered.
  uint64_t get(const std::string& path) const {
    settle();
    auto it = map_.find(path);
    return it == map_.end() ? 0 : *it->second;
  }
  /// Declare `path` a signed counter: its 64 bits are shown as a two's-complement integer (an
  /// SNMP Integer32 such as Tcp.MaxConn, where -1 means "dynamic", RFC 2012).
  void set_signed(const std::string& path) {
    at(path);
    signed_.insert(path);
  }
  /// All counters whose name starts with `prefix` as a flat JSON object.
  nlohmann::json to_json(const std::string& prefix = "") const {
    settle();
    nlohmann::json j = nlohmann::json::object();
    for (auto& [k, v] : map_)
      if (k.rfind(prefix, 0) == 0) {
        if (signed_.count(k))
          j[k] = static_cast<int64_t>(*v);
        else
          j[k] = *v;
      }
    return j;
  }
  const std::map<std::string, std::unique_ptr<uint64_t>>& all() const {
    settle();
    return map_;
  }

  /// Register `f`, run before the registry is read through get(), all() or to_json(): a model that
  /// counts some events in closed form, lazily (e1000 RX drops while a frame train is held,
  /// models/ether/frame.h EthRxFeed), brings its counters up to the current simulated time. A
  /// reference from at() is not settled. Returns the handle for remove_settler().
  uint64_t add_settler(std::function<void()> f) {
    settlers_.emplace(++next_settler_, std::move(f));
    return next_settler_;
  }
  void remove_settler(uint64_t handle) { settlers_.erase(handle); }
  /// Run every settler (not re-entrantly: a settler that reads counters sees them as they are).
  void settle() const {
    if (settling_ || settlers_.empty()) return;
    settling_ = true;
    struct Done {
      bool& b;
      ~Done() { b = false; }
    } done{settling_};
    for (auto& [h, f] : settlers_) f();
  }

 private:
  std::map<std::string, std::unique_ptr<uint64_t>> map_;
  std::set<std::string> signed_;
  std::map<uint64_t, std::function<void()>> settlers_;
  inline static uint64_t next_settler_ = 0;  ///< handles unique across registries (tests replace them)
  mutable bool settling_ = false;
};

}  // namespace nicsim
