// Side-band journey tags on DMA buffer addresses.
//
// A journey id cannot travel inside the bytes a driver hands a NIC, so drivers and NIC models pass it
// beside the data, keyed by the buffer's bus address in one DMA address space:
//  - TX: a driver that maps a buffer for transmit calls tag(space, addr, id); the NIC, when its
//    descriptor engine reads a descriptor pointing at `addr`, calls take(space, addr) and carries the
//    id with the frame (descriptor fetch, data DMA, MAC, wire ...).
//  - RX: the NIC, when it has written a received frame into the buffer at `addr`, calls
//    tag(space, addr, id); the driver's RX clean routine calls take(space, addr) on the buffer it
//    unmaps and continues the journey (ISR, softirq, TCP ...).
// The space keeps hosts apart (two hosts both have DRAM at address 0x100000): by convention it is
// space_of(<the device's full SystemC name>), e.g. space_of("alpha.eth1"), which both the NIC model
// and the driver attached to that device know.
#pragma once
#include "core/journey.h"
#include <cstdint>
#include <string_view>
#include <unordered_map>

namespace nicsim {

class DmaTags {
 public:
  using Space = uint64_t;

  /// The space id for a name (FNV-1a 64-bit of the bytes). Deterministic across runs.
  static Space space_of(std::string_view name) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : name) { h ^= c; h *= 1099511628211ull; }
    return h;
  }
  /// Tag the buffer at bus address `addr` in `space` with journey `id` (0 removes any tag).
  /// A later tag of the same address replaces the earlier one (the buffer was reused).
  void tag(Space space, uint64_t addr, JourneyId id) {
    if (id == 0) { map_.erase(Key{space, addr}); return; }
    map_[Key{space, addr}] = id;
  }
  /// The journey tagged on `addr` in `space`, removing the tag; 0 when there is none.
  JourneyId take(Space space, uint64_t addr) {
    auto it = map_.find(Key{space, addr});
    if (it == map_.end()) return 0;
    JourneyId id = it->second;
    map_.erase(it);
    return id;
  }
  /// The journey tagged on `addr` in `space` without removing it; 0 when there is none.
  JourneyId peek(Space space, uint64_t addr) const {
    auto it = map_.find(Key{space, addr});
    return it == map_.end() ? 0 : it->second;
  }
  size_t size() const { return map_.size(); }
  void clear() { map_.clear(); }

 private:
  struct Key {
    Space space;
    uint64_t addr;
    bool operator==(const Key& o) const { return space == o.space && addr == o.addr; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const { return std::hash<uint64_t>()(k.space * 0x9e3779b97f4a7c15ull ^ k.addr); }
  };
  std::unordered_map<Key, JourneyId, KeyHash> map_;
};

/// The process's DMA tag map (one run = one process, like sim()).
inline DmaTags& dma_tags() {
  static DmaTags t;
  return t;
}

}  // namespace nicsim
