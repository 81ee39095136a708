// Linux sungem driver model (David S. Miller's Sun GEM / Apple GMAC driver) in two versions, on the
// GMAC model (models/nic/gem; its contract: models/nic/gem/README.md):
//  * v0.95, "sungem.c:v0.95 16/Oct/01", $Id sungem.c 1.30 2001/10/17, sungem.h 1.8 (mainline
//    2.4.13-2.4.16; LH@2.4.16:drivers/net/sungem.c / sungem.h): the version seed 001 ran;
//  * v0.96, DRV_RELDATE "11/17/01", $Id sungem.c 1.43 2001/12/05, sungem.h 1.10 (mainline 2.4.17;
//    LH@2.4.17:drivers/net/sungem.c): the what-if.
// Mainline 2.4.16/2.4.17 sungem.c includes <asm/pmac_feature.h> and calls pmac_call_feature, which
// those trees do not have (they have asm-ppc/feature.h, feature_gmac_phy_reset): on a PowerMac it
// was built from the linuxppc tree the seed's mail speaks of ("my rsync tree"). The calls' effects
// are taken from feature.c of the same tag (below).
//
// Each function is modelled from its source, writing every register value, mask and descriptor
// field as that version writes it, with its byte-order helpers: descriptors are `cpu_to_le64(v)`
// stored with a plain 64-bit store (store_native64 of byte_order_ops(k).cpu_to_le64(v): little-
// endian bytes on the big-endian PowerPC), registers readl/writel (= in_le32/out_le32 on PPC,
// drivers-sim/kernel/io.h). Where the versions differ, each branch writes what its source writes:
//  * gem_init_mac: v0.95 writes the MAC event masks as if 1 = enable (TXMASK = URUN|MPE|NCE|ECE|
//    LCE|FCE|DTE|PCE, RXMASK = OFLW|FCE|ACE|CCE|LCE|VCE, MCMASK = 0); on GEM 1 = masked, so XMIT
//    and RCV (every frame) are left unmasked. v0.96 writes TXMASK = XMIT, RXMASK = RCV, MCMASK =
//    0xffffffff. Both leave GREG_IMASK = GREG_STAT_TXDONE (gem_start_dma), so TXMAC/RXMAC/MAC are
//    unmasked at the top level and gem_interrupt's GREG_STAT_ABNORMAL test sends v0.95 to
//    gem_abnormal_irq, which reads MAC_TXSTAT / MAC_RXSTAT.
//  * gem_start_xmit: v0.96 sets TXDCTRL_INTME when gem_intme(entry) (every TX_RING_SIZE/2 = 64th
//    ring entry); v0.95 never.
//  * gem_init_dma RXDMA_BLANK: v0.95 6 packets, 4 units if GREG_BIFCFG & GREG_BIFCFG_M66EN (0x04)
//    else 2; v0.96 5 packets, 8 or 4. The GMAC model's default bifcfg_reading is "gmac" (M66EN at
//    0x08), so sungem's test of 0x04 reads 0 and programs its 33 MHz units, as the model says.
//  * v0.95 gem_init_pause_thresholds sets GREG_BIFCFG_B64DIS (read-modify-write) and is called
//    from gem_check_invariants, before gem_init_dma writes RXDMA_PTHRESH; v0.96 drops the BIFCFG
//    write and calls it from gem_init_hw after gem_init_dma, and its Apple gem_check_invariants no
//    longer calls it: the first open writes RXDMA_PTHRESH from rx_pause_off/on still 0 (the
//    zeroed private area of init_etherdev).
//  * Bring-up: v0.95 powers the chip and programs the PHY at open (gem_open -> gem_init_hw with
//    gem_check_invariants and gem_init_phy), the link timer 1.2 s later reads PHY_STAT and
//    gem_set_link_modes -> gem_start_dma enables DMA and unmasks; v0.96 powers up, resets and
//    programs the PHY at probe (gem_init_one), starts autonegotiation (gem_begin_auto_negotiation:
//    link timer every 1.2 s for as long as the chip runs), and at open (hw_running still set)
//    gem_init_hw(gp, 0) calls gem_set_link_modes at once if the timer has already seen the link.
//    v0.96's pm_timer (10 s after probe or close) shuts a closed chip down (gem_pm_task).
//  * gem_start_dma: v0.96 adds a readl(MAC_RXCFG) flush and udelay(100) before the IMASK write.
//  * gem_open/gem_set_link_modes PHY reads: v0.95 reads PHY_BCM5400_AUXSTATUS and PHY_LPA when
//    lstate == aneg_wait; v0.96 reads MII_BMCR first, then the same two when BMCR_ANENABLE.
// Identical in both (LH@2.4.16 vs LH@2.4.17 diff): gem_interrupt (one readl(GREG_STAT); ABNORMAL
// -> gem_abnormal_irq; TXALL|TXINTME -> gem_tx up to GREG_STAT_TXNR; RXDONE -> gem_rx; no loop),
// gem_tx, gem_rx (RX_COPY_THRESHOLD 256, skb->csum = ntohs((status & RXDCTRL_TCPCSUM) ^ 0xffff),
// CHECKSUM_HW), gem_post_rxds (status words refreshed and RXDMA_KICK written four at a time),
// rings 128/128, TXDMA_CFG = RINGSZ_128 | 0x7ff << 10 | PMODE, RXDMA_CFG = RINGSZ_128 | RX_OFFSET
// (2) << 10 | (14/2) << 13 | FTHRESH_512, pause thresholds off = rx_fifo - 5 KB / on = off - 1 KB,
// MAC_MCCFG SPE|RPE when the partner's LPA advertises pause, dev->features NETIF_F_SG |
// NETIF_F_HW_CSUM.
//
// What the model leaves out, and why:
//  * The station address: gem_get_device_address reads the Open Firmware property
//    "local-mac-address"; the model reads the address the firmware leaves in MAC_ADDR0-2 (the GMAC
//    model keeps it there) with three readl in the probe process, standing for the property.
//  * PCI configuration writes of gem_apple_powerup (PCI_COMMAND, latency 6, cache line 8) and the
//    UniNorth clock gate (feature_set_gmac_power: udelay(20) in LH@2.4.16 arch/ppc/kernel/feature.c,
//    charged); the PHY reset GPIO (feature_gmac_phy_reset: mdelay(10) twice, charged).
//  * Fragmented skbs: the modelled stack sends linear skbs (nr_frags 0), so gem_start_xmit's
//    multi-descriptor branch and gem_tx's fragment walk are not reachable; one descriptor per skb.
//  * The do_reset paths (RXTAGERR, PCIERR, PCS link down) and gem_tx_timeout: counted
//    (driver.resets), not performed; none occurs in the modelled runs. The link-down reset of
//    v0.96 is performed (gem_link_timer -> gem_reset_task, see below).
//  * gem_mdio_link_not_up's forced 100/10 Mb/s fallback after more than 10 ticks (12 s) without
//    link: the ticks are counted, the fallback is not run (a fault scenario's outage is shorter).
//
// Link loss (docs/faults.md; research/link-faults-failover.md §A4, read in LH@2.4.17 sungem.c):
//  * v0.96's gem_link_timer runs every 12 * HZ / 10 (1.2 s) while the chip runs and reads BMSR
//    once (PHY_STAT; the BMSR link bit is latched low, so a failure shorter than a tick is still
//    seen). Link up -> lstate link_up and, when open, gem_set_link_modes (which starts the DMA).
//    Link gone while lstate was link_up -> "eth0: Link down", reset_task_pending = 1,
//    schedule_task(reset_task) and gem_begin_auto_negotiation (BMCR_ANRESTART, timer re-armed).
//  * gem_reset_task (keventd): netif_stop_queue, GREG_IMASK all masked, gem_stop (GREG_SWRST TX+RX:
//    what the chip held is dropped), gem_init_rings (gem_clean_rings frees every TX skb, counted
//    driver.tx_ring_reset_freed, and the RX buffers), gem_init_hw(gp, 0) (DMA and MAC programmed,
//    left disabled: lstate is link_down), netif_wake_queue. Frames posted afterwards wait in the TX
//    ring (the DMA is off) until the link timer sees the link and gem_set_link_modes starts it.
//  * No netif_carrier_* anywhere: bonding sees the link through ETHTOOL_GLINK (mii_link_status).
//  * v0.95 (LH@2.4.16) stops its link timer once it has seen the link: it never sees it go.
//  * gem_set_multicast, gem_get_stats, ethtool/MII ioctls (v0.96), power management suspend/resume.
//
// Counters: <host>.<ifname>.driver.{intr, abnormal, txmac_reads, rxmac_reads, mac_reads, tx_reaps,
// tx_cleaned, tx_busy, rx_frames, rx_copybreak, rx_dropped, rx_kicks, resets}.
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

namespace nicsim::sungemdrv {

// ---------------------------------------------------------------- the driver's own register map (sungem.h 1.8/1.10)
inline constexpr uint32_t GREG_CFG = 0x0004, GREG_STAT = 0x000C, GREG_IMASK = 0x0010, GREG_IACK = 0x0014;
inline constexpr uint32_t GREG_PCIESTAT = 0x1000, GREG_BIFCFG = 0x1008, GREG_SWRST = 0x1010;
inline constexpr uint32_t GREG_CFG_IBURST = 0x00000001, GREG_CFG_TXDMALIM = 0x0000003e, GREG_CFG_RXDMALIM = 0x000007c0;
inline constexpr uint32_t GREG_STAT_TXINTME = 0x00000001, GREG_STAT_TXALL = 0x00000002, GREG_STAT_TXDONE = 0x00000004,
                          GREG_STAT_RXDONE = 0x00000010, GREG_STAT_RXNOBUF = 0x00000020,
                          GREG_STAT_RXTAGERR = 0x00000040, GREG_STAT_PCS = 0x00002000, GREG_STAT_TXMAC = 0x00004000,
                          GREG_STAT_RXMAC = 0x00008000, GREG_STAT_MAC = 0x00010000, GREG_STAT_MIF = 0x00020000,
                          GREG_STAT_PCIERR = 0x00040000, GREG_STAT_TXNR = 0xfff80000;
inline constexpr unsigned GREG_STAT_TXNR_SHIFT = 19;
inline constexpr uint32_t GREG_STAT_ABNORMAL = GREG_STAT_RXNOBUF | GREG_STAT_RXTAGERR | GREG_STAT_PCS |
                                               GREG_STAT_TXMAC | GREG_STAT_RXMAC | GREG_STAT_MAC | GREG_STAT_MIF |
                                               GREG_STAT_PCIERR;
inline constexpr uint32_t GREG_BIFCFG_B64DIS = 0x00000002, GREG_BIFCFG_M66EN = 0x00000004;
inline constexpr uint32_t GREG_SWRST_TXRST = 0x00000001, GREG_SWRST_RXRST = 0x00000002;

inline constexpr uint32_t TXDMA_KICK = 0x2000, TXDMA_CFG = 0x2004, TXDMA_DBLOW = 0x2008, TXDMA_DBHI = 0x200C,
                          TXDMA_FSZ = 0x2118;
inline constexpr uint32_t TXDMA_CFG_ENABLE = 0x00000001, TXDMA_CFG_RINGSZ_128 = 0x00000004,
                          TXDMA_CFG_PMODE = 0x00200000;
inline constexpr uint32_t RXDMA_CFG = 0x4000, RXDMA_DBLOW = 0x4004, RXDMA_DBHI = 0x4008, RXDMA_PTHRESH = 0x4020,
                          RXDMA_KICK = 0x4100, RXDMA_BLANK = 0x4108, RXDMA_FSZ = 0x4120;
inline constexpr uint32_t RXDMA_CFG_ENABLE = 0x00000001, RXDMA_CFG_RINGSZ_128 = 0x00000004,
                          RXDMA_CFG_FTHRESH_512 = 0x03000000;
inline constexpr uint32_t RXDMA_PTHRESH_OFF = 0x000001ff, RXDMA_PTHRESH_ON = 0x001ff000;
inline constexpr uint32_t RXDMA_BLANK_IPKTS = 0x000001ff, RXDMA_BLANK_ITIME = 0x000ff000;

inline constexpr uint32_t MAC_TXSTAT = 0x6010, MAC_RXSTAT = 0x6014, MAC_CSTAT = 0x6018, MAC_TXMASK = 0x6020,
                          MAC_RXMASK = 0x6024, MAC_MCMASK = 0x6028, MAC_TXCFG = 0x6030, MAC_RXCFG = 0x6034,
                          MAC_MCCFG = 0x6038, MAC_XIFCFG = 0x603C, MAC_IPG0 = 0x6040, MAC_IPG1 = 0x6044,
                          MAC_IPG2 = 0x6048, MAC_STIME = 0x604C, MAC_MINFSZ = 0x6050, MAC_MAXFSZ = 0x6054,
                          MAC_PASIZE = 0x6058, MAC_JAMSIZE = 0x605C, MAC_ATTLIM = 0x6060, MAC_MCTYPE = 0x6064,
                          MAC_ADDR0 = 0x6080, MAC_ADDR1 = 0x6084, MAC_ADDR2 = 0x6088, MAC_ADDR3 = 0x608C,
                          MAC_ADDR4 = 0x6090, MAC_ADDR5 = 0x6094, MAC_ADDR6 = 0x6098, MAC_ADDR7 = 0x609C,
                          MAC_ADDR8 = 0x60A0, MAC_AFILT0 = 0x60A4, MAC_AFILT1 = 0x60A8, MAC_AFILT2 = 0x60AC,
                          MAC_AF21MSK = 0x60B0, MAC_AF0MSK = 0x60B4, MAC_HASH0 = 0x60C0, MAC_NCOLL = 0x6100,
                          MAC_FASUCC = 0x6104, MAC_ECOLL = 0x6108, MAC_LCOLL = 0x610C, MAC_DTIMER = 0x6110,
                          MAC_PATMPS = 0x6114, MAC_RFCTR = 0x6118, MAC_LERR = 0x611C, MAC_AERR = 0x6120,
                          MAC_FCSERR = 0x6124, MAC_RXCVERR = 0x6128, MAC_RANDSEED = 0x6130;
inline constexpr uint32_t MAC_TXSTAT_XMIT = 0x001, MAC_TXSTAT_URUN = 0x002, MAC_TXSTAT_MPE = 0x004,
                          MAC_TXSTAT_NCE = 0x008, MAC_TXSTAT_ECE = 0x010, MAC_TXSTAT_LCE = 0x020,
                          MAC_TXSTAT_FCE = 0x040, MAC_TXSTAT_DTE = 0x080, MAC_TXSTAT_PCE = 0x100;
inline constexpr uint32_t MAC_RXSTAT_RCV = 0x01, MAC_RXSTAT_OFLW = 0x02, MAC_RXSTAT_FCE = 0x04,
                          MAC_RXSTAT_ACE = 0x08, MAC_RXSTAT_CCE = 0x10, MAC_RXSTAT_LCE = 0x20, MAC_RXSTAT_VCE = 0x40;
inline constexpr uint32_t MAC_CSTAT_PS = 0x2, MAC_CSTAT_PRCV = 0x1;
inline constexpr uint32_t MAC_TXCFG_ENAB = 0x001, MAC_TXCFG_ICS = 0x002, MAC_TXCFG_ICOLL = 0x004,
                          MAC_TXCFG_EIPG0 = 0x008, MAC_TXCFG_NGU = 0x010, MAC_TXCFG_TCE = 0x200;
inline constexpr uint32_t MAC_RXCFG_ENAB = 0x001, MAC_RXCFG_RCE = 0x100;
inline constexpr uint32_t MAC_MCCFG_SPE = 0x1, MAC_MCCFG_RPE = 0x2;
inline constexpr uint32_t MAC_XIFCFG_OE = 0x01, MAC_XIFCFG_DISE = 0x04, MAC_XIFCFG_GMII = 0x08,
                          MAC_XIFCFG_LLED = 0x20, MAC_XIFCFG_FLED = 0x40;

inline constexpr uint32_t MIF_FRAME = 0x620C, MIF_CFG = 0x6210, MIF_STATUS = 0x6218;
inline constexpr uint32_t MIF_CFG_PSELECT = 0x001, MIF_CFG_POLL = 0x002, MIF_CFG_BBMODE = 0x004,
                          MIF_CFG_MDI0 = 0x100, MIF_CFG_MDI1 = 0x200;
inline constexpr uint32_t MIF_FRAME_PHYAD = 0x0f800000, MIF_FRAME_REGAD = 0x007c0000, MIF_FRAME_TAMSB = 0x00020000,
                          MIF_FRAME_TALSB = 0x00010000, MIF_FRAME_DATA = 0x0000ffff;
inline constexpr uint32_t PCS_ISTAT = 0x9018, PCS_DMODE = 0x9050, PCS_DMODE_MGM = 0x00000004;

// MII (sungem.h 1.8 PHY_*; 1.10 uses mii.h's names for the same values)
inline constexpr unsigned PHY_CTRL = 0x00, PHY_STAT = 0x01, PHY_ID0 = 0x02, PHY_ID1 = 0x03, PHY_ADV = 0x04,
                          PHY_LPA = 0x05;
inline constexpr uint16_t PHY_CTRL_SPD2 = 0x0040, PHY_CTRL_FDPLX = 0x0100, PHY_CTRL_ANRES = 0x0200,
                          PHY_CTRL_ISO = 0x0400, PHY_CTRL_ANENAB = 0x1000, PHY_CTRL_SPD100 = 0x2000,
                          PHY_CTRL_RST = 0x8000;
inline constexpr uint16_t PHY_STAT_LSTAT = 0x0004;
inline constexpr uint16_t PHY_ADV_10HALF = 0x0020, PHY_ADV_10FULL = 0x0040, PHY_ADV_100HALF = 0x0080,
                          PHY_ADV_100FULL = 0x0100;
inline constexpr uint16_t PHY_LPA_10FULL = 0x0040, PHY_LPA_100HALF = 0x0080, PHY_LPA_100FULL = 0x0100,
                          PHY_LPA_PAUSE = 0x0400;
inline constexpr unsigned PHY_BCM5400_GB_CONTROL = 0x09, PHY_BCM5400_AUXSTATUS = 0x19;
inline constexpr uint16_t PHY_BCM5400_GB_CONTROL_FULLDUPLEXCAP = 0x0200, PHY_BCM5400_AUXSTATUS_LINKMODE_MASK = 0x0700;
inline constexpr unsigned PHY_BCM5400_AUXSTATUS_LINKMODE_SHIFT = 8;

// ---------------------------------------------------------------- descriptors (struct gem_txd / gem_rxd)
inline constexpr unsigned kDescBytes = 16;
inline constexpr uint64_t TXDCTRL_BUFSZ = 0x0000000000007fffULL, TXDCTRL_CENAB = 0x0000000020000000ULL,
                          TXDCTRL_EOF = 0x0000000040000000ULL, TXDCTRL_SOF = 0x0000000080000000ULL,
                          TXDCTRL_INTME = 0x0000000100000000ULL;
inline constexpr uint64_t RXDCTRL_TCPCSUM = 0x000000000000ffffULL, RXDCTRL_BUFSZ = 0x000000007fff0000ULL,
                          RXDCTRL_OWN = 0x0000000080000000ULL, RXDCTRL_BAD = 0x4000000000000000ULL;

inline constexpr unsigned TX_RING_SIZE = 128, RX_RING_SIZE = 128;
inline constexpr unsigned RX_OFFSET = 2, RX_COPY_THRESHOLD = 256, ETH_FRAME_LEN = 1514, ETH_ZLEN = 60;
/// RX_BUF_ALLOC_SIZE(gp): dev->mtu + 46 + RX_OFFSET + 64.
constexpr unsigned rx_buf_alloc_size(unsigned mtu) { return mtu + 46 + RX_OFFSET + 64; }
/// RXDCTRL_FRESH(gp): ((RX_BUF_ALLOC_SIZE - RX_OFFSET) << 16) & RXDCTRL_BUFSZ | RXDCTRL_OWN.
constexpr uint64_t rxdctrl_fresh(unsigned mtu) {
  return ((uint64_t(rx_buf_alloc_size(mtu) - RX_OFFSET) << 16) & RXDCTRL_BUFSZ) | RXDCTRL_OWN;
}
/// gem_intme (v0.96): INTME on ring entries that are multiples of TX_RING_SIZE / 2.
constexpr bool gem_intme(unsigned entry) { return !(entry & ((TX_RING_SIZE >> 1) - 1)); }
/// TX_BUFFS_AVAIL(gp).
constexpr unsigned tx_buffs_avail(unsigned tx_old, unsigned tx_new) {
  return tx_old <= tx_new ? tx_old + (TX_RING_SIZE - 1) - tx_new : tx_old - tx_new - 1;
}

enum class Version { v0_95, v0_96 };

/// The driver's own cost-table paths (sungem.c functions).
enum class Path : unsigned {
  gem_interrupt,    ///< gem_interrupt per call (status tests, lock)
  gem_abnormal_irq, ///< gem_abnormal_irq per call, with its sub-handlers' bit tests (the readl are MMIO)
  gem_start_xmit,   ///< gem_start_xmit per packet (ctrl word, map, descriptor stores, ring bookkeeping)
  gem_tx,           ///< gem_tx per completed skb (descriptor loads, unmap, dev_kfree_skb_irq)
  gem_rx,           ///< gem_rx per descriptor (status decode, csum, stats)
  gem_rx_copy,      ///< the copybreak memcpy (per byte)
  gem_rx_refill,    ///< gem_rx's replacement buffer: gem_alloc_skb alignment, map, buffer store
  gem_post_rxds,    ///< gem_post_rxds per call (cluster walk, the status-word stores)
  gem_link_timer,   ///< gem_link_timer per call (state machine; the MIF accesses are MMIO)
};
const std::vector<std::string>& path_names();
inline constexpr const char* kDriverName095 = "sungem-0.95";
inline constexpr const char* kDriverName096 = "sungem-0.96";
/// The cost-table driver name of a version ("sungem-0.95", "sungem-0.96": one table each).
const char* cost_driver(Version v);

/// One GMAC driven by sungem: struct net_device + struct gem.
class Gem : public NetDevice {
 public:
  /// `params`: the DriverEntry's values (v0.96 link_mode, the RX_BLANK what-if of
  /// gem_whatif/rx_blank.h); empty = as shipped.
  Gem(Kernel& k, std::string name, uint64_t bar, unsigned vector, DmaTags::Space dma_space, Version v,
      ParamValues params = {});
  ~Gem() override;

  Task<int> open() override;
  Task<int> stop() override;
  Task<int> hard_start_xmit(SkbPtr& skb) override;

  /// gem_init_one's hardware part (v0.96: power-up, invariants, reset, PHY, autonegotiation), run by
  /// the probe process; both versions read the station address there (see the header).
  Task<void> probe_hw();
  bool probed() const { return probed_; }
  Version version() const { return v_; }
  uint64_t init_block() const { return gblock_dvma_; }  ///< bus address: TX ring, then the RX ring
  uint64_t txd_addr(unsigned i) const { return gblock_dvma_ + uint64_t(i) * kDescBytes; }
  uint64_t rxd_addr(unsigned i) const { return gblock_dvma_ + uint64_t(TX_RING_SIZE + i) * kDescBytes; }
  bool hw_running() const { return hw_running_; }
  bool link_up() const { return link_up_; }  ///< gem_set_link_modes has run (DMA started)
  /// bond_check_dev_link's answer. v0.96: SIOCETHTOOL ETHTOOL_GLINK, which gem_ioctl answers with
  /// `gp->lstate == link_up` (LH@2.4.17 sungem.c; sungem never calls netif_carrier_*). v0.95:
  /// gem_ioctl returns -EINVAL for everything (LH@2.4.16), so bonding spoofs the link up.
  int mii_link_status() override { return v_ == Version::v0_95 ? -95 : (lstate_ == LState::link_up ? 1 : 0); }
  bool reset_task_pending() const { return reset_task_pending_; }
  /// gem_reset_task (v0.96, LH@2.4.17): run by keventd after gem_link_timer saw the link go.
  Task<void> gem_reset_task();
  int rx_pause_off() const { return rx_pause_off_; }
  int rx_pause_on() const { return rx_pause_on_; }

 private:
  uint64_t reg(uint32_t off) const { return bar_ + off; }
  Task<void> udelay(double us);
  /// __phy_read / __phy_write's MIF frame: write `cmd`, poll for TALSB; the last value read.
  Task<uint32_t> mif_frame(uint32_t cmd);
  Task<uint16_t> phy_read_at(unsigned r, unsigned phy_addr);
  Task<void> phy_write_at(unsigned r, uint16_t v, unsigned phy_addr);
  Task<uint16_t> phy_read(unsigned r) { return phy_read_at(r, mii_phy_addr_); }
  Task<void> phy_write(unsigned r, uint16_t v) { return phy_write_at(r, v, mii_phy_addr_); }
  Task<void> gem_stop();
  Task<void> gem_apple_powerup();
  Task<void> gem_check_invariants();
  Task<void> gem_init_pause_thresholds();
  Task<void> gem_reset_one_mii_phy(unsigned addr);
  Task<void> gem_init_bcm5411_phy();
  Task<void> gem_init_phy();
  Task<void> gem_init_dma();
  Task<void> gem_init_mac();
  Task<void> gem_init_hw(bool restart_link);
  Task<void> gem_begin_auto_negotiation();
  Task<void> gem_set_link_modes();
  Task<void> gem_start_dma();
  Task<void> gem_link_timer();
  Task<void> gem_pm_task();
  Task<void> gem_init_rings();
  void gem_clean_rings();
  Task<SkbPtr> gem_alloc_skb(uint32_t size);
  Task<void> interrupt();
  Task<bool> gem_abnormal_irq(uint32_t status);
  Task<void> gem_tx(uint32_t status);
  Task<void> gem_rx();
  Task<void> gem_post_rxds(unsigned limit);
  void store_desc(uint64_t addr, uint64_t cpu_value);  ///< `*addr = cpu_to_le64(cpu_value)`
  uint64_t load_desc(uint64_t addr) const;             ///< `le64_to_cpu(*addr)`
  void add_link_timer();

  struct RingInfo { SkbPtr skb; uint64_t mapping = 0; };
  uint64_t bar_;
  Version v_;
  DriverCosts costs_;
  DmaTags::Space space_;
  ParamValues params_;
  unsigned link_cntl_;  ///< v0.96 gp->link_cntl (link_modes[link_mode])
  bool probed_ = false, irq_requested_ = false, hw_running_ = false, opened_ = false, link_up_ = false;
  bool reset_task_pending_ = false;  ///< gp->reset_task_pending
  WaitQueue probe_wq_;
  uint64_t gblock_dvma_ = 0;
  unsigned mii_phy_addr_ = 0;
  bool bcm54xx_ = false;     ///< gp->phy_mod is bcm5400/5401/5411
  int tx_fifo_sz_ = 0, rx_fifo_sz_ = 0, rx_pause_off_ = 0, rx_pause_on_ = 0;
  /// gp->lstate: v0.95 aneg_wait / force_wait; v0.96 link_down / link_aneg / link_force_ok / link_up.
  enum class LState { aneg_wait, force_wait, link_down, link_aneg, link_force_ok, link_up } lstate_ = LState::aneg_wait;
  int timer_ticks_ = 0;
  TimerList link_timer_, pm_timer_;
  std::vector<RingInfo> rx_skbs_, tx_skbs_;
  unsigned rx_new_ = 0, tx_new_ = 0, tx_old_ = 0;
  uint64_t *c_intr_, *c_abnormal_, *c_txmac_, *c_rxmac_, *c_mac_, *c_tx_reaps_, *c_tx_cleaned_, *c_tx_busy_,
      *c_rx_, *c_copy_, *c_rx_dropped_, *c_rx_kicks_, *c_resets_, *c_tx_reset_freed_;
};

/// pci_driver.probe (DriverEntry::probe contract): one Gem for the GMAC `dev`, registered with `k`,
/// and the process "insmod sungem <ifname>" that runs its probe_hw(). Throws std::invalid_argument
/// for a part the driver does not bind.
std::vector<std::shared_ptr<NetDevice>> probe(Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors,
                                              const ProbeTarget& nic, const ParamValues& params, Version v);

}  // namespace nicsim::sungemdrv
