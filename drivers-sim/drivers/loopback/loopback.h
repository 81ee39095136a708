// The loopback net_device `lo` (Linux 2.4.20 drivers/net/loopback.c): a software device with no
// hardware behind it. loopback_xmit hands the frame straight back to netif_rx on the CPU that sent
// it, marked CHECKSUM_UNNECESSARY (LOOPBACK_MUST_CHECKSUM is not defined in 2.4.20), and counts it
// in both directions of the device's stats.
//
// Source: 2.4.20 loopback.c (loopback_xmit, loopback_init: mtu (16 * 1024) + 20 + 20 + 12 = 16436,
// hard_header_len ETH_HLEN with eth_header, addr_len ETH_ALEN and a zero address, tx_queue_len 0
// (no qdisc: dev_queue_xmit calls hard_start_xmit directly under xmit_lock), flags IFF_LOOPBACK,
// features NETIF_F_SG | NETIF_F_FRAGLIST | NETIF_F_NO_CSUM | NETIF_F_HIGHDMA). The store holds only
// later (2.6) copies of the file; their loopback_xmit has the same shape (skb_orphan,
// eth_type_trans, CHECKSUM_UNNECESSARY, netif_rx, stats).
//
// Costs: loopback_xmit's few stores are part of the netif_rx entry (which covers eth_type_trans
// and the backlog enqueue); the device adds no cost entry of its own. The receive runs in the
// NET_RX softirq that dev_queue_xmit's local_bh_enable (spin_unlock_bh of xmit_lock) starts on the
// sending CPU, so a loopback packet is received on the CPU that sent it.
#pragma once
#include "drivers-sim/kernel/kernel.h"

namespace nicsim::loopback {

/// 2.4.20 loopback_init: (16 * 1024) + 20 + 20 + 12 bytes.
constexpr unsigned kLoopbackMtu = 16436;

class Loopback : public NetDevice {
 public:
  /// Registers itself with `k` as `name` ("lo") and is up from the start (its carrier is on).
  explicit Loopback(Kernel& k, std::string name = "lo");
  Task<int> open() override;
  /// loopback_xmit: eth_type_trans, CHECKSUM_UNNECESSARY, stats, netif_rx. Always takes the skb
  /// (returns 0); netif_rx drops it when the CPU's backlog is full (counted there).
  Task<int> hard_start_xmit(SkbPtr& skb) override;
};

}  // namespace nicsim::loopback
