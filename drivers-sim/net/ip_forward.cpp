// IPv4 forwarding (Linux 2.6.11 net/ipv4/ip_input.c ip_rcv / ip_rcv_finish, net/ipv4/route.c
// ip_route_input's cache hit, net/ipv4/ip_forward.c ip_forward / ip_forward_finish, net/ipv4/
// ip_output.c ip_output / ip_finish_output2; research/seeds-001-004-platforms-drivers.md §3.4
// steps 4-6). The received skb itself is transmitted: its IP header is rewritten in place (TTL,
// checksum), the cached hardware header is copied in front of it, and dev_queue_xmit queues it on
// the output device's pfifo_fast. What it charges: the IP header line the NIC wrote (a cache miss,
// Kernel::load_dma_lines), ip_rcv (header checks + the route cache hit) and ip_forward (the rest of
// the path down to dev_queue_xmit), from the host's cost profile.
#include "core/sim_context.h"
#include "drivers-sim/net/inet.h"
#include "drivers-sim/net/wire.h"
#include <algorithm>

namespace nicsim {

void InetHost::add_route(uint32_t prefix, unsigned plen, NetDevice& dev, std::function<std::array<uint8_t, 6>()> gw_mac) {
  if (plen > 32) throw std::invalid_argument("add_route: prefix length above 32");
  const uint32_t mask = plen == 0 ? 0 : ~uint32_t(0) << (32 - plen);
  routes_.push_back({prefix & mask, plen, &dev, std::move(gw_mac)});
  // fib lookup order: longest prefix first
  std::stable_sort(routes_.begin(), routes_.end(), [](const Route& a, const Route& b) { return a.plen > b.plen; });
}

const InetHost::Route* InetHost::route_for(uint32_t daddr) const {
  for (const Route& r : routes_) {
    const uint32_t mask = r.plen == 0 ? 0 : ~uint32_t(0) << (32 - r.plen);
    if ((daddr & mask) == r.prefix) return &r;
  }
  return nullptr;
}

const InetHost::Route* InetHost::forward_route(const Skb& skb) const {
  if (skb.len < kIpv4HeaderBytes || skb.pkt_type != PACKET_HOST) return nullptr;
  const uint8_t* d = skb.data();
  if ((d[0] >> 4) != 4) return nullptr;
  const uint32_t daddr = uint32_t(d[16]) << 24 | uint32_t(d[17]) << 16 | uint32_t(d[18]) << 8 | d[19];
  if (stack_->local_addrs().has(daddr) || (daddr >> 24) == 127) return nullptr;
  return route_for(daddr);
}

Task<int> InetHost::ip_forward(SkbPtr skb, const Route& r) {
  NetMib& mib = stack_->mib();
  // ip_rcv reads the IP header (the frame's line the NIC's DMA invalidated, unless eth_type_trans
  // or a copybreak copy already brought it in).
  co_await k_->load_dma_lines(skb->data_phys(), kIpv4HeaderBytes, skb->journey, "RX IP header");
  co_await k_->cost(CostId::ip_rcv);  // ip_rcv's checks, ip_rcv_finish, ip_route_input (cache hit)
  ++mib[IpMib::InReceives];
  Ipv4Header ip;
  bool csum_ok = false;
  if (!parse_ipv4_header(skb->data(), skb->len, &ip, &csum_ok) || !csum_ok) {
    ++mib[IpMib::InHdrErrors];
    co_await k_->kfree_skb(std::move(skb));
    co_return NET_RX_DROP;
  }
  co_await k_->cost(CostId::ip_forward);
  if (ip.ttl <= 1) {  // ip_forward: too_many_hops -> icmp_send(ICMP_TIME_EXCEEDED) (the ICMP is not modelled)
    ++mib[IpMib::InHdrErrors];
    co_await k_->kfree_skb(std::move(skb));
    co_return NET_RX_DROP;
  }
  // ip_decrease_ttl: TTL - 1 and the incremental checksum update (RFC 1141), in the packet's bytes.
  uint8_t* h = skb->data();
  h[8] = static_cast<uint8_t>(h[8] - 1);
  uint32_t check = (uint32_t(h[10]) << 8 | h[11]) + 0x0100u;
  check = (check & 0xffffu) + (check >> 16);
  h[10] = static_cast<uint8_t>(check >> 8);
  h[11] = static_cast<uint8_t>(check);
  // ip_forward: skb->priority = rt_tos2priority(iph->tos) (TOS 0: TC_PRIO_BESTEFFORT, pfifo_fast band 1).
  skb->priority = 0;
  ++mib[IpMib::ForwDatagrams];  // ip_forward_finish: IP_INC_STATS_BH(IPSTATS_MIB_OUTFORWDATAGRAMS)
  // ip_finish_output2: the cached hardware header in front of the IP header (neigh_hh_output).
  EthHeader eh;
  eh.dst = r.mac();
  eh.src = r.dev->dev_addr;
  eh.ethertype = ETH_P_IP;
  put_eth_header(skb->push(ETH_HLEN), eh);
  skb->dev = r.dev;
  skb->protocol = ETH_P_IP;
  skb->ip_summed = CHECKSUM_NONE;
  if (skb->journey) k_->mark(skb->journey, "IP forward");
  co_await k_->dev_queue_xmit(std::move(skb));
  co_return NET_RX_SUCCESS;
}

}  // namespace nicsim
