// Linux `gmac` driver model: the PowerMac G4's built-in GMAC (Apple UniNorth GMAC, a Sun GEM core),
// driver v1.5k4 by Paul Mackerras and Ben Herrenschmidt, unchanged in mainline from 2.4.10 through
// 2.4.24 (research/seeds-001-004-platforms-drivers.md §1.3): seed 001's faster driver.
//
// Source: LH@2.4.16:drivers/net/gmac.c and gmac.h (read and cited; nothing copied). Every register
// value, mask and descriptor field below is written the way v1.5k4 writes it, with its byte-order
// helpers (drivers-sim/kernel/byteorder.h, io.h):
//  * registers: GM_OUT / GM_IN. gmac.h encodes each register's size in the top bits of its name
//    (REG_SZ_32 / REG_SZ_16 / REG_SZ_8); GM_OUT is out_le32 / out_le16 / out_8 at `regs + ((reg &
//    REG_MASK) >> 2)` words, GM_BIS / GM_BIC a GM_IN then a GM_OUT. So GM_TX_KICK, GM_TX_COMP and
//    GM_RX_KICK are 16-bit accesses, GM_BIF_CFG and GM_MAC_CTRL_CONFIG 8-bit ones.
//  * gmac.h's GM_MAC_CTRLSTAT_MASK is defined as (0x6024 | REG_SZ_8), the RX mask's offset (the
//    comment above it says 0x6028): gmac_mac_init's `GM_OUT(GM_MAC_CTRLSTAT_MASK, 0xff)` is an out_8
//    to MAC_RXMASK's low byte and MAC_MCMASK (0x6028) keeps its reset value.
//  * gmac_mac_init clears the hash table with `GM_OUT(GM_MAC_ADDR_FILTER_HASH0 + i, 0)` for i < 27:
//    the offsets 0x60c0 + i, each rounded down to its word by the >> 2, so words 0x60c0 .. 0x60d8
//    are written (four times each, the last three times) and 0x60dc .. 0x60fc not at all.
//  * descriptors: struct gmac_dma_desc {size, flags, lo_addr, hi_addr}, four native unsigned ints.
//    gmac_xmit_start stores `dp->flags = TX_FL_INTERRUPT` and `dp->hi_addr = 0` as plain
//    (big-endian) stores and `lo_addr`, `size` with st_le32; the chip decodes the descriptor as two
//    little-endian 64-bit words, so TX_FL_INTERRUPT (bytes 00 00 00 01 at offset 4) is bit 56 of
//    the control word, not INTME (bit 32): no descriptor asks for TX_INT_ME (research Finding B).
//    gmac_init_rings / gmac_receive store RX `lo_addr` and `size` with st_le32 (hi_addr natively),
//    gmac_receive reads `size` and `flags` with ld_le32.
//
// What the model does (per gmac.c function):
//  * probe (gmac_probe / gmac_probe1): binds the "GMAC" device (106b:0021; gmac finds it through
//    Open Firmware, find_compatible_devices("network", "gmac"), not a PCI table); two pages for the
//    descriptor rings (get_free_page), dummy_buf (kmalloc DUMMY_BUF_LEN); the station address from
//    the OF property "local-mac-address" (stand-in: the MAC_ADDR0..2 words Open Firmware left in the
//    chip, read with three in_le16 by the probe process; gmac itself makes no register access at
//    probe); dev->watchdog_timeo 5 * HZ.
//  * open (gmac_open): gmac_powerup_and_reset (GM_RESET TX|RX, poll, IRQ mask 0xffffffff, MAC TX/RX
//    reset), request_irq (flags 0), mii_lookup_and_reset (PHY scan over MII_CR/MII_SR, reset, ID,
//    the BCM5411 set-up), mii_setup_phy, gmac_init_rings (64 RX buffers of RX_BUF_ALLOC_SIZE with
//    OWN | (RX_BUF_ALLOC_SIZE - RX_OFFSET) << 16; TX ring zeroed; ring bases), gmac_mac_init (every
//    register in its order, the pause thresholds from GM_RX_FIFO_SIZE, RX_BLANK 5 packets and 8 or
//    4 time units by GM_BIF_CFG_M66EN), gmac_set_multicast (hash enable, no promiscuous mode),
//    mii_interrupt (MIF poll restart, MII_SR, MII_ANLPA -> GM_MAC_CTRL_CONF_SND_PAUSE_EN, the
//    BCM54xx link mode -> gigabit and full duplex, gmac_start_dma when either changed), then
//    gmac_start_dma (the four enables with mdelay(20) after each, GM_RX_KICK = NRX, the IRQ mask
//    BIC of TX_INT_ME | TX_ALL | RX_DONE | RX_TAG_ERR | MAC_RX | MIF | BUS_ERROR).
//  * gmac_xmit_start: one descriptor per skb (no SG, no checksum offload: dev->features 0), the
//    kick with next_tx, netif_stop_queue when the next slot still holds an skb; returns 1 (busy)
//    with the queue stopped when the slot is taken.
//  * gmac_interrupt: one GM_IN(GM_IRQ_STATUS) (read-to-clear), the ACK of BUS_ERROR | MIF, then
//    mii_interrupt on MIF, gmac_receive on RX_DONE, gmac_tx_cleanup on TX_INT_ME | TX_ALL.
//  * gmac_tx_cleanup: from tx_gone, a GM_IN(GM_TX_COMP) per iteration, free each skb, until the
//    index reaches the value just read (a do-while: an entry at tx_gone is freed even when the
//    chip's completion equals it; counted as tx_cleanup_at_comp).
//  * gmac_receive: until a descriptor with RX_SZ_OWN: length, flags, checksum; len > 256
//    (RX_COPY_THRESHOLD): a new ring skb (gmac_alloc_skb), the filled one trimmed and passed up;
//    else a copy into dev_alloc_skb(len + RX_OFFSET). The checksum sets ip_summed and then
//    `skb->ip_summed = CHECKSUM_NONE` overwrites it (software checksum). eth_type_trans, netif_rx
//    (hard IRQ). The descriptor is refilled with st_le32. After the loop GM_RX_KICK = last & ~3
//    (`last` the index of the last descriptor handled).
//  * gmac_stats: the CRC, alignment, length, excess and late collision counters read and zeroed.
//  * close (gmac_close): gmac_stop_dma, mii_poll_stop, free_irq, the rings' skbs freed.
//  * Link (docs/faults.md): the MIF poll interrupt (GM_IRQ_MIF, unmasked by gmac_start_dma) runs
//    mii_interrupt, which calls netif_carrier_off when MII_SR_LKS goes and netif_carrier_on for
//    each known PHY's link-up, as LH@2.4.20 gmac.c does (2.4.16's mii_interrupt has no carrier
//    calls; the other 2.4.16 -> 2.4.20 changes are the pmac_call_feature calls and the crc32
//    library for the multicast hash, outside the modelled register traffic). gmac sets no do_ioctl,
//    so bonding cannot ask it for the link (mii_link_status: -EOPNOTSUPP, spoofed up).
//
// Not modelled: the UniNorth clock gate and KeyLargo PHY-reset GPIO (feature_set_gmac_power,
// feature_gmac_phy_reset: their udelay/mdelay are charged, the UniNorth/KeyLargo register accesses
// are not), the PCI command / latency / cache-line writes of gmac_set_power (config space is not
// modelled), dev_open's second gmac_set_multicast (dev_mc_upload), gmac_tx_timeout (the kernel
// model has no dev watchdog), sleep/wake (CONFIG_PMAC_PBOOK), MIF poll interrupts (the GMAC model
// raises none), the dummy_buf paths (allocation never fails in the kernel model).
//
// Journeys: TX "doorbell" before the kick, RX via mark_rx_journey. Counters:
// <host>.<ifname>.driver.{intr, status_reads, rx_frames, rx_copybreak, rx_kicks, tx_cleaned,
// tx_comp_reads, tx_cleanup_at_comp, tx_busy, tx_queue_stops}.
#pragma once
#include "core/dma_tags.h"
#include "drivers-sim/driver_entry.h"
#include "drivers-sim/kernel/kernel.h"
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace nicsim {
class PciDevice;
}

namespace nicsim::gmacdrv {

// ---------------------------------------------------------------- gmac.h v1.5k4 register names
inline constexpr uint32_t REG_SZ_8 = 0x00000000, REG_SZ_16 = 0x40000000, REG_SZ_32 = 0x80000000,
                          REG_MASK = 0x0FFFFFFF;

inline constexpr uint32_t GM_GCONF = 0x0004 | REG_SZ_16, GM_GCONF_BURST_SZ = 0x0001,
                          GM_GCONF_TXDMA_LIMIT_SHIFT = 1, GM_GCONF_RXDMA_LIMIT_SHIFT = 6;
inline constexpr uint32_t GM_IRQ_STATUS = 0x000c | REG_SZ_32;
inline constexpr uint32_t GM_IRQ_TX_INT_ME = 0x00000001, GM_IRQ_TX_ALL = 0x00000002, GM_IRQ_TX_DONE = 0x00000004,
                          GM_IRQ_RX_DONE = 0x00000010, GM_IRQ_RX_NO_BUF = 0x00000020, GM_IRQ_RX_TAG_ERR = 0x00000040,
                          GM_IRQ_PCS = 0x00002000, GM_IRQ_MAC_TX = 0x00004000, GM_IRQ_MAC_RX = 0x00008000,
                          GM_IRQ_MAC_CTRL = 0x00010000, GM_IRQ_MIF = 0x00020000, GM_IRQ_BUS_ERROR = 0x00040000,
                          GM_IRQ_TX_COMP = 0xfff80000;
inline constexpr uint32_t GM_IRQ_MASK = 0x0010 | REG_SZ_32, GM_IRQ_ACK = 0x0014 | REG_SZ_32,
                          GM_IRQ_ALT_STAT = 0x001C | REG_SZ_32;
inline constexpr uint32_t GM_BIF_CFG = 0x1008 | REG_SZ_8, GM_BIF_CFG_M66EN = 0x08;
inline constexpr uint32_t GM_RESET = 0x1010 | REG_SZ_8, GM_RESET_TX = 0x01, GM_RESET_RX = 0x02;
inline constexpr uint32_t GM_TX_KICK = 0x2000 | REG_SZ_16;
inline constexpr uint32_t GM_TX_CONF = 0x2004 | REG_SZ_32, GM_TX_CONF_DMA_EN = 0x00000001,
                          GM_TX_CONF_FIFO_THR_SHIFT = 10, GM_TX_CONF_FIFO_THR_DEFAULT = 0x7ff,
                          GM_TX_CONF_PACED_MODE = 0x00100000, GM_TX_RING_SZ_64 = 1 << 1;
inline constexpr uint32_t GM_TX_DESC_LO = 0x2008 | REG_SZ_32, GM_TX_DESC_HI = 0x200C | REG_SZ_32;
inline constexpr uint32_t GM_TX_COMP = 0x2100 | REG_SZ_16;
inline constexpr uint32_t GM_RX_CONF = 0x4000 | REG_SZ_32, GM_RX_CONF_DMA_EN = 0x00000001,
                          GM_RX_CONF_FBYTE_OFF_SHIFT = 10, GM_RX_CONF_CHK_START_SHIFT = 13,
                          GM_RX_CONF_DMA_THR_SHIFT = 24, GM_RX_CONF_DMA_THR_DEFAULT = 1, GM_RX_RING_SZ_64 = 1 << 1;
inline constexpr uint32_t GM_RX_DESC_LO = 0x4004 | REG_SZ_32, GM_RX_DESC_HI = 0x4008 | REG_SZ_32;
inline constexpr uint32_t GM_RX_PTH = 0x4020 | REG_SZ_32, GM_RX_PTH_OFF_SHIFT = 0, GM_RX_PTH_ON_SHIFT = 12,
                          GM_RX_PTH_UNITS = 64;
inline constexpr uint32_t GM_RX_KICK = 0x4100 | REG_SZ_16, GM_RX_COMP = 0x4104 | REG_SZ_16;
inline constexpr uint32_t GM_RX_BLANK = 0x4108 | REG_SZ_32, GM_RX_BLANK_INTR_PACKETS_SHIFT = 0,
                          GM_RX_BLANK_INTR_TIME_SHIFT = 12;
inline constexpr uint32_t GM_RX_FIFO_SIZE = 0x4120 | REG_SZ_16;
inline constexpr uint32_t GM_MAC_TX_RESET = 0x6000 | REG_SZ_8, GM_MAC_RX_RESET = 0x6004 | REG_SZ_8,
                          GM_MAC_TX_RESET_NOW = 0x01, GM_MAC_RX_RESET_NOW = 0x01;
inline constexpr uint32_t GM_MAC_SND_PAUSE = 0x6008 | REG_SZ_32, GM_MAC_SND_PAUSE_DEFAULT = 0x00001bf0;
inline constexpr uint32_t GM_MAC_TX_MASK = 0x6020 | REG_SZ_16, GM_MAC_RX_MASK = 0x6024 | REG_SZ_16;
/// gmac.h's definition as it stands: the RX mask's offset (0x6024), 8-bit (see the file comment).
inline constexpr uint32_t GM_MAC_CTRLSTAT_MASK = 0x6024 | REG_SZ_8;
inline constexpr uint32_t GM_MAC_TX_CONFIG = 0x6030 | REG_SZ_16, GM_MAC_TX_CONF_ENABLE = 0x0001,
                          GM_MAC_TX_CONF_IGNORE_CARRIER = 0x0002, GM_MAC_TX_CONF_IGNORE_COLL = 0x0004;
inline constexpr uint32_t GM_MAC_RX_CONFIG = 0x6034 | REG_SZ_16, GM_MAC_RX_CONF_ENABLE = 0x0001,
                          GM_MAC_RX_CONF_RX_ALL = 0x0008, GM_MAC_RX_CONF_RX_ALL_MULTI = 0x0010,
                          GM_MAC_RX_CONF_HASH_ENABLE = 0x0020;
inline constexpr uint32_t GM_MAC_CTRL_CONFIG = 0x6038 | REG_SZ_8, GM_MAC_CTRL_CONF_SND_PAUSE_EN = 0x01,
                          GM_MAC_CTRL_CONF_RCV_PAUSE_EN = 0x02;
inline constexpr uint32_t GM_MAC_XIF_CONFIG = 0x603c | REG_SZ_8, GM_MAC_XIF_CONF_TX_MII_OUT_EN = 0x01,
                          GM_MAC_XIF_CONF_DISABLE_ECHO = 0x04, GM_MAC_XIF_CONF_GMII_MODE = 0x08,
                          GM_MAC_XIF_CONF_FULL_DPLX_LED = 0x40;
inline constexpr uint32_t GM_MAC_INTR_PKT_GAP0 = 0x6040 | REG_SZ_8, GM_MAC_INTR_PKT_GAP1 = 0x6044 | REG_SZ_8,
                          GM_MAC_INTR_PKT_GAP2 = 0x6048 | REG_SZ_8, GM_MAC_SLOT_TIME = 0x604C | REG_SZ_16,
                          GM_MAC_MIN_FRAME_SIZE = 0x6050 | REG_SZ_16, GM_MAC_MAX_FRAME_SIZE = 0x6054 | REG_SZ_16,
                          GM_MAC_PREAMBLE_LEN = 0x6058 | REG_SZ_16, GM_MAC_JAM_SIZE = 0x605c | REG_SZ_8,
                          GM_MAC_ATTEMPT_LIMIT = 0x6060 | REG_SZ_8, GM_MAC_CONTROL_TYPE = 0x6064 | REG_SZ_16;
inline constexpr uint32_t GM_MAC_INTR_PKT_GAP0_DEFAULT = 0x00, GM_MAC_INTR_PKT_GAP1_DEFAULT = 0x08,
                          GM_MAC_INTR_PKT_GAP2_DEFAULT = 0x04, GM_MAC_SLOT_TIME_DEFAULT = 0x0040,
                          GM_MAC_MIN_FRAME_SIZE_DEFAULT = 0x0040, GM_MAC_MAX_FRAME_SIZE_DEFAULT = 0x05ee,
                          GM_MAC_MAX_FRAME_SIZE_ALIGN = 0x5f0, GM_MAC_PREAMBLE_LEN_DEFAULT = 0x0007,
                          GM_MAC_JAM_SIZE_DEFAULT = 0x04, GM_MAC_ATTEMPT_LIMIT_DEFAULT = 0x10,
                          GM_MAC_CONTROL_TYPE_DEFAULT = 0x8808;
inline constexpr uint32_t GM_MAC_ADDR_NORMAL0 = 0x6080 | REG_SZ_16, GM_MAC_ADDR_NORMAL1 = 0x6084 | REG_SZ_16,
                          GM_MAC_ADDR_NORMAL2 = 0x6088 | REG_SZ_16, GM_MAC_ADDR_ALT0 = 0x608c | REG_SZ_16,
                          GM_MAC_ADDR_ALT1 = 0x6090 | REG_SZ_16, GM_MAC_ADDR_ALT2 = 0x6094 | REG_SZ_16,
                          GM_MAC_ADDR_CTRL0 = 0x6098 | REG_SZ_16, GM_MAC_ADDR_CTRL1 = 0x609c | REG_SZ_16,
                          GM_MAC_ADDR_CTRL2 = 0x60a0 | REG_SZ_16, GM_MAC_ADDR_FILTER0 = 0x60a4 | REG_SZ_16,
                          GM_MAC_ADDR_FILTER1 = 0x60a8 | REG_SZ_16, GM_MAC_ADDR_FILTER2 = 0x60ac | REG_SZ_16,
                          GM_MAC_ADDR_FILTER_MASK1_2 = 0x60b0 | REG_SZ_8, GM_MAC_ADDR_FILTER_MASK0 = 0x60b4 | REG_SZ_16,
                          GM_MAC_ADDR_FILTER_HASH0 = 0x60c0 | REG_SZ_16;
inline constexpr uint32_t GM_MAC_COLLISION_CTR = 0x6100 | REG_SZ_16, GM_MAC_FIRST_COLLISION_CTR = 0x6104 | REG_SZ_16,
                          GM_MAC_EXCS_COLLISION_CTR = 0x6108 | REG_SZ_16, GM_MAC_LATE_COLLISION_CTR = 0x610c | REG_SZ_16,
                          GM_MAC_DEFER_TIMER_COUNTER = 0x6110 | REG_SZ_16, GM_MAC_PEAK_ATTEMPTS = 0x6114 | REG_SZ_16,
                          GM_MAC_RX_FRAME_CTR = 0x6118 | REG_SZ_16, GM_MAC_RX_LEN_ERR_CTR = 0x611c | REG_SZ_16,
                          GM_MAC_RX_ALIGN_ERR_CTR = 0x6120 | REG_SZ_16, GM_MAC_RX_CRC_ERR_CTR = 0x6124 | REG_SZ_16,
                          GM_MAC_RX_CODE_VIOLATION_CTR = 0x6128 | REG_SZ_16, GM_MAC_RANDOM_SEED = 0x6130 | REG_SZ_16;
inline constexpr uint32_t GM_MIF_FRAME_CTL_DATA = 0x620c | REG_SZ_32, GM_MIF_FRAME_START_SHIFT = 30,
                          GM_MIF_FRAME_OPCODE_SHIFT = 28, GM_MIF_FRAME_PHY_ADDR_SHIFT = 23,
                          GM_MIF_FRAME_REG_ADDR_SHIFT = 18, GM_MIF_FRAME_TURNAROUND_HI = 0x00020000,
                          GM_MIF_FRAME_TURNAROUND_LO = 0x00010000, GM_MIF_FRAME_DATA_MASK = 0x0000ffff;
inline constexpr uint32_t GM_MIF_CFG = 0x6210 | REG_SZ_16, GM_MIF_CFGPE = 0x00000002, GM_MIF_CFGPR_MASK = 0x000000f8,
                          GM_MIF_CFGPR_SHIFT = 3, GM_MIF_CFGPD_MASK = 0x00007c00, GM_MIF_CFGPD_SHIFT = 10,
                          GM_MIF_POLL_DELAY = 200;
inline constexpr uint32_t GM_MIF_IRQ_MASK = 0x6214 | REG_SZ_16;
inline constexpr uint32_t GM_PCS_DATAPATH_MODE = 0x9050 | REG_SZ_8, GM_PCS_DATAPATH_MII = 0x04;

// MII (gmac.h, from de4x5.h) and the Broadcom PHY registers gmac uses
inline constexpr int MII_CR = 0x00, MII_SR = 0x01, MII_ID0 = 0x02, MII_ID1 = 0x03, MII_ANA = 0x04, MII_ANLPA = 0x05;
inline constexpr int MII_CR_RST = 0x8000, MII_CR_ISOL = 0x0400, MII_CR_ASSE = 0x1000, MII_CR_RAN = 0x0200,
                     MII_CR_FDM = 0x0100, MII_CR_SPEEDSEL2 = 0x0040;
inline constexpr int MII_SR_ASSC = 0x0020, MII_SR_LKS = 0x0004;
inline constexpr int MII_ANA_TXAM = 0x0180, MII_ANA_FDAM = 0x0140, MII_ANA_10M = 0x0060;
inline constexpr int MII_ANLPA_FDAM = 0x0140, MII_ANLPA_100M = 0x0380, MII_ANLPA_PAUS = 0x0400;
inline constexpr int PHY_B5400 = 0x5400, PHY_B5401 = 0x5401, PHY_B5411 = 0x5411, PHY_B5201 = 0x5201,
                     PHY_B5221 = 0x5221, PHY_LXT971 = 0x0971, PHY_UNKNOWN = 0;
inline constexpr uint32_t MII_BCM54XX_MASK = 0xfffffff0;
inline constexpr uint32_t MII_BCM5400_ID = (0x000818u << 10) | (0x04u << 4), MII_BCM5401_ID = (0x000818u << 10) | (0x05u << 4),
                          MII_BCM5411_ID = (0x000818u << 10) | (0x07u << 4), MII_BCM5201_ID = (0x001018u << 10) | (0x21u << 4),
                          MII_BCM5221_ID = (0x001018u << 10) | (0x1eu << 4), MII_LXT971_ID = (0x0004deu << 10) | (0x0eu << 4);
inline constexpr int MII_BCM5201_AUXCTLSTATUS = 0x18, MII_BCM5201_AUXCTLSTATUS_DUPLEX = 0x0001,
                     MII_BCM5201_AUXCTLSTATUS_SPEED = 0x0002, MII_BCM5201_MULTIPHY = 0x1E,
                     MII_BCM5201_MULTIPHY_SERIALMODE = 0x0002;
inline constexpr int MII_BCM5400_GB_CONTROL = 0x09, MII_BCM5400_GB_CONTROL_FULLDUPLEXCAP = 0x0200,
                     MII_BCM5400_AUXCONTROL = 0x18, MII_BCM5400_AUXCONTROL_PWR10BASET = 0x0004,
                     MII_BCM5400_AUXSTATUS = 0x19, MII_BCM5400_AUXSTATUS_LINKMODE_MASK = 0x0700,
                     MII_BCM5400_AUXSTATUS_LINKMODE_SHIFT = 8;
inline constexpr int MII_LXT971_STATUS2 = 0x11, MII_LXT971_STATUS2_SPEED = 0x4000,
                     MII_LXT971_STATUS2_FULLDUPLEX = 0x0200;

// Rings and descriptors (gmac.h "DMA descriptors")
inline constexpr unsigned NTX = 64, NRX = 64;  ///< "must be power of 2"
inline constexpr uint32_t NTX_CONF = GM_TX_RING_SZ_64, NRX_CONF = GM_RX_RING_SZ_64;
inline constexpr unsigned RX_COPY_THRESHOLD = 256, GMAC_BUFFER_ALIGN = 32, ETH_FRAME_LEN = 1514, ETH_ZLEN = 60;
inline constexpr unsigned RX_OFFSET = 2, RX_BUF_ALLOC_SIZE = ETH_FRAME_LEN + GMAC_BUFFER_ALIGN + 2;  ///< 1548
inline constexpr unsigned DUMMY_BUF_LEN = RX_BUF_ALLOC_SIZE + RX_OFFSET + GMAC_BUFFER_ALIGN;
inline constexpr unsigned kDescBytes = 16;  ///< struct gmac_dma_desc: size, flags, lo_addr, hi_addr
inline constexpr unsigned DESC_SIZE = 0, DESC_FLAGS = 4, DESC_LO_ADDR = 8, DESC_HI_ADDR = 12;  ///< byte offsets
inline constexpr uint32_t RX_SZ_OWN = 0x80000000, RX_SZ_MASK = 0x7FFF0000, RX_SZ_SHIFT = 16, RX_SZ_CKSUM_MASK = 0x0000FFFF;
inline constexpr uint32_t RX_FL_CRC_ERROR = 0x40000000, RX_FL_ALT_ADDR = 0x20000000;
inline constexpr uint32_t TX_SZ_MASK = 0x00007FFF, TX_SZ_EOP = 0x40000000, TX_SZ_SOP = 0x80000000;
inline constexpr uint32_t TX_FL_INTERRUPT = 0x00000001, TX_FL_NO_CRC = 0x00000002;
inline constexpr unsigned kPageBytes = 4096;  ///< get_free_page (PowerPC 4 KB pages)

/// gmac_start_dma's interrupt sources: the bits it clears in GM_IRQ_MASK (0x00068053).
inline constexpr uint32_t kIrqUnmasked = GM_IRQ_TX_INT_ME | GM_IRQ_TX_ALL | GM_IRQ_RX_DONE | GM_IRQ_RX_TAG_ERR |
                                         GM_IRQ_MAC_RX | GM_IRQ_MIF | GM_IRQ_BUS_ERROR;

/// The byte offset into BAR0 of a GM_OUT / GM_IN register name: `(reg & REG_MASK) >> 2` words of
/// the `volatile unsigned int *regs`.
constexpr uint32_t reg_offset(uint32_t reg) { return ((reg & REG_MASK) >> 2) << 2; }
/// The access width in bytes of a gmac.h register name (REG_SZ_32 / REG_SZ_16 / REG_SZ_8).
constexpr unsigned reg_width(uint32_t reg) { return (reg & REG_SZ_32) ? 4 : (reg & REG_SZ_16) ? 2 : 1; }

/// The driver's own cost-table paths (gmac.c functions).
enum class Path : unsigned {
  gmac_interrupt,     ///< gmac_interrupt per call (entry, status tests, the locks)
  gmac_xmit_start,    ///< gmac_xmit_start per skb (ring bookkeeping, four descriptor stores, two mb())
  gmac_receive,       ///< gmac_receive per descriptor (three ld_le32, tests, refill stores, stats)
  gmac_receive_copy,  ///< the copybreak memcpy (per byte)
  gmac_alloc_skb,     ///< gmac_alloc_skb's alignment and the skb_put / skb_reserve of a ring buffer
  gmac_tx_cleanup,    ///< gmac_tx_cleanup per freed skb (stats, dev_kfree_skb_irq queueing)
  gmac_stats,         ///< gmac_stats bookkeeping per call (its register accesses are MMIO)
};
const std::vector<std::string>& path_names();
inline constexpr const char* kCostDriver = "gmac";
inline constexpr const char* kDriverName = "gmac";
inline constexpr const char* kVersion = "v1.5k4";

/// One GMAC driven by gmac v1.5k4: struct net_device + struct gmac.
class Gmac : public NetDevice {
 public:
  /// `params`: the DriverEntry's values (the RX_BLANK what-if, gem_whatif/rx_blank.h); empty = as shipped.
  Gmac(Kernel& k, std::string name, uint64_t bar, unsigned vector, DmaTags::Space dma_space,
       ParamValues params = {});
  ~Gmac() override;

  Task<int> open() override;
  Task<int> stop() override;
  Task<int> hard_start_xmit(SkbPtr& skb) override;
  /// bond_check_dev_link's answer: gmac sets no dev->do_ioctl (2.4.16 through 2.4.20), so 2.4.20
  /// bonding can ask neither ETHTOOL_GLINK nor the MII registers and "spoof[s] link up"
  /// (-EOPNOTSUPP here; research/link-faults-failover.md §A4). balance-rr still skips the slave
  /// per packet once mii_interrupt has turned the carrier off (IS_UP).
  int mii_link_status() override { return -95; }
  /// The PHY's link as the last mii_interrupt's MII_SR read found it (MII_SR_LKS), for tests.
  bool phy_link_seen() const { return (phy_status_ & MII_SR_LKS) != 0; }

  /// gmac_probe1's part that runs in the probe process (the station address; see the file comment).
  Task<void> probe_hw();
  /// gmac_stats: the MAC error counters folded into `stats` and zeroed in the chip.
  Task<void> get_stats();

  bool probed() const { return probed_; }
  uint64_t txring() const { return txring_; }
  uint64_t rxring() const { return rxring_; }
  int phy_addr() const { return phy_addr_; }
  uint32_t phy_id() const { return phy_id_; }
  int phy_type() const { return phy_type_; }
  bool gigabit() const { return gigabit_; }
  bool full_duplex() const { return full_duplex_; }
  unsigned next_tx() const { return next_tx_; }
  unsigned tx_gone() const { return tx_gone_; }
  unsigned next_rx() const { return next_rx_; }
  /// The buffer (bus address of skb->data - RX_OFFSET) RX descriptor `i` was last given.
  uint64_t rx_buffer(unsigned i) const;

 private:
  /// netif_carrier_on/off as 2.4.20's mii_interrupt calls them, with the run's event.
  void carrier_change(bool on);
  Task<void> gm_out(uint32_t reg, uint32_t v);
  Task<uint32_t> gm_in(uint32_t reg);
  Task<void> gm_bis(uint32_t reg, uint32_t v);
  Task<void> gm_bic(uint32_t reg, uint32_t v);
  Task<void> udelay(double us);
  Task<void> mdelay(double ms) { return udelay(ms * 1000.0); }
  Task<int> mii_read(int phy, int r);
  Task<int> mii_write(int phy, int r, int v);
  Task<void> mii_poll_start();
  Task<void> mii_poll_stop();
  Task<void> mii_interrupt();
  Task<int> mii_do_reset_phy(int phy_addr);
  Task<void> mii_init_BCM5400();
  Task<void> mii_init_BCM5401();
  Task<void> mii_init_BCM5411();
  Task<bool> mii_lookup_and_reset();
  Task<void> mii_setup_phy();
  Task<int> gmac_powerup_and_reset();
  Task<void> gmac_set_power(bool up);
  Task<void> gmac_set_duplex_mode(bool full_duplex);
  Task<void> gmac_set_gigabit_mode(bool gigabit);
  Task<void> gmac_mac_init();
  Task<void> gmac_init_rings();
  Task<void> gmac_start_dma();
  Task<void> gmac_stop_dma();
  Task<void> gmac_set_multicast();
  Task<SkbPtr> gmac_alloc_skb(unsigned length);
  /// skb_put(ETH_FRAME_LEN + RX_OFFSET) then skb_reserve(RX_OFFSET), as gmac_init_rings does (2.4's
  /// skb_reserve moves data and tail on a non-empty skb).
  void rx_skb_setup(Skb& skb);
  void set_rx_desc(unsigned i, uint64_t data);
  Task<void> gmac_interrupt();
  Task<void> gmac_tx_cleanup(bool force_cleanup);
  Task<void> gmac_receive();

  uint64_t bar_;
  ParamValues params_;
  DriverCosts costs_;
  DmaTags::Space space_;
  bool probed_ = false, irq_requested_ = false;
  WaitQueue probe_wq_;
  uint64_t tx_desc_page_ = 0, rx_desc_page_ = 0, txring_ = 0, rxring_ = 0, dummy_buf_ = 0;
  std::array<SkbPtr, NRX> rx_buff_;
  std::array<SkbPtr, NTX> tx_buff_;
  std::array<uint64_t, NRX> rx_data_{};  ///< the bus address each RX descriptor was given
  std::array<uint64_t, NTX> tx_data_{};  ///< the bus address of each TX skb (DMA journey tags)
  unsigned next_rx_ = 0, next_tx_ = 0, tx_gone_ = 0;
  int phy_addr_ = 0, phy_type_ = PHY_UNKNOWN, phy_status_ = 0;
  uint32_t phy_id_ = 0;
  bool full_duplex_ = false, gigabit_ = false;
  bool opened_ = false, sleeping_ = false;
  uint64_t *c_intr_, *c_status_reads_, *c_rx_, *c_copy_, *c_rx_kicks_, *c_tx_cleaned_, *c_tx_comp_reads_,
      *c_tx_at_comp_, *c_tx_busy_, *c_tx_stops_;
};

/// DriverEntry::probe: one Gmac for the "GMAC" device `dev`, registered with `k`, and the process
/// "insmod gmac <ifname>" that runs its probe_hw(). Throws std::invalid_argument for another part.
std::vector<std::shared_ptr<NetDevice>> probe(Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors,
                                              const ProbeTarget& nic, const ParamValues& params);

}  // namespace nicsim::gmacdrv
