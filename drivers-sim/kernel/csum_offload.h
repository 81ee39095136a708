// Where Linux 2.4.20 reads dev->features for the checksum (docs/developers.md "Checksum offload").
#pragma once
#include "drivers-sim/kernel/netdevice.h"
#include "drivers-sim/kernel/skb.h"
#include <cstdint>

namespace nicsim {

/// skb->ip_summed of a TCP segment sent through a device with `features`: CHECKSUM_HW when the
/// route's device checksums TCP/IPv4 (tcp_sendmsg 2.4.20: sk->route_caps & (NETIF_F_IP_CSUM |
/// NETIF_F_NO_CSUM | NETIF_F_HW_CSUM); route_caps is the output device's features), else
/// CHECKSUM_NONE (the stack computes it, csum_and_copy_from_user).
inline uint8_t tx_ip_summed(uint32_t features) {
  return (features & (NETIF_F_IP_CSUM | NETIF_F_NO_CSUM | NETIF_F_HW_CSUM)) ? CHECKSUM_HW : CHECKSUM_NONE;
}

}  // namespace nicsim
