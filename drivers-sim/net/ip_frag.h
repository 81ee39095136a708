// IPv4 reassembly as Linux 2.4's ip_defrag does it (net/ipv4/ip_fragment.c, called from
// ip_local_deliver for a packet with MF or a non-zero offset): fragments are queued per
// (saddr, daddr, id, protocol); when the last fragment (MF clear) has arrived and the queue holds
// every byte from 0 to its end, the datagram is rebuilt. Linux chains the fragments (frag_list)
// without copying; the model copies the bytes into one buffer (the CPU charge is ip_defrag's, per
// fragment, in the glue). A queue older than sysctl_ipfrag_time (30 s, IP_FRAG_TIME) when the
// next fragment of any datagram arrives is dropped (ReasmTimeout, ReasmFails), as the queue's
// expire timer would have. Overlaps: the later fragment's bytes win (Linux trims the new one
// against the old; with identical bytes, as here, the result is the same). IP options of the first
// fragment are not carried into the rebuilt header (the model sends none). Pure C++.
#pragma once
#include "drivers-sim/net/mib.h"
#include "drivers-sim/net/tcp_effects.h"
#include "drivers-sim/net/wire.h"
#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace nicsim {

class IpDefrag {
 public:
  /// IP_FRAG_TIME = 30 * HZ (include/net/ip.h), ns.
  static constexpr TimeNs kFragTimeNs = 30ull * 1000 * 1000 * 1000;

  /// One fragment `p` (`len` bytes, header `ip` already parsed and checked) arrived at `now`.
  /// Counts ReasmReqds (every fragment), ReasmOKs (a datagram completed), ReasmTimeout and
  /// ReasmFails (a queue expired) in `mib`. Returns the whole datagram (IPv4 header with MF and
  /// offset cleared, tot_len and header checksum rewritten, then the data) when this fragment
  /// completed it, else nullopt. `*frags` (if given) receives the number of fragments the
  /// completed datagram was made of.
  std::optional<std::vector<uint8_t>> add(const uint8_t* p, size_t len, const Ipv4Header& ip, TimeNs now, NetMib& mib,
                                          unsigned* frags = nullptr);
  /// Datagrams waiting for fragments.
  size_t pending() const { return q_.size(); }

 private:
  struct Key {
    uint32_t saddr, daddr;
    uint16_t id;
    uint8_t protocol;
    bool operator<(const Key& o) const {
      return std::tie(saddr, daddr, id, protocol) < std::tie(o.saddr, o.daddr, o.id, o.protocol);
    }
  };
  struct Queue {
    TimeNs first = 0;
    std::optional<Ipv4Header> header;               ///< the offset-0 fragment's IP header
    std::map<uint32_t, std::vector<uint8_t>> data;  ///< offset -> fragment data
    uint32_t end = 0;                               ///< datagram data length, once the last fragment came
    bool have_last = false;
    unsigned fragments = 0;
  };
  std::map<Key, Queue> q_;
};

}  // namespace nicsim
