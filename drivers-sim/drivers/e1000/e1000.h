// Linux e1000 driver model: Intel PRO/1000 (8254x) as in Linux 2.4.20 (e1000 4.4.12-k1) and the
// March 2003 driver (5.0.43-k1) that added the InterruptThrottleRate parameter. One code base, one
// DriverProfile per version (research/intel-8254x-e1000-e100.md §2 lists what differs).
//
// What the model does, following e1000_main.c / e1000_hw.c / e1000_param.c of the 4.4.x driver
// (read in lorenzo-stoakes/linux-historical @13d344d9 "4.4.19-k1" and @697ccd14 "4.3.15-k1", with
// the 4.4.12-k1 facts of research §2 from dmgerman/history-token @280e1c3c65):
//  * probe (e1000_probe, run by an "insmod e1000" process at time 0): MAC type from the PCI device id,
//    media type from STATUS, the station address, bus type from STATUS, e1000_reset (PBA, reset_hw:
//    IMC/RCTL/TCTL/CTRL.RST/IMC/ICR, init_hw: receive addresses, MTA, VLAN table, link and flow
//    control setup, statistics clear). The queue stays stopped (no carrier) until the watchdog
//    sees link up, as in the real driver.
//  * open (e1000_open -> e1000_up): rings in DMA memory, request_irq (SA_SHIRQ), set_multi,
//    configure_tx (TDBAL..TDT, TIPG, TIDV, TADV only for mac_type >= 82540, TCTL, collision
//    distance; txd_cmd = IFCS | IDE | RS, RPS before the 82543), setup_rctl, configure_rx (RDTR,
//    RADV and ITR only for >= 82540, ring registers, RXCSUM, RCTL), alloc_rx_buffers (2048-byte
//    buffers, 2 bytes reserved, RDT written when the refilled index is a multiple of 16),
//    mod_timer(watchdog, jiffies), IMS = IMS_ENABLE_MASK.
//  * e1000_xmit_frame: descriptor(s) per max_data_per_txd, a context descriptor for CHECKSUM_HW,
//    EOP on the last, the journey tagged on the first buffer's bus address, TDT written (posted).
//    When fewer descriptors are free than the packet needs: netif_stop_queue and return busy.
//  * e1000_intr (non-NAPI): up to E1000_MAX_INTR = 10 passes of { icr = READ(ICR); if 0 stop;
//    RXSEQ/LSC -> link check; e1000_clean_rx_irq; e1000_clean_tx_irq (4.2.8: only when ICR.TXDW,
//    DriverProfile::tx_clean_needs_txdw) }. Work is found by DD bits.
//    The ICR read clears the causes and deasserts INTx (hardware).
//  * e1000_clean_rx_irq: every DD descriptor: the 2 KB buffer's skb itself goes up (no copybreak),
//    skb_put(length - FCS), checksum status, eth_type_trans, netif_rx; then alloc_rx_buffers.
//  * e1000_clean_tx_irq: every DD descriptor: unmap, dev_kfree_skb_irq, clear status; wake the
//    queue when stopped and more than E1000_TX_QUEUE_WAKE descriptors are free.
//  * e1000_watchdog every 2 s (TIMER_BH): link check, carrier on/off, e1000_update_stats (the
//    statistics registers), [5.x: dynamic ITR], ICS = RXDMT0 (a software interrupt), TX hang check.
//
// Deviations (all outside the packet paths): the station address is read from RAL0/RAH0 (which the
// hardware loads from EEPROM words 0-2 at reset, SDM §13.5.2) instead of bit-banging the microwire
// EEPROM through EECD, which the NIC model does not implement; FlowControl's default
// (e1000_fc_default: "read from EEPROM word 0x0F") is taken as full, the value of an erased or
// Intel-default EEPROM; the mdelay()s of e1000_reset_hw at probe are not spent; PHY set-up is reduced
// to the MDIC accesses that decide autonegotiation and pause resolution.
//
// Journeys (core/journey.h), written here:
//   TX: "doorbell" (from just before the TDT write until the NIC's descriptor fetch; the kernel
//       marked "driver xmit" before hard_start_xmit);
//   RX: "IRQ delivery wait"/"IRQ entry" (Kernel::mark_irq, when this interrupt was raised for or
//       after the frame), "ISR" (from the ICR read of the loop pass that found the frame; cause "ISR
//       already running" when the frame completed while the handler ran), "driver rx" (from when
//       e1000_clean_rx_irq reaches the frame's descriptor until netif_rx marks "backlog"), and
//       Kernel::kDmaMissStage while the CPU stalls on the frame's descriptor line and Ethernet
//       header line, which the NIC's DMA invalidated (Kernel::load_dma_lines).
// CPU cache misses on DMA'd memory (Kernel::load_dma_lines): the RX descriptor the loop reads
//   (status/DD), the received frame's Ethernet header (eth_type_trans; the IP/TCP headers are
//   loaded by the IP layer), and the TX descriptor status e1000_clean_tx_irq reads.
// Counters: <host>.<ifname>.driver.{intr, icr_reads, icr_zero, isr_loop_limit, rdt_writes,
//   tdt_writes, tx_busy, watchdog}.
#pragma once
#include "core/dma_tags.h"
#include "core/params.h"
#include "drivers-sim/driver_entry.h"
#include "drivers-sim/drivers/e1000/e1000_hw.h"
#include "drivers-sim/kernel/kernel.h"
#include <array>
#include <memory>
#include <string>
#include <vector>

namespace nicsim {
class PciDevice;
}  // namespace nicsim

namespace nicsim::e1000drv {

/// What differs between the modeled driver versions.
struct DriverProfile {
  std::string name;           ///< DriverEntry name, e.g. "e1000-4.4.12-k1"
  std::string version;        ///< e1000_driver_version, e.g. "4.4.12-k1"
  std::string summary;        ///< one line for `nicsim list`
  unsigned default_rxd = 80;  ///< RxDescriptors default (e1000_param.c DEFAULT_RXD)
  /// The InterruptThrottleRate module parameter exists (5.x). Without it the driver writes
  /// ITR = 1e9/(MAX_INTS_PER_SEC·256) = 488 in configure_rx for mac_type >= 82540 (4.4.x).
  bool itr_param = false;
  std::string param_source;   ///< e1000_param.c version the defaults come from
  /// The 4.2.x delay parameters (e1000 4.2.8-k1, LH@a4358d3aab e1000_param.c / e1000_main.c;
  /// research/seeds-001-004-platforms-drivers.md §2.2): RxIntDelay is the only interrupt-delay
  /// parameter. On 82542/3/4 it programs RDTR (default DEFAULT_RDTR 64); on 82540 and later it
  /// programs RADV (default DEFAULT_RADV 128) while RDTR is written 64 and ITR 488. TIDV is
  /// hard-coded 64; TADV is never written (reset value 0: off). Without the switch (4.4.x, 5.x) the
  /// driver has RxIntDelay -> RDTR, RxAbsIntDelay -> RADV, TxIntDelay -> TIDV, TxAbsIntDelay -> TADV.
  bool rx_int_delay_only = false;
  /// e1000_xmit_frame first reclaims completed transmit descriptors (e1000_clean_tx_irq) before
  /// queuing the frame: "aggressively reclaim Tx descriptors" (4.2.x, LH@1ac12fc6c5; research §2.2).
  bool tx_reclaim_in_xmit = false;
  /// e1000_intr cleans the TX ring only in a pass whose ICR value has TXDW set and whose trylock of
  /// adapter->tx_lock succeeds (4.2.8, MaximeChretien/linux-history @a4358d3aab
  /// drivers/net/e1000/e1000_main.c e1000_intr; IMS_ENABLE_MASK there is RXT0|TXDW|RXDMT0|RXSEQ|LSC).
  /// The 4.4.x driver calls e1000_clean_tx_irq on every pass. The RX ring is cleaned on every pass
  /// in both. (The model's xmit path holds no lock across an interrupt, so the trylock succeeds.)
  bool tx_clean_needs_txdw = false;

  // ---- 2.6 drivers (5.6.10.1-k2, 6.0.60-k2, 6.2.15; e1000_napi.cpp) ----
  /// Built with CONFIG_E1000_NAPI: e1000_intr masks the NIC (IMC) and netif_rx_schedule()s; e1000_clean
  /// polls with netdev->weight = 64 (research §3.2 "NAPI"). Needs a NAPI kernel profile.
  bool napi = false;
  /// When e1000_clean leaves polling mode (netif_rx_complete + e1000_irq_enable).
  enum class NapiExit {
    tx_idle_or_rx_short,  ///< 5.6.10.1-k2: if (!tx_cleaned || work_done < work_to_do || !netif_running)
    both_idle,            ///< 6.0.60-k2 on: if ((!tx_cleaned && work_done == 0) || !netif_running)
  };
  NapiExit napi_exit = NapiExit::both_idle;
  /// Default of InterruptThrottleRate when itr_param (5.0.43: 1 = dynamic; 5.6 and later: DEFAULT_ITR 8000).
  int default_itr = 1;
  /// e1000_clean_rx_irq prefetches (6.2.15 as 6.3.9 / 7.0.33): prefetch(skb->data - NET_IP_ALIGN) of the
  /// frame being cleaned and prefetch(next_rxd) of the next descriptor.
  bool rx_prefetch = false;
  /// RX copybreak length (E1000_CB_LENGTH 256 in 6.2.15 as 6.3.9; 0: the code is not there). Frames
  /// shorter than this are copied into a new small skb and the ring buffer is recycled.
  unsigned copybreak = 0;
  /// e1000_check_options also sets hw.original_fc (7.0.x; inferred for 6.2.15, research §3.2 Finding D):
  /// FlowControl's default then survives e1000_reset and reads the EEPROM. Without it, e1000_reset's
  /// `hw.fc = hw.original_fc` leaves flow control off (original_fc is still e1000_fc_none = 0).
  bool fc_sets_original = true;
  /// NETIF_F_LLTX: e1000_xmit_frame takes adapter->tx_lock with spin_trylock itself (5.6.2 on).
  bool lltx = false;
  /// FCRTH / FCRTL as e1000_reset computes them: 4.x E1000_FC_HIGH_THRESH 0x5000 / E1000_FC_LOW_THRESH
  /// 0x4000; 5.6+ (pba << 10) - E1000_FC_HIGH_DIFF (0x1638) / - E1000_FC_LOW_DIFF (0x1640) with the
  /// 48 KB RX packet buffer: 43,464 / 43,456 bytes (research §3.3).
  uint32_t fcrth = 0x5000, fcrtl = 0x4000;
  /// What e1000_watchdog does about frames posted to the TX ring while the carrier is off
  /// (research/link-faults-failover.md §A5, §A10):
  ///  hold:  nothing (4.4.12-k1, LH@2.4.20 e1000_watchdog): the MAC is disabled without link
  ///         (SDM §8.6.5.2), so they wait in the ring and leave, late, when the link returns;
  ///  flush: e1000_tx_flush (5.0.43-k1, LH@2.4.21 e1000_main.c l.1243): TXCW.ANE cleared,
  ///         CTRL.SLU|ILOS forced (a fake link), mdelay(10), e1000_clean_tx_irq, CTRL/TXCW restored,
  ///         ICR read "to clear the link status change interrupts this caused": the frames go out
  ///         onto the dead wire and are counted as sent;
  ///  reset: schedule_work(tx_timeout_task) = e1000_down + e1000_up (5.6.10.1-k2, 2.6.11.1
  ///         e1000_watchdog l.1423: "reset controller to flush Tx"): the ring's frames are freed.
  enum class LinkLossTx { hold, flush, reset };
  LinkLossTx link_loss_tx = LinkLossTx::hold;
  /// Where a user reads the driver's statistics (research/link-faults-failover.md §A5):
  ///  proc_pro_lan:      /proc/net/PRO_LAN_Adapters/ethN.info (e1000_proc.c; 4.4.12-k1 answers no
  ///                     ETHTOOL_GSTATS, so `ethtool -S` prints "no stats available");
  ///  ethtool_net_stats: `ethtool -S` with the 21 struct net_device_stats names, in the struct's
  ///                     order (5.0.43-k1, e1000_ethtool.c l.43);
  ///  unread:            the version's list was not read (4.2.8, 5.6.10.1, 6.x): nothing is shown.
  enum class StatsView { unread, proc_pro_lan, ethtool_net_stats };
  StatsView stats_view = StatsView::unread;
};
/// e1000 4.2.8-k1 (in-kernel, 2002-04-03; current on 1 May 2002): RxIntDelay 64 -> RDTR on
/// 82542/3/4, RADV 128 / RDTR 64 / ITR 488 on 82540+, TIDV 64, rings 80/256, TX reclaim in xmit.
const DriverProfile& profile_4_2_8_k1();
/// e1000 4.4.12-k1 (Linux 2.4.20, Oct 2002): ITR hardcoded 8000 ints/s on 82540+.
const DriverProfile& profile_4_4_12_k1();
/// e1000 5.0.43-k1 (Mar 2003): InterruptThrottleRate (default 1 = dynamic), RxDescriptors 256.
const DriverProfile& profile_5_0_43_k1();
/// e1000 5.6.10.1-k2 (Linux 2.6.11), NAPI: leaves polling when TX cleaned nothing or RX fell short.
const DriverProfile& profile_5_6_10_1_k2();
/// e1000 6.0.60-k2 (Linux 2.6.14), NAPI: leaves polling only when TX and RX were both idle.
const DriverProfile& profile_6_0_60_k2();
/// e1000 6.2.15 (Intel's out-of-tree release, Dec 2005; source not public: modelled on 6.3.9-k2 /
/// 7.0.33-k2, see e1000_napi.cpp): 6.0.60's NAPI plus RX prefetches, copybreak 256, flow control
/// from the EEPROM by default.
const DriverProfile& profile_6_2_15();

/// e1000_param.c OPTION_UNSET: a module parameter the user did not give (the driver takes its default).
inline constexpr int kOptionUnset = -1;
/// 4.2.8-k1 delays (1.024 µs units; LH@a4358d3aab e1000_param.c, e1000_main.c; research §2.2):
inline constexpr unsigned kDefaultRdtr428 = 64;  ///< DEFAULT_RDTR: RxIntDelay default on 82542/3/4 (65.5 µs)
inline constexpr unsigned kDefaultRadv428 = 128; ///< DEFAULT_RADV: RxIntDelay default on 82540+ (131 µs)
inline constexpr unsigned kRdtr82540_428 = 64;   ///< RDTR written on 82540+ when RxIntDelay goes to RADV
inline constexpr unsigned kTidv428 = 64;         ///< TIDV hard-coded in e1000_configure_tx (65.5 µs)

/// The module parameters after e1000_check_options (defaults applied, ranges checked).
struct Options {
  unsigned tx_descriptors = 256;  ///< TxDescriptors, rounded up to a multiple of 8
  unsigned rx_descriptors = 80;   ///< RxDescriptors, rounded up to a multiple of 8
  unsigned rx_int_delay = 0;      ///< RxIntDelay -> RDTR (1.024 µs units)
  unsigned rx_abs_int_delay = 128;///< RxAbsIntDelay -> RADV (1.024 µs), written for >= 82540 only
  unsigned tx_int_delay = 64;     ///< TxIntDelay -> TIDV (1.024 µs)
  unsigned tx_abs_int_delay = 64; ///< TxAbsIntDelay -> TADV (1.024 µs), written for >= 82540 only
  /// InterruptThrottleRate (5.x): 0 off, 1 dynamic, else interrupts/s. -1: no such parameter (4.4.x).
  int itr = -1;
  bool xsum_rx = true;            ///< XsumRX: RXCSUM.TUOFL on 82543+
  FcType flow_control = e1000_fc_default;  ///< FlowControl
  unsigned speed = 0, duplex = 0; ///< Speed (0/10/100/1000), Duplex (0 auto, 1 half, 2 full)
  unsigned autoneg = 0x2F;        ///< AutoNeg advertisement mask
  /// copybreak (profile.copybreak > 0 only): frames shorter than this many bytes are copied on
  /// receive; 0 = the copybreak code commented out (seed 003's fourth configuration).
  unsigned copybreak = 0;
  /// prefetch (profile.rx_prefetch only; a what-if, not a module parameter of the real driver):
  /// false = e1000_clean_rx_irq's two prefetch() calls commented out.
  bool rx_prefetch = false;
};

/// The module parameter schema of `p` (names as the real module parameters; unit, doc, source).
ParamSchema param_schema(const DriverProfile& p);
/// e1000_check_options: Options from `v` (which holds every param_schema name; throws
/// std::out_of_range otherwise) for a MAC of type `mac`. A value outside the driver's own valid set
/// (e.g. InterruptThrottleRate 2..99, a Speed not in {0,10,100,1000}, RxDescriptors above 256 before
/// the 82544) falls back to the default, as e1000_validate_option does. Descriptor counts are
/// rounded up to a multiple of 8 (E1000_ROUNDUP).
Options check_options(const ParamValues& v, const DriverProfile& p, MacType mac);

/// The driver's own cost-table paths (e1000_main.c functions), declared per cost profile in
/// e1000_costs.cpp (drivers-sim/kernel/driver_costs.h) and resolved once per Adapter at probe.
enum class Path : unsigned {
  e1000_intr,              ///< e1000_intr per call (prologue, ICR loop control)
  e1000_xmit_frame,        ///< e1000_xmit_frame per packet (tx_map + tx_queue descriptor stores)
  e1000_clean_rx_irq,      ///< e1000_clean_rx_irq per received descriptor (DD read, unmap, skb_put)
  e1000_clean_tx_irq,      ///< e1000_clean_tx_irq per cleaned descriptor
  e1000_alloc_rx_buffers,  ///< e1000_alloc_rx_buffers per buffer (reserve, map, descriptor store)
  e1000_watchdog,          ///< e1000_watchdog per call (link check and stats bookkeeping)
  e1000_clean,             ///< e1000_clean (NAPI poll) per call: work_to_do, exit test, irq_enable bookkeeping
  e1000_rx_copybreak,      ///< the copybreak block per copied frame: memcpy(len + NET_IP_ALIGN) per byte
};
/// Names of the Path entries, index = Path ("e1000_intr", ...).
const std::vector<std::string>& path_names();
/// Name of the driver family's cost tables (DriverCostTable::driver).
inline constexpr const char* kCostDriver = "e1000";

/// One port (PCI function) driven by the e1000 driver: struct net_device + struct e1000_adapter.
class Adapter : public NetDevice {
 public:
  /// Port `fn` of a device whose registers are at `bar` and whose interrupt arrives as `vector`;
  /// `dma_space` is the DmaTags space of the device (DmaTags::space_of(device SystemC name)).
  Adapter(Kernel& k, std::string name, const DriverProfile& profile, MacType mac, unsigned fn, uint64_t bar,
          unsigned vector, DmaTags::Space dma_space, const Options& opt);
  ~Adapter() override;

  // NetDevice
  /// e1000_open: waits (sleeping) until the probe process has finished, then sets up the rings and
  /// runs e1000_up. Returns 0, or -EBUSY (-16) when request_irq fails.
  Task<int> open() override;
  /// e1000_close: e1000_down (IMC, free_irq, del_timer, reset, ring cleanup) and frees the rings.
  Task<int> stop() override;
  /// e1000_xmit_frame: 0 when the skb was queued to the NIC, 1 (queue stopped) when the ring lacks
  /// descriptors for it.
  Task<int> hard_start_xmit(SkbPtr& skb) override;
  /// e1000_set_mac (2.4.20 e1000_main.c): dev_addr and the receive-address filter RAR0
  /// (e1000_rar_set) at once, up or down (the probe must have finished). Returns 0.
  Task<int> set_mac_address(std::array<uint8_t, 6> addr) override;
  /// bond_check_dev_link's answer: SIOCETHTOOL ETHTOOL_GLINK, which e1000_ethtool_ioctl answers
  /// with netif_carrier_ok (e1000_ethtool.c 4.2.8 @a4358d3aab l.327, 4.4.12-k1 in 2.4.20 l.476) —
  /// the carrier e1000_watchdog sets from STATUS.LU every 2 s. Returns 1 (carrier) or 0.
  int mii_link_status() override { return netif_carrier_ok() ? 1 : 0; }
  /// e1000_clean (NAPI, profile().napi): TX clean, then RX up to min(budget, quota) with
  /// netif_receive_skb; leaves polling per DriverProfile::napi_exit (e1000_napi.cpp).
  Task<bool> poll(int& budget) override;

  /// The probe's hardware part (run in process context by the probe process).
  Task<void> probe_hw();
  bool probed() const { return probed_; }
  /// netif_carrier_ok().
  bool carrier_ok() const { return netif_carrier_ok(); }

  const DriverProfile& profile() const { return *profile_; }
  MacType mac_type() const { return mac_; }
  unsigned function() const { return fn_; }
  uint64_t bar() const { return bar_; }
  const Options& options() const { return opt_; }
  unsigned rx_buffer_len() const { return rx_buffer_len_; }
  uint32_t txd_cmd() const { return txd_cmd_; }
  unsigned max_data_per_txd() const { return max_data_per_txd_; }
  FcType flow_control() const { return fc_; }

  struct RingState {
    uint64_t dma = 0;       ///< bus address of descriptor 0
    unsigned count = 0;     ///< descriptors
    unsigned next_to_use = 0, next_to_clean = 0;
  };
  RingState tx_ring_state() const;
  RingState rx_ring_state() const;
  /// ICR reads per e1000_intr call: isr_reads()[n] = calls that read ICR n times (n <= 10).
  const std::array<uint64_t, E1000_MAX_INTR + 1>& isr_reads() const { return isr_reads_; }
  /// Accumulated statistics registers (struct e1000_hw_stats subset) from e1000_update_stats.
  struct HwStats {
    uint64_t crcerrs = 0, gprc = 0, gorcl = 0, gorch = 0, bprc = 0, mprc = 0, roc = 0, mpc = 0, gptc = 0,
             gotcl = 0, gotch = 0, rnbc = 0, tpr = 0, tpt = 0, colc = 0, ecol = 0, latecol = 0, rlec = 0,
             algnerrc = 0, rxerrc = 0, cexterr = 0, tncrs = 0, xonrxc = 0, xontxc = 0, xoffrxc = 0, xofftxc = 0,
             dc = 0, scc = 0, mcc = 0, ruc = 0;
  };
  const HwStats& hw_stats() const { return stats_; }
  /// struct net_device_stats as e1000_update_stats last filled adapter->net_stats (every 2 s, in
  /// the watchdog: what a user reads is up to 2 s old), field by field in the struct's order
  /// (2.4 include/linux/netdevice.h, without rx/tx_compressed): {ethtool name, value}. The driver
  /// never sets rx_over_errors, tx_fifo_errors, tx_heartbeat_errors (0); tx_dropped is the core's.
  std::vector<std::pair<std::string, uint64_t>> net_stats() const;
  /// What `ethtool -S <ifname>` prints with this driver version (DriverProfile::stats_view):
  /// "NIC statistics:" and a line per stat, or ethtool's "no stats available" when the version
  /// answers no ETHTOOL_GSTATS; empty when the version's list was not read.
  std::string ethtool_stats_text() const;
  /// /proc/net/PRO_LAN_Adapters/<ifname>.info of 4.4.12-k1 (e1000_proc_info_read: "%-32.32s %s"
  /// per attribute, a blank line between groups, one more at the end), from its "Link" line to
  /// Rx_CSum_Offload_Errors: link state, the net_device_stats and the 8254x counters. The identity
  /// block above it (part number, PCI IDs, slot, IRQ, MAC addresses) and the PHY cable diagnostics
  /// below it are not shown (not modelled). Empty for other versions.
  std::string proc_pro_lan_info() const;

 private:
  struct Buffer {
    SkbPtr skb;
    uint64_t dma = 0;
    uint32_t length = 0;
    uint64_t time_stamp = 0;  ///< jiffies when mapped (TX hang check)
  };
  struct Ring {
    uint64_t dma = 0;
    size_t size = 0;  ///< bytes allocated (count × 16 rounded up to 4 KB)
    unsigned count = 0;
    unsigned next_to_use = 0, next_to_clean = 0;
    std::vector<Buffer> buffer_info;
  };

  MmioAccess rd(uint32_t off) const { return mmio_read32(bar_ + off); }
  MmioAccess wr(uint32_t off, uint32_t v) const { return mmio_write32(bar_ + off, v); }
  Task<void> flush();  ///< E1000_WRITE_FLUSH: a STATUS read
  Task<uint16_t> read_phy(uint32_t reg);
  Task<void> write_phy(uint32_t reg, uint16_t v);

  // e1000_hw.c
  Task<void> reset();  ///< e1000_reset
  Task<void> reset_hw();
  Task<void> init_hw();
  Task<void> init_rx_addrs();
  /// e1000_rar_set(hw, dev_addr, 0): the station address into RAR0 with Address Valid.
  Task<void> rar_set0();
  Task<void> setup_link();
  Task<void> setup_copper_link();
  Task<void> config_fc_after_link_up();
  Task<void> config_collision_dist();
  Task<void> clear_hw_cntrs();
  Task<void> check_for_link();

  // e1000_main.c
  Task<int> up();
  Task<void> down();
  void setup_tx_resources();
  void setup_rx_resources();
  void free_tx_resources();
  void free_rx_resources();
  Task<void> set_multi();
  Task<void> configure_tx();
  Task<void> setup_rctl();
  Task<void> configure_rx();
  /// e1000_alloc_rx_buffers: `cleaned_count` < 0 refills every empty slot from next_to_use (up to
  /// 6.0.60); >= 0 refills that many slots, re-mapping a buffer the copybreak kept (6.3.9).
  Task<void> alloc_rx_buffers(int cleaned_count = -1);
  Task<void> irq_enable();
  Task<void> irq_disable();
  Task<void> intr();
  /// e1000_clean_rx_irq. `work_done`/`work_to_do`: the NAPI form (stop after work_to_do frames,
  /// deliver with netif_receive_skb); nullptr: the 2.4 form (every DD descriptor, netif_rx).
  /// Returns whether it cleaned a descriptor.
  Task<bool> clean_rx_irq(sc_time t_pass, int* work_done = nullptr, int work_to_do = 0);
  /// The NAPI half of e1000_intr (e1000_napi.cpp): ICR read, netif_rx_schedule_prep, IMC.
  Task<void> intr_napi();
  /// The copybreak block of e1000_clean_rx_irq: `skb` (length bytes incl. FCS stripped) is copied
  /// into a new small skb, the ring buffer kept for refill. Returns the skb to deliver.
  Task<SkbPtr> rx_copybreak(Buffer& b, SkbPtr skb, uint32_t length, JourneyId j);
  /// Load RX descriptor `i` (charging the cache miss when the NIC wrote it) into `desc`. Returns
  /// when the miss stall began, SC_ZERO_TIME when the line was cached.
  Task<sc_time> load_rx_desc(unsigned i, RxDescView& desc);
  /// e1000_clean_tx_irq. Returns whether it cleaned a descriptor (the NAPI exit test).
  Task<bool> clean_tx_irq();
  Task<void> watchdog();
  /// e1000_tx_flush (5.0.43-k1; DriverProfile::link_loss_tx = flush).
  Task<void> tx_flush();
  /// TX descriptors posted and not yet cleaned (E1000_DESC_UNUSED(txdr) + 1 < txdr->count).
  unsigned tx_pending() const;
  Task<void> update_stats();
  std::string where() const;

  const DriverProfile* profile_;
  MacType mac_;
  unsigned fn_;
  uint64_t bar_;
  DriverCosts costs_;  ///< this driver's cost entries under the kernel's cost profile (Path index)
  DmaTags::Space space_;
  Options opt_;
  /// A clean_tx_irq is running (suspended on a cost or a cache miss): a second caller (the ISR
  /// preempting the reclaim in e1000_xmit_frame) returns at once instead of walking the same
  /// descriptors; the running one keeps cleaning every DD descriptor it finds (like tx_lock).
  bool tx_cleaning_ = false;
  // struct e1000_hw state
  bool copper_ = true;
  bool bus_pcix_ = false;
  FcType fc_ = e1000_fc_default, original_fc_ = e1000_fc_default;
  bool get_link_status_ = true;
  unsigned link_speed_ = 0;
  bool full_duplex_ = false;
  // struct e1000_adapter state
  unsigned rx_buffer_len_ = E1000_RXBUFFER_2048;
  unsigned max_data_per_txd_ = MAX_JUMBO_FRAME_SIZE;
  uint32_t txd_cmd_ = 0;
  int irq_sem_ = 1;
  bool irq_requested_ = false;
  Ring tx_ring_, rx_ring_;
  TimerList watchdog_timer_;
  HwStats stats_;
  uint64_t hw_csum_good_ = 0, hw_csum_err_ = 0;  ///< e1000_rx_checksum's adapter->hw_csum_good / _err
  uint64_t gotcl_old_ = 0, gorcl_old_ = 0;
  bool probed_ = false;
  WaitQueue probe_wq_;
  std::array<uint64_t, E1000_MAX_INTR + 1> isr_reads_{};
  uint64_t *c_intr_, *c_icr_reads_, *c_icr_zero_, *c_loop_limit_, *c_rdt_writes_, *c_tdt_writes_, *c_tx_busy_,
      *c_watchdog_;
  /// Frames freed from the TX ring by a reset after link loss (link_loss_tx = reset), and frames
  /// sent by e1000_tx_flush into a forced link (flush): "<host>.<ifname>.tx_ring_reset_freed",
  /// ".tx_flushed".
  uint64_t *c_tx_reset_freed_ = nullptr, *c_tx_flushed_ = nullptr;
  uint64_t *c_polls_ = nullptr, *c_poll_exits_ = nullptr, *c_copybreak_ = nullptr;
};

/// pci_driver.probe for `profile` (DriverEntry::probe contract, drivers-sim/driver_entry.h): one Adapter per
/// PCI function of `dev` (port 0 named nic.ifname, port i nic.ifname + ":" + i), registered with `k`,
/// and one process "insmod e1000 <nic.ifname>" started now that runs each port's probe_hw() in turn.
/// The part is identified by dev.info().name (PCI config space), falling back to nic.device.
/// Throws std::invalid_argument for a part the driver does not support, or when `vectors` lacks a
/// function's interrupt vector or `dev` is not a SystemC object (its DMA tag space is its name).
std::vector<std::shared_ptr<NetDevice>> probe(const DriverProfile& profile, Kernel& k, PciDevice& dev,
                                              const std::vector<unsigned>& vectors, const ProbeTarget& nic,
                                              const ParamValues& params);

}  // namespace nicsim::e1000drv
