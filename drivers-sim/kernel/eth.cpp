// Ethernet helpers of the kernel model (see kernel.h for the other files).
//
//   Linux (2.4.20)                                  here
//   net/ethernet/eth.c eth_type_trans()             Kernel::eth_type_trans
//   drivers/net/net_init.c ether_setup's            NetDevice::NetDevice
//     tx_queue_len, eth_mac_addr()                  NetDevice::set_mac_address
#include "drivers-sim/kernel/kernel.h"
#include <cstring>
#include <stdexcept>

namespace nicsim {

NetDevice::NetDevice(Kernel& k, std::string name)
    : tx_queue_len(k.params().tx_queue_len), kernel_(&k), name_(std::move(name)) {}

Task<int> NetDevice::set_mac_address(std::array<uint8_t, 6> addr) {
  if (up) co_return -16;  // eth_mac_addr: if (netif_running(dev)) return -EBUSY
  dev_addr = addr;
  co_return 0;
}

uint16_t Kernel::eth_type_trans(Skb& skb, NetDevice& dev) {
  if (skb.len < ETH_HLEN) throw std::invalid_argument("eth_type_trans: frame shorter than an Ethernet header");
  skb.dev = &dev;
  skb.mac_off = skb.data_off;
  const uint8_t* h = skb.data();
  if (h[0] & 1) {
    static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    skb.pkt_type = std::memcmp(h, bcast, 6) == 0 ? PACKET_BROADCAST : PACKET_MULTICAST;
  } else {
    skb.pkt_type = std::memcmp(h, dev.dev_addr.data(), 6) == 0 ? PACKET_HOST : PACKET_OTHERHOST;
  }
  uint16_t proto = static_cast<uint16_t>(h[12] << 8 | h[13]);
  skb.pull(ETH_HLEN);
  skb.protocol = proto >= 1536 ? proto : 0x0001;  // ETH_P_802_3 for length fields
  return skb.protocol;
}

}  // namespace nicsim
