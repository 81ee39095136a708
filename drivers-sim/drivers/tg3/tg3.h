// Linux tg3 driver model: Broadcom Tigon3 (BCM5701), version 0.99 (Jun 11 2002, the driver of
// mainline 2.4.19, released 3 Aug 2002): non-NAPI, adaptive RX coalescing, netif_rx from hard IRQ;
// and version 1.0 (Jul 18 2002, Red Hat 8.0's 2.4.18-14): NAPI (see "tg3 1.0" below).
//
// Why 0.99 is the default for seed 004 (27 Aug 2002, research/seeds-001-004-platforms-drivers.md
// §4.1): the post does not name the driver; a stock kernel of that month is 2.4.19 (tg3 0.99), the
// same machine type on SuSE 2.4.18 printed 0.97 (non-NAPI, the same coalescing scheme), and the
// NAPI v1.0 reached users with Red Hat 8.0 (Sep 2002, after the post) and mainline only with 2.4.20
// (Nov 2002, v1.2).
//
// tg3 1.0 (DriverEntry "tg3-1.0"; research §1.2, RH tg3.c ≈1907-2006): the same open/xmit/rx/tx
// paths with 1.0's coalescing (rx-usecs 0, rx-frames 1, rx-frames-irq 1, tx-usecs 150, tx-frames 5,
// no during-interrupt ticks, no adaptive scheme, no CLRTICK); dev->weight 64. ISR: Updated clear ->
// not ours; else mailbox 0 = 1, clear Updated, MISC_HOST_CTRL_MASK_PCI_INT, netif_rx_schedule,
// mailbox 0 = 0 and read back. tg3_poll: reap TX, tg3_rx up to min(budget, quota) with
// netif_receive_skb; no work left -> netif_rx_complete and tg3_enable_ints (unmask, mailbox 0 = 0,
// GRC_LCLCTRL_SETINT when Updated is set again). It needs a kernel profile with napi = true (the
// 2.4 NAPI backport Red Hat shipped); the 2.4.20 profile has none, and the probe refuses it.
//
// Sources: LH@2.4.19 drivers/net/tg3.c / tg3.h (research §4.3: TX BDs in NIC SRAM by writel,
// MAILBOX_SNDNIC_PROD_IDX_0, rings 512/1024, 200 std buffers posted, RX_PKT_BUF_SZ = 1536 +
// rx_offset + 64, RX_COPY_THRESHOLD 256, rx_offset 0 on a 5701 in PCI-X mode, DMA_RWCTRL in PCI-X
// mode, the ISR loop on SD_STATUS_UPDATED, adaptive bands); the coalescing defaults and the
// adaptive scheme from research/tg3-bonding-tcp-gmac-formats.md §1.2 (BK 95ac8b440c); the register
// and descriptor layout from lorenzo-stoakes/linux-historical drivers/net/tg3.h (v1.37.2.32).
//
// What the model does:
//  * probe (tg3_init_one / tg3_get_invariants / tg3_get_device_address, in an "insmod tg3" process):
//    MISC_HOST_CTRL (chip revision), TG3PCI_PCISTATE (PCI-X mode -> rx_offset 0 on the 5701),
//    MAC_ADDR_0_HIGH/LOW; dev->features NETIF_F_SG | NETIF_F_IP_CSUM.
//  * open (tg3_open -> tg3_init_rings, tg3_init_hw subset): consistent memory for the std ring
//    (512 x 32 B), the return ring (1024 x 32 B), the status block (0x80) and the statistics block
//    (0x800); std BDs with idx_len RX_PKT_BUF_SZ - rx_offset - 64 and opaque RXD_OPAQUE_RING_STD | i,
//    200 skbs of RX_PKT_BUF_SZ (skb_reserve rx_offset) posted; the 512 send BDs in NIC SRAM zeroed
//    with writel; MISC_HOST_CTRL (MASK_PCI_INT), DMA_RWCTRL (write code 7, read code 6, watermarks 3,
//    min DMA 0x0f, USE_MEM_READ_MULT), the MAC address, the send RCB (NIC address
//    NIC_SRAM_TX_BUFFER_DESC) and return RCB (host address, 1024 << 16) in NIC SRAM, RCVDBDI_STD_BD,
//    the producer/consumer mailboxes, the eight coalescing registers and HOSTCC_STAT_COAL_TICKS,
//    the status/statistics block addresses, HOSTCC_MODE = ENABLE | 32BYTE | CLRTICK_RXBD |
//    CLRTICK_TXBD, MAC_RX_MTU_SIZE, MAC_TX_MODE / MAC_RX_MODE enable; the PHY (BMSR twice,
//    MII_TG3_AUX_STAT) -> netif_carrier_on; request_irq (SA_SHIRQ); tg3_enable_ints (unmask,
//    mailbox 0 = 0, read back; GRC_LCLCTRL_SETINT if Updated is already set).
//  * tg3_start_xmit: TX_BUFFS_AVAIL <= MAX_SKB_FRAGS + 1 -> busy; pci_map_single; tg3_set_txd:
//    four writel into the SRAM BD (addr_hi, addr_lo, len << 16 | flags, vlan_tag), TXD_FLAG_END,
//    TXD_FLAG_TCPUDP_CSUM for CHECKSUM_HW; writel of the producer to MAILBOX_SNDNIC_PROD_IDX_0 + 4;
//    stop the queue when TX_BUFFS_AVAIL <= MAX_SKB_FRAGS + 1 afterwards.
//  * tg3_interrupt (0.99, no NAPI): Updated clear -> not ours (shared line). Otherwise mailbox 0 = 1
//    (the chip switches to the during-interrupt set and raises no INTA), then loop while Updated:
//    clear it, tg3_rx if idx[0].rx_producer moved, tg3_tx if idx[0].tx_consumer moved; then the
//    rate sample (once per rate_sample_jiffies), mailbox 0 = 0 and a read back.
//  * tg3_rx: for each return BD up to rx_producer: the std index from opaque, len = idx_len - 4
//    (FCS); len > RX_COPY_THRESHOLD (256): unmap and hand the ring skb up, a new skb takes the slot
//    (tg3_alloc_rx_skb); else copy into a new skb of len + 2 (skb_reserve 2) and recycle the buffer
//    (tg3_recycle_rx). RXD_FLAG_TCPUDP_CSUM with ip_tcp_csum 0xffff -> CHECKSUM_UNNECESSARY.
//    eth_type_trans, netif_rx. Then MAILBOX_RCVRET_CON_IDX_0 = new consumer and
//    MAILBOX_RCV_STD_PROD_IDX = new producer.
//  * tg3_tx: from tx_cons to idx[0].tx_consumer: unmap, dev_kfree_skb_irq; wake the queue when
//    TX_BUFFS_AVAIL > MAX_SKB_FRAGS + 1.
//  * Adaptive RX coalescing (tg3_rate_sample, on by default; adaptive TX off): once per
//    rate_sample_jiffies (HZ) the packet rate = (rx_ucast_packets + tx_ucast_packets deltas, from
//    the statistics block the chip DMAs every stat-block-usecs) / seconds; below pkt-rate-low the LOW
//    set, above pkt-rate-high the HIGH set, else the DEFAULT set is written to HOSTCC_RXCOL_TICKS /
//    HOSTCC_RXMAX_FRAMES when it changes. The 0.99 source (2.4.19 drivers/net/tg3.c tg3_rate_sample,
//    MaximeChretien/linux-history tag 2.4.19) sums rx_ucast_packets and
//    COS_out_packets[0] and divides by the whole seconds elapsed (integer ticks / HZ); the model
//    reads tx_ucast_packets (the same count here: the workloads send no broadcast or multicast) and
//    divides by the exact seconds (the sample runs at the first interrupt 1 s after the last: the
//    same divisor, 1).
//
// 802.3x flow control (tg3 1.0, RH 2.4.18-14 drivers/net/tg3.c; 0.99's not re-read): tg3_reset_hw
// writes MAC_TX_MODE = TX_MODE_ENABLE and MAC_RX_MODE = RX_MODE_ENABLE, then tg3_setup_phy. With
// link at full duplex tg3_setup_copper_phy reads MII_ADVERTISE and MII_LPA; if our pause bits are
// not exactly ADVERTISE_PAUSE_CAP (the BCM5701 PHY model comes up advertising PAUSE_CAP |
// PAUSE_ASYM, 0x0DE1) the link counts as down and tg3_phy_copper_begin re-advertises CSMA |
// PAUSE_CAP | 10/100 (0x05E1) and restarts auto-negotiation; otherwise tg3_setup_flow_control
// (resolve_flow_control here) puts RX_MODE_FLOW_CTRL_ENABLE / TX_MODE_FLOW_CTRL_ENABLE into
// tp->rx_mode / tp->tx_mode only. Neither register is written again (__tg3_set_rx_mode writes
// MAC_RX_MODE only when its own value changes), so the chip runs with flow control off whatever
// the partner advertises: it neither obeys nor sends PAUSE, as in this model, which writes the
// same two registers. Known gap: the model does not perform those MII reads/writes (about 7 MI
// frames, +270 µs of ifup CPU per open). Adding them changes no register the chip acts on, but
// moves the open's timing and with it the seed-004 bonded runs' phase (bonded-rr-256k NetPIPE
// 467.2 -> 472.8 Mbps at 262144 B, 457.3 -> 470.5 at 262147 B; bonded-rr-64k counters), so it waits
// for a baseline regeneration (results move only in a commit of their own that says why). The
// same holds for the rest of tg3_setup_copper_phy at open (MAC_STATUS write, MII_TG3_ISTAT read
// twice, MII_TG3_IMASK and MAC_EVENT writes: 3 MI frames and 2 register writes, +115 µs of ifup
// CPU). What their absence changes: on a Dell board nothing (the PHY model's MII_TG3_IMASK resets
// unmasked, an estimate, and the only source it raises is MII_TG3_INT_LINKCHG, the one tg3 unmasks
// there; ISTAT holds nothing before the first link change); on other boards MAC_EVENT stays 0
// until the first setup_copper_phy, so the chip raises no link-change attention and tg3 never
// sees the link go (the shipped fault scenarios use the PE2650's Dell boards).
//
// Link (research/link-faults-failover.md §A3; 2.4.19 drivers/net/tg3.c, tg3 0.99, read with git in
// MaximeChretien/linux-history: tg3_get_invariants, tg3_setup_copper_phy, tg3_timer,
// tg3_interrupt_main_work, tg3_ethtool_ioctl; 1.2 in 2.4.20 the same):
//  * tg3_get_invariants: on a 5701 with a copper PHY neither TG3_FLAG_USE_LINKCHG_REG (5700 only)
//    nor TG3_FLAG_USE_MI_INTERRUPT; on any Dell board (pdev->subsystem_vendor ==
//    PCI_VENDOR_ID_DELL, which the PCI core read at enumeration: the device model's SystemC
//    attribute PCI_SUBSYSTEM_VENDOR_ID here) both: "force the link
//    status polling mechanism based upon subsystem IDs".
//  * tg3_setup_copper_phy (from tg3_timer and from the interrupt; at open only its BMSR and
//    MII_TG3_AUX_STAT reads so far, see "Known gap"): MAC_STATUS =
//    SYNC_CHANGED | CFG_CHANGED; MII_TG3_ISTAT read twice ("Clear pending interrupts");
//    MII_TG3_IMASK = ~MII_TG3_INT_LINKCHG with USE_MI_INTERRUPT, else ~0; BMSR twice (the link bit
//    is latched low); with link, MII_TG3_AUX_STAT for the speed; MAC_EVENT = 0 when polled by the
//    timer (USE_LINKCHG_REG), else MAC_EVENT_LNKSTATE_CHANGED; then, when the link differs from
//    the carrier, netif_carrier_on/off and tg3_link_report ("eth0: Link is down."). No
//    netif_stop_queue and no ring flush: the carrier only.
//  * tg3_timer: 0.99 on a 5701 runs with tagged status, so timer_offset = HZ and timer_multiplier
//    = 1: once a second; with USE_LINKCHG_REG it reads MAC_STATUS and calls tg3_setup_phy when
//    MAC_STATUS_MI_INTERRUPT (USE_MI_INTERRUPT) or MAC_STATUS_LNKSTATE_CHANGED is set. A Dell board
//    thus learns of a link change 0-1 s after its PHY declares it (research §A8). tg3 1.0 (no tagged
//    status) runs the timer every HZ/10 with the link part on every tenth run; the model runs only
//    those (the nine others do the 5700 status-block race workaround, not modelled).
//  * Other boards: MAC_EVENT_LNKSTATE_CHANGED makes the chip set SD_STATUS_LINK_CHG in the status
//    block and interrupt; tg3_interrupt_main_work (0.99) / tg3_poll (1.0) clear the bit and call
//    tg3_setup_phy at once.
//  * ETHTOOL_GLINK answers netif_carrier_ok (tg3_ethtool_ioctl): what 2.4.20 bonding's
//    bond_check_dev_link asks first (mii_link_status).
//  * dev_watchdog's tg3_tx_timeout (5 s) runs only with the carrier on (research §A6): not
//    modelled (a frame held by a link-down MAC leaves when the link returns).
//
// Not modelled: tagged status (0.99 on non-5700 parts writes the status tag to the mailbox and sets
// MISC_HOST_CTRL_TAGGED_STATUS; the NIC model has no tags, the ISR follows the untagged loop of
// research §4.3), the jumbo ring, ethtool -S, VLAN, tg3_tx_timeout; in tg3_setup_copper_phy the
// MII_TG3_EXT_CTRL (LED mode), MAC_MI_MODE, MAC_MODE and MAC_LED_CTRL writes and the MII_BMCR /
// MII_TG3_CTRL reads (they change nothing the chip model acts on), besides the "Known gap" above.
//
// Journeys: TX "doorbell" (before the mailbox write), RX via mark_rx_journey (drivers-sim/kernel/
// rx_journey.h). Counters: <host>.<ifname>.driver.{intr, intr_not_ours, isr_loops, rx_frames,
// rx_copybreak, tx_cleaned, tx_busy, coal_band_changes}.
#pragma once
#include "core/dma_tags.h"
#include "core/params.h"
#include "drivers-sim/driver_entry.h"
#include "drivers-sim/kernel/kernel.h"
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nicsim {
class PciDevice;
}

namespace nicsim::tg3drv {

// ---------------------------------------------------------------- the driver's own register map (tg3.h)
inline constexpr uint32_t TG3_64BIT_REG_LOW = 0x04;
inline constexpr uint32_t TG3_BDINFO_HOST_ADDR = 0x0, TG3_BDINFO_MAXLEN_FLAGS = 0x8, TG3_BDINFO_NIC_ADDR = 0xc;
inline constexpr uint32_t BDINFO_FLAGS_MAXLEN_SHIFT = 16;
inline constexpr uint32_t TG3PCI_MISC_HOST_CTRL = 0x68, MISC_HOST_CTRL_MASK_PCI_INT = 0x2,
                          MISC_HOST_CTRL_WORD_SWAP = 0x8, MISC_HOST_CTRL_PCISTATE_RW = 0x10,
                          MISC_HOST_CTRL_CLKREG_RW = 0x20, MISC_HOST_CTRL_INDIR_ACCESS = 0x80,
                          MISC_HOST_CTRL_CHIPREV_SHIFT = 16;
inline constexpr uint32_t TG3PCI_DMA_RW_CTRL = 0x6c, DMA_RWCTRL_MIN_DMA_SHIFT = 0, DMA_RWCTRL_READ_WATER_SHIFT = 16,
                          DMA_RWCTRL_WRITE_WATER_SHIFT = 19, DMA_RWCTRL_USE_MEM_READ_MULT = 0x00400000,
                          DMA_RWCTRL_PCI_READ_CMD_SHIFT = 24, DMA_RWCTRL_PCI_WRITE_CMD_SHIFT = 28;
inline constexpr uint32_t TG3PCI_PCISTATE = 0x70, PCISTATE_CONV_PCI_MODE = 0x4;
inline constexpr uint32_t MAILBOX_INTERRUPT_0 = 0x200, MAILBOX_RCV_STD_PROD_IDX = 0x268,
                          MAILBOX_RCVRET_CON_IDX_0 = 0x280, MAILBOX_SNDNIC_PROD_IDX_0 = 0x380;
inline constexpr uint32_t PCI_SUBSYSTEM_VENDOR_ID = 0x2c, PCI_VENDOR_ID_DELL = 0x1028;
inline constexpr uint32_t MAC_STATUS = 0x404, MAC_STATUS_CFG_CHANGED = 0x8, MAC_STATUS_SYNC_CHANGED = 0x10,
                          MAC_STATUS_LNKSTATE_CHANGED = 0x1000, MAC_STATUS_MI_INTERRUPT = 0x00800000;
inline constexpr uint32_t MAC_EVENT = 0x408, MAC_EVENT_LNKSTATE_CHANGED = 0x1000;
inline constexpr uint32_t MAC_ADDR_0_HIGH = 0x410, MAC_ADDR_0_LOW = 0x414, MAC_RX_MTU_SIZE = 0x43c;
inline constexpr uint32_t MAC_MI_COM = 0x44c, MI_COM_CMD_WRITE = 0x04000000, MI_COM_CMD_READ = 0x08000000,
                          MI_COM_START = 0x20000000, MI_COM_BUSY = 0x20000000, MI_COM_PHY_ADDR_SHIFT = 21,
                          MI_COM_REG_ADDR_SHIFT = 16;
inline constexpr uint32_t MAC_TX_MODE = 0x45c, TX_MODE_ENABLE = 0x2, MAC_RX_MODE = 0x468, RX_MODE_ENABLE = 0x2;
inline constexpr uint32_t RCVDBDI_STD_BD = 0x2450;
inline constexpr uint32_t HOSTCC_MODE = 0x3c00, HOSTCC_MODE_ENABLE = 0x2, HOSTCC_MODE_32BYTE = 0x100,
                          HOSTCC_MODE_CLRTICK_RXBD = 0x200, HOSTCC_MODE_CLRTICK_TXBD = 0x400;
inline constexpr uint32_t HOSTCC_RXCOL_TICKS = 0x3c08, HOSTCC_TXCOL_TICKS = 0x3c0c, HOSTCC_RXMAX_FRAMES = 0x3c10,
                          HOSTCC_TXMAX_FRAMES = 0x3c14, HOSTCC_RXCOAL_TICK_INT = 0x3c18,
                          HOSTCC_TXCOAL_TICK_INT = 0x3c1c, HOSTCC_RXCOAL_MAXF_INT = 0x3c20,
                          HOSTCC_TXCOAL_MAXF_INT = 0x3c24, HOSTCC_STAT_COAL_TICKS = 0x3c28,
                          HOSTCC_STATS_BLK_HOST_ADDR = 0x3c30, HOSTCC_STATUS_BLK_HOST_ADDR = 0x3c38;
inline constexpr uint32_t GRC_LOCAL_CTRL = 0x6808, GRC_LCLCTRL_SETINT = 0x4;
inline constexpr uint32_t GRC_MISC_CFG = 0x6804, GRC_MISC_CFG_CORECLK_RESET = 0x1;
inline constexpr uint32_t NIC_SRAM_WIN_BASE = 0x8000, NIC_SRAM_SEND_RCB = 0x100, NIC_SRAM_RCV_RET_RCB = 0x200,
                          NIC_SRAM_TX_BUFFER_DESC = 0x4000, NIC_SRAM_RX_BUFFER_DESC = 0x6000;
inline constexpr uint32_t SD_STATUS_UPDATED = 0x1, SD_STATUS_LINK_CHG = 0x2;
inline constexpr unsigned TXD_SIZE = 16, RXD_SIZE = 32;
inline constexpr uint32_t TXD_FLAG_TCPUDP_CSUM = 0x1, TXD_FLAG_END = 0x4, TXD_LEN_SHIFT = 16;
inline constexpr uint32_t RXD_IDX_SHIFT = 16, RXD_LEN_MASK = 0xffff, RXD_FLAG_END = 0x4, RXD_FLAG_TCPUDP_CSUM = 0x2000;
inline constexpr uint32_t RXD_OPAQUE_RING_STD = 0x00010000, RXD_OPAQUE_INDEX_MASK = 0xffff;
inline constexpr unsigned PHY_ADDR = 1, MII_BMSR = 1, MII_TG3_AUX_STAT = 0x19, MII_TG3_ISTAT = 0x1a, MII_TG3_IMASK = 0x1b;
inline constexpr uint16_t MII_TG3_INT_LINKCHG = 0x0002;
/// tg3_flags bits the link path tests (the model's own values; tg3.h names).
inline constexpr uint32_t TG3_FLAG_USE_LINKCHG_REG = 0x1, TG3_FLAG_USE_MI_INTERRUPT = 0x2;
inline constexpr uint16_t BMSR_LSTATUS = 0x0004;
// include/linux/mii.h pause bits of the advertisement / link partner ability (resolve_flow_control)
inline constexpr uint16_t ADVERTISE_PAUSE_CAP = 0x0400, ADVERTISE_PAUSE_ASYM = 0x0800, LPA_PAUSE_CAP = 0x0400,
                          LPA_PAUSE_ASYM = 0x0800;
inline constexpr uint32_t TG3_FLAG_RX_PAUSE = 0x1, TG3_FLAG_TX_PAUSE = 0x2;  ///< the model's own bit values

/// tg3_setup_flow_control (tg3 1.0, RH 2.4.18-14 drivers/net/tg3.c; 802.3 Table 28B-3's
/// resolution): the TG3_FLAG_RX_PAUSE / TG3_FLAG_TX_PAUSE the pause bits of our advertisement
/// (`local_adv`) and the partner's (`remote_adv`) give.
uint32_t resolve_flow_control(uint32_t local_adv, uint32_t remote_adv);
inline constexpr unsigned STATS_RX_UCAST_PACKETS = 0x118, STATS_TX_UCAST_PACKETS = 0x3d8;  ///< tg3_hw_stats offsets

inline constexpr unsigned TG3_RX_RING_SIZE = 512, TG3_DEF_RX_RING_PENDING = 200, TG3_RX_RCB_RING_SIZE = 1024;
inline constexpr unsigned TG3_TX_RING_SIZE = 512, TG3_DEF_TX_RING_PENDING = TG3_TX_RING_SIZE - 1;
inline constexpr unsigned RX_COPY_THRESHOLD = 256, RX_STD_MAX_SIZE = 1536;
inline constexpr unsigned MAX_SKB_FRAGS = 18;  ///< include/linux/skbuff.h (65536 / PAGE_SIZE + 2) on i386
inline constexpr unsigned TG3_HW_STATUS_SIZE = 0x80, TG3_HW_STATS_SIZE = 0x800;

/// The coalescing settings (struct tg3_coalesce_config) under their ethtool -C names.
struct Coalesce {
  unsigned rx_usecs = 72, rx_frames = 8, rx_usecs_irq = 25, rx_frames_irq = 5;     ///< DEFAULT_RXCOL_TICKS 0x48, ...
  unsigned tx_usecs = 300, tx_frames = 75, tx_usecs_irq = 25, tx_frames_irq = 5;   ///< DEFAULT_TXCOL_TICKS 0x12c, ...
  unsigned stats_block_usecs = 1000000;                                           ///< DEFAULT_STAT_COAL_TICKS
  bool adaptive_rx = true, adaptive_tx = false;
  bool napi = false;  ///< the driver version: 0.99 (false) or 1.0 (NAPI, dev->weight 64)
  unsigned pkt_rate_low = 22000, pkt_rate_high = 61000;                            ///< packets/s
  unsigned rx_usecs_low = 50, rx_frames_low = 5, tx_usecs_low = 150, tx_frames_low = 53;     ///< LOW_* (tg3.h)
  unsigned rx_usecs_high = 150, rx_frames_high = 18, tx_usecs_high = 325, tx_frames_high = 82;  ///< HIGH_*
};

/// tg3 1.0's settings (RH 2.4.18-14 tg3.c tg3_reset_hw "Setup host coalescing engine", research
/// §1.2): RX update on every frame, TX after 5 BDs or 150 µs, no during-interrupt values, no
/// adaptive scheme, no CLRTICK (no tagged status).
Coalesce coalesce_1_0();
/// The parameter schema (ethtool -C names) with `d`'s values as defaults; `adaptive`: the
/// version has the adaptive scheme (0.99) and its parameters.
ParamSchema param_schema(const Coalesce& d = {}, bool adaptive = true);
/// The settings from validated values of param_schema(); fields the schema lacks keep `base`'s.
/// Throws std::out_of_range for a missing name.
Coalesce coalesce_from(const ParamValues& v, const Coalesce& base = {});

/// The driver's own cost-table paths (tg3.c functions).
enum class Path : unsigned {
  tg3_interrupt,   ///< tg3_interrupt per call (lock, status check)
  tg3_start_xmit,  ///< tg3_start_xmit per packet (map, BD build, ring bookkeeping; the writel are MMIO)
  tg3_rx,          ///< tg3_rx per return BD (ring bookkeeping, unmap or recycle)
  tg3_rx_copy,     ///< the copybreak copy (per byte)
  tg3_tx,          ///< tg3_tx per completed BD (unmap, dev_kfree_skb_irq)
  tg3_alloc_rx_skb,///< tg3_alloc_rx_skb / tg3_recycle_rx per buffer (descriptor stores)
  tg3_rate_sample, ///< tg3_rate_sample per call
  tg3_timer,       ///< tg3_timer per run (lock, the once-a-second test; MAC_STATUS is MMIO)
};
const std::vector<std::string>& path_names();
inline constexpr const char* kCostDriver = "tg3";
inline constexpr const char* kDriverName = "tg3-0.99";
inline constexpr const char* kDriverName10 = "tg3-1.0";

/// One BCM5701 port driven by tg3: struct net_device + struct tg3.
class Tg3 : public NetDevice {
 public:
  Tg3(Kernel& k, std::string name, uint64_t bar, unsigned vector, DmaTags::Space dma_space, const Coalesce& c);
  ~Tg3() override;

  Task<int> open() override;
  Task<int> stop() override;
  Task<int> hard_start_xmit(SkbPtr& skb) override;
  /// tg3_set_mac_addr: waits for the probe process (which reads MAC_ADDR_0 into dev_addr), then
  /// -EBUSY (-16) while up, else copies into dev_addr; tg3_reset_hw programs MAC_ADDR_0 at open.
  /// estimate: the 2002 tg3_set_mac_addr source was not found; this is ether_setup's rule, which
  /// later tg3 versions extend with a write while running.
  Task<int> set_mac_address(std::array<uint8_t, 6> addr) override;
  /// tg3_poll (1.0, NAPI): reap TX, then tg3_rx up to min(budget, quota); done: netif_rx_complete
  /// and tg3_enable_ints.
  Task<bool> poll(int& budget) override;
  /// SIOCETHTOOL ETHTOOL_GLINK, which bond_check_dev_link asks first: tg3_ethtool_ioctl answers
  /// netif_carrier_ok (0.99 and 1.2), so bonding sees the link as tg3_setup_copper_phy last set it.
  int mii_link_status() override { return netif_carrier_ok() ? 1 : 0; }

  /// tg3_init_one's hardware part, run by the probe process.
  Task<void> probe_hw();
  bool probed() const { return probed_; }
  unsigned rx_offset() const { return rx_offset_; }
  uint32_t chip_rev_id() const { return chip_rev_id_; }
  const Coalesce& coalesce() const { return c_; }
  /// TG3_FLAG_USE_LINKCHG_REG / TG3_FLAG_USE_MI_INTERRUPT as tg3_get_invariants chose them.
  uint32_t link_flags() const { return link_flags_; }
  void set_link_flags(uint32_t f) { link_flags_ = f; }
  /// The RX band in force: 0 LOW, 1 DEFAULT, 2 HIGH.
  int rx_band() const { return band_; }
  uint64_t status_phys() const { return status_; }

 private:
  struct RingInfo { SkbPtr skb; uint64_t mapping = 0; };
  uint64_t reg(uint32_t off) const { return bar_ + off; }
  Task<void> tw32(uint32_t off, uint32_t v);
  Task<void> udelay(double us);
  Task<uint32_t> mi_frame(uint32_t frame);  ///< one MAC_MI_COM frame and its BUSY polling
  Task<uint32_t> readphy(unsigned r);
  Task<void> writephy(unsigned r, uint16_t v);
  /// tg3_setup_copper_phy as modelled (see the header): carrier on/off when the link changed.
  Task<void> setup_copper_phy();
  Task<void> timer();
  Task<void> write_sram(uint32_t a, uint32_t v);  ///< writel through the NIC SRAM window
  Task<void> alloc_rx_skb(unsigned dest);
  void recycle_rx(unsigned src, unsigned dest);
  void set_std_bd_addr(unsigned i, uint64_t a);
  Task<void> enable_ints();
  Task<void> interrupt();
  /// tg3_rx: up to `limit` frames (< 0: all); 1.0 delivers with netif_receive_skb. Returns the count.
  Task<int> rx(int limit);
  bool has_work() const;
  Task<void> tx();
  Task<void> rate_sample();
  Task<void> write_rx_band(int band);
  unsigned tx_buffs_avail() const;
  uint32_t sb_status() const;
  uint16_t sb16(unsigned off) const;

  uint64_t bar_;
  DriverCosts costs_;
  DmaTags::Space space_;
  Coalesce c_;
  bool probed_ = false, irq_requested_ = false;
  uint32_t link_flags_ = 0;
  TimerList timer_;
  WaitQueue probe_wq_;
  uint32_t chip_rev_id_ = 0, misc_host_ctrl_ = 0;
  unsigned rx_offset_ = 2, rx_pkt_buf_sz_ = 1536 + 2 + 64;
  // rings (consistent memory)
  uint64_t rx_std_ = 0, rx_rcb_ = 0, status_ = 0, stats_ = 0;
  std::vector<RingInfo> rx_std_buffers_, tx_buffers_;
  unsigned rx_std_ptr_ = 0, rx_rcb_ptr_ = 0, tx_prod_ = 0, tx_cons_ = 0, tx_pending_ = TG3_DEF_TX_RING_PENDING;
  // adaptive coalescing
  int band_ = 1;
  uint64_t last_rate_sample_ = 0;
  uint32_t last_rx_count_ = 0, last_tx_count_ = 0;
  uint64_t *c_intr_, *c_not_ours_, *c_loops_, *c_rx_, *c_copy_, *c_tx_cleaned_, *c_tx_busy_, *c_band_;
};

/// pci_driver.probe (DriverEntry::probe contract): one Tg3 for the BCM5701 `dev`, registered with
/// `k`, and the process "insmod tg3 <ifname>" that runs its probe_hw(); `napi`: tg3 1.0. Throws
/// std::invalid_argument for a part the driver does not bind, and for 1.0 on a kernel profile
/// without NAPI (naming the host and profile).
std::vector<std::shared_ptr<NetDevice>> probe(Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors,
                                              const ProbeTarget& nic, const ParamValues& params, bool napi = false);

}  // namespace nicsim::tg3drv
