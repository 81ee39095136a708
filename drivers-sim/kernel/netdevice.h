// struct net_device for driver models (Linux 2.4 include/linux/netdevice.h), with its qdisc.
#pragma once
#include "drivers-sim/kernel/skb.h"
#include "drivers-sim/kernel/task.h"
#include <array>
#include <deque>
#include <string>

namespace nicsim {

/// struct net_device_stats (the fields drivers fill; `ifconfig`/`/proc/net/dev` names).
struct NetDeviceStats {
  uint64_t rx_packets = 0, tx_packets = 0, rx_bytes = 0, tx_bytes = 0;
  uint64_t rx_errors = 0, tx_errors = 0, rx_dropped = 0, tx_dropped = 0;
  uint64_t multicast = 0, collisions = 0, rx_over_errors = 0, rx_crc_errors = 0, rx_fifo_errors = 0;
};

/// NET_XMIT_* (dev_queue_xmit results) and NET_RX_* (netif_rx results), 2.4 values.
enum : int { NET_XMIT_SUCCESS = 0, NET_XMIT_DROP = 1 };
enum : int { NET_RX_SUCCESS = 0, NET_RX_DROP = 5 };

/// dev->features bits (include/linux/netdevice.h, 2.4.20 values).
enum : uint32_t {
  NETIF_F_SG = 1,         ///< scatter/gather
  NETIF_F_IP_CSUM = 2,    ///< checksums TCP/UDP over IPv4 in hardware
  NETIF_F_NO_CSUM = 4,    ///< needs no checksum (loopback)
  NETIF_F_HW_CSUM = 8,    ///< checksums any protocol in hardware (csum_start/offset)
  NETIF_F_HIGHDMA = 32,   ///< DMA to high memory
  NETIF_F_FRAGLIST = 64,  ///< skb frag lists
};

/// The interface the network core and the IP layer use to reach a device, shaped like Linux's
/// struct net_device: a driver derives, implements open() and hard_start_xmit(), and registers
/// with Kernel::register_netdev(); a stacked device (bonding) derives too and calls its slaves'
/// hard_start_xmit. All coroutines run on a CPU of `kernel()`.
///
/// Receive: a non-NAPI driver (weight == 0, every 2.4 driver modelled so far) hands frames to
/// Kernel::netif_rx from its ISR; a NAPI driver (weight > 0) calls Kernel::netif_rx_schedule from
/// its ISR (interrupts masked) and implements poll(), which the NET_RX softirq of a NAPI kernel
/// profile (KernelProfile::napi) calls with the budget left, as net/core/dev.c net_rx_action does
/// (Linux 2.6.11; research/seeds-001-004-platforms-drivers.md §3.4).
class NetDevice {
 public:
  NetDevice(Kernel& k, std::string name);
  virtual ~NetDevice() = default;
  NetDevice(const NetDevice&) = delete;
  NetDevice& operator=(const NetDevice&) = delete;

  Kernel& kernel() const { return *kernel_; }
  const std::string& name() const { return name_; }

  std::array<uint8_t, 6> dev_addr{};  ///< MAC address
  unsigned mtu = 1500;                 ///< ether_setup
  unsigned tx_queue_len = 100;         ///< ether_setup in 2.4 (drivers/net/net_init.c): 100
  unsigned irq = 0;                    ///< interrupt vector (set by the driver at probe)
  bool up = false;                     ///< IFF_UP (dev_open)
  /// dev->features (NETIF_F_*): what the hardware offloads, as the driver version declares it.
  uint32_t features = 0;
  /// dev->weight: packets one poll() may deliver per NET_RX softirq round (NAPI); 0: not NAPI.
  int weight = 0;
  /// dev->quota: packets left of this round's share; netif_rx_schedule and net_rx_action refill it
  /// from weight, poll() decrements it by what it delivered (as e1000_clean / process_backlog do).
  int quota = 0;
  NetDeviceStats stats;
  /// dev->master (netdev_set_master, 2.4.20 net/core/dev.c): the bonding device this one is a
  /// slave of, nullptr otherwise. netif_receive_skb hands a slave's packets to the protocols as
  /// the master's (skb_bond).
  NetDevice* master = nullptr;

  /// dev->open: bring the device up (rings, registers, request_irq, netif_start_queue).
  /// Returns 0 or a negative errno.
  virtual Task<int> open() = 0;
  /// dev->stop.
  virtual Task<int> stop() { co_return 0; }
  /// dev->hard_start_xmit. Returns 0 when the driver took the skb (it moved `skb` out and now
  /// owns it), 1 when busy (it must leave `skb` untouched; the qdisc requeues it). `skb` is a
  /// reference into the caller's frame, valid until the coroutine returns.
  virtual Task<int> hard_start_xmit(SkbPtr& skb) = 0;

  /// dev->set_mac_address (SIOCSIFHWADDR). The default is ether_setup's eth_mac_addr (2.4.20
  /// drivers/net/net_init.c): -EBUSY (-16) while the device is up, else copy into dev_addr (the
  /// hardware filter is programmed at the next open). A driver that writes its receive-address
  /// filter at once (e1000_set_mac) overrides it. Returns 0 or a negative errno.
  virtual Task<int> set_mac_address(std::array<uint8_t, 6> addr);
  /// The link as 2.4.20 bonding.c bond_check_dev_link asks the slave's do_ioctl for it: first
  /// SIOCETHTOOL ETHTOOL_GLINK (e1000: netif_carrier_ok), else the BMSR_LSTATUS bit (0x04) of MII
  /// register 1 through SIOCGMIIPHY/SIOCGMIIREG (tg3, gmac). Returns 1 (link) / 0 (no link), or
  /// -95 (-EOPNOTSUPP) when the driver answers neither, which bond_check_dev_link spoofs as up.
  virtual int mii_link_status() { return -95; }

  /// dev->poll (NAPI): deliver up to min(`budget`, quota) received packets (Kernel::
  /// netif_receive_skb), decrement `budget` and `quota` by the number delivered, and return true
  /// while more work remains (net_rx_action re-queues the device at the poll_list tail), false
  /// after Kernel::netif_rx_complete and re-enabling interrupts. Only called when weight > 0.
  /// Default: nothing to poll.
  virtual Task<bool> poll(int& budget) { co_return false; }

  /// netif_carrier_on / netif_carrier_off / netif_carrier_ok: __LINK_STATE_NOCARRIER (the link
  /// partner is there). Off from register_netdev until the driver sees link (its watchdog).
  void netif_carrier_on() { carrier_ = true; }
  void netif_carrier_off() { carrier_ = false; }
  bool netif_carrier_ok() const { return carrier_; }

  /// netif_start_queue / netif_stop_queue: clear/set __LINK_STATE_XOFF.
  void netif_start_queue() { xoff_ = false; }
  void netif_stop_queue() { xoff_ = true; }
  /// netif_wake_queue: clear XOFF and, if it was set, __netif_schedule (NET_TX softirq on the
  /// running CPU runs the qdisc).
  void netif_wake_queue();
  bool netif_queue_stopped() const { return xoff_; }
  /// __LINK_STATE_RX_SCHED: on a CPU's poll_list (netif_rx_schedule_prep fails while set).
  bool netif_rx_scheduled() const { return rx_sched_; }
  /// Packets waiting in the qdisc (all pfifo_fast bands).
  size_t qdisc_len() const { return band_[0].size() + band_[1].size() + band_[2].size(); }
  /// Packets waiting in pfifo_fast band `band` (0..2); pfifo_fast_enqueue drops while it holds
  /// more than tx_queue_len.
  size_t qdisc_band_len(unsigned band) const { return band_.at(band).size(); }
  /// Packets the qdisc dropped (pfifo_fast full; `tc -s qdisc`'s "dropped").
  uint64_t qdisc_drops() const { return qdisc_drops_; }

 private:
  friend class Kernel;
  Kernel* kernel_;
  std::string name_;
  bool xoff_ = false;
  bool carrier_ = false;      ///< !__LINK_STATE_NOCARRIER
  bool scheduled_ = false;    ///< __LINK_STATE_SCHED: on a CPU's output_queue
  bool rx_sched_ = false;     ///< __LINK_STATE_RX_SCHED: on a CPU's poll_list (NAPI)
  int xmit_lock_owner_ = -1;  ///< CPU in hard_start_xmit (dev->xmit_lock), -1 free
  std::array<std::deque<SkbPtr>, 3> band_;  ///< pfifo_fast bands 0 (highest) .. 2
  uint64_t qdisc_drops_ = 0, qdisc_requeues_ = 0;
};

}  // namespace nicsim
