#include "drivers-sim/net/ip_frag.h"
#include <algorithm>
#include <cstring>

namespace nicsim {

std::optional<std::vector<uint8_t>> IpDefrag::add(const uint8_t* p, size_t len, const Ipv4Header& ip, TimeNs now,
                                                  NetMib& mib, unsigned* frags) {
  ++mib[IpMib::ReasmReqds];
  // ip_evictor / ip_expire: queues past IP_FRAG_TIME are dropped.
  for (auto it = q_.begin(); it != q_.end();) {
    if (now - it->second.first > kFragTimeNs) {
      ++mib[IpMib::ReasmTimeout];
      ++mib[IpMib::ReasmFails];
      it = q_.erase(it);
    } else {
      ++it;
    }
  }
  (void)len;
  const uint32_t off = uint32_t(ip.frag_off & kIpOffsetMask) * 8u;
  const uint32_t n = ip.tot_len - ip.ihl_bytes;
  Key k{ip.saddr, ip.daddr, ip.id, ip.protocol};
  auto [it, fresh] = q_.try_emplace(k);
  Queue& q = it->second;
  if (fresh) q.first = now;
  ++q.fragments;
  if (!(ip.frag_off & kIpMf)) {
    q.have_last = true;
    q.end = off + n;
  }
  if (off == 0) q.header = ip;
  q.data[off].assign(p + ip.ihl_bytes, p + ip.ihl_bytes + n);
  if (!q.have_last || !q.header) return std::nullopt;
  // Complete when the fragments cover [0, end) without a hole.
  uint32_t covered = 0;
  for (auto& [o, d] : q.data) {
    if (o > covered) return std::nullopt;
    covered = std::max<uint32_t>(covered, o + uint32_t(d.size()));
  }
  if (covered < q.end) return std::nullopt;
  std::vector<uint8_t> out(kIpv4HeaderBytes + q.end);
  for (auto& [o, d] : q.data) {
    size_t take = std::min<size_t>(d.size(), q.end > o ? q.end - o : 0);
    std::memcpy(out.data() + kIpv4HeaderBytes + o, d.data(), take);
  }
  Ipv4Header h = *q.header;
  h.ihl_bytes = kIpv4HeaderBytes;
  h.tot_len = uint16_t(out.size());
  h.frag_off = 0;  // ip_frag_reasm: iph->frag_off = 0; iph->tot_len = htons(len); ip_send_check
  put_ipv4_header(out.data(), h);
  if (frags) *frags = q.fragments;
  q_.erase(it);
  ++mib[IpMib::ReasmOKs];
  return out;
}

}  // namespace nicsim
