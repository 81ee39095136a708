// Message boundaries for journeys. Packets travel as real bytes through simulated memory, so the
// journey id of the application message a byte belongs to cannot ride in the packet. Instead the
// sending socket records, per flow and stream offset, where each tagged write starts and ends;
// the receiving socket asks which messages its reads completed and which message an arriving
// segment belongs to. One MessageTags object is shared by every TcpStack of a run.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <tuple>
#include <vector>

namespace nicsim {

class MessageTags {
 public:
  /// A direction of a connection: the sender's address/port to the receiver's (host order).
  struct Flow {
    uint32_t saddr = 0, daddr = 0;
    uint16_t sport = 0, dport = 0;
    bool operator<(const Flow& o) const {
      return std::tie(saddr, daddr, sport, dport) < std::tie(o.saddr, o.daddr, o.sport, o.dport);
    }
  };
  static constexpr uint64_t kOpen = std::numeric_limits<uint64_t>::max();

  /// A write tagged `tag` starts at stream offset `start` (bytes since the connection's first
  /// data byte). Tag 0 is not recorded.
  void begin(const Flow& f, uint64_t start, uint64_t tag) {
    if (tag == 0) return;
    flows_[f][start] = Entry{tag, kOpen};
  }
  /// The write that began last on `f` ends at stream offset `end` (exclusive).
  void end(const Flow& f, uint64_t end) {
    auto it = flows_.find(f);
    if (it == flows_.end() || it->second.empty()) return;
    auto& e = it->second.rbegin()->second;
    if (e.end == kOpen) e.end = end;
  }
  /// Tag of the message holding the byte at stream offset `off`, 0 when none.
  uint64_t tag_at(const Flow& f, uint64_t off) const {
    auto it = flows_.find(f);
    if (it == flows_.end()) return 0;
    auto e = it->second.upper_bound(off);
    if (e == it->second.begin()) return 0;
    --e;
    return off < e->second.end ? e->second.tag : 0;
  }
  /// The receiver has delivered every byte before `delivered`: append the tags of messages that
  /// ended at or before it to `out` (in stream order) and forget them.
  void delivered(const Flow& f, uint64_t delivered, std::vector<uint64_t>* out) {
    auto it = flows_.find(f);
    if (it == flows_.end()) return;
    auto& m = it->second;
    while (!m.empty() && m.begin()->second.end != kOpen && m.begin()->second.end <= delivered) {
      out->push_back(m.begin()->second.tag);
      m.erase(m.begin());
    }
  }
  /// Drop everything recorded for `f`.
  void forget(const Flow& f) { flows_.erase(f); }
  size_t pending(const Flow& f) const {
    auto it = flows_.find(f);
    return it == flows_.end() ? 0 : it->second.size();
  }

 private:
  struct Entry {
    uint64_t tag;
    uint64_t end;
  };
  std::map<Flow, std::map<uint64_t, Entry>> flows_;
};

}  // namespace nicsim
