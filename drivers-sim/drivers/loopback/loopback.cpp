#include "drivers-sim/drivers/loopback/loopback.h"

namespace nicsim::loopback {

Loopback::Loopback(Kernel& k, std::string name) : NetDevice(k, std::move(name)) {
  mtu = kLoopbackMtu;
  tx_queue_len = 0;
  features = NETIF_F_SG | NETIF_F_FRAGLIST | NETIF_F_NO_CSUM | NETIF_F_HIGHDMA;
  dev_addr = {};
  netif_carrier_on();
  k.register_netdev(*this);
}

Task<int> Loopback::open() { co_return 0; }

Task<int> Loopback::hard_start_xmit(SkbPtr& skb) {
  SkbPtr s = std::move(skb);
  // skb_orphan: the sending socket's write-space accounting is not modelled per skb.
  kernel().eth_type_trans(*s, *this);  // sets protocol, pkt_type (PACKET_HOST: zero address)
  s->dev = this;
  s->ip_summed = CHECKSUM_UNNECESSARY;
  const uint64_t len = s->len;
  co_await kernel().netif_rx(std::move(s));
  stats.rx_bytes += len;
  stats.tx_bytes += len;
  ++stats.rx_packets;
  ++stats.tx_packets;
  co_return 0;
}

}  // namespace nicsim::loopback
