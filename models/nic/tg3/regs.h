// Broadcom BCM570x (Tigon3) register map as far as the model uses it: offsets and bits under the
// names of Linux drivers/net/tg3.h (read in lorenzo-stoakes/linux-historical drivers/net/tg3.h,
// $Id: tg3.h,v 1.37.2.32 2002/03/11, the header of tg3 0.96-0.99; the host coalescing, mailbox,
// descriptor and status block definitions are unchanged in the v1.0 header of
// oct-month/linux-kernel-2.4.18, research/tg3-bonding-tcp-gmac-formats.md §1). One table: a reader
// finds HOSTCC_RXCOL_TICKS by grepping it. Offsets are byte offsets into BAR0 (64 KB).
#pragma once
#include <cstdint>

namespace nicsim::tg3 {

inline constexpr uint32_t kBar0Bytes = 64 * 1024;  ///< tg3 maps BAR0 (0x10000 bytes of register + SRAM window)

// ---------------------------------------------------------------- descriptor block info (TG3_BDINFO_*)
inline constexpr uint32_t TG3_64BIT_REG_HIGH = 0x00, TG3_64BIT_REG_LOW = 0x04;
inline constexpr uint32_t TG3_BDINFO_HOST_ADDR = 0x0, TG3_BDINFO_MAXLEN_FLAGS = 0x8, TG3_BDINFO_NIC_ADDR = 0xc;
inline constexpr uint32_t BDINFO_FLAGS_DISABLED = 0x00000002, BDINFO_FLAGS_MAXLEN_SHIFT = 16;

// ---------------------------------------------------------------- PCI config mirror (first 256 B)
inline constexpr uint16_t TG3PCI_VENDOR_BROADCOM = 0x14e4;
inline constexpr uint16_t TG3PCI_DEVICE_TIGON3_2 = 0x1645;  ///< BCM5701
inline constexpr uint32_t TG3PCI_MISC_HOST_CTRL = 0x68;
inline constexpr uint32_t MISC_HOST_CTRL_CLEAR_INT = 0x00000001, MISC_HOST_CTRL_MASK_PCI_INT = 0x00000002,
                          MISC_HOST_CTRL_TAGGED_STATUS = 0x00000200, MISC_HOST_CTRL_CHIPREV_SHIFT = 16;
inline constexpr uint32_t CHIPREV_ID_5701_B5 = 0x0105;  ///< seed 004's PE2650 ports: "rev 0105"
inline constexpr uint32_t TG3PCI_DMA_RW_CTRL = 0x6c;
inline constexpr uint32_t DMA_RWCTRL_USE_MEM_READ_MULT = 0x00400000;
inline constexpr uint32_t DMA_RWCTRL_PCI_READ_CMD_SHIFT = 24, DMA_RWCTRL_PCI_WRITE_CMD_SHIFT = 28;
inline constexpr uint32_t TG3PCI_PCISTATE = 0x70;
inline constexpr uint32_t PCISTATE_CONV_PCI_MODE = 0x00000004, PCISTATE_BUS_SPEED_HIGH = 0x00000008,
                          PCISTATE_BUS_32BIT = 0x00000010;
inline constexpr uint32_t TG3PCI_MEM_WIN_BASE_ADDR = 0x7c;
/// PCI configuration header: subsystem vendor ID (low 16 bits) and subsystem ID (high 16 bits), as
/// the board's NIC EEPROM sets them (PCI 2.2 §6.2.1); tg3 tests pdev->subsystem_vendor.
inline constexpr uint32_t PCI_SUBSYSTEM_VENDOR_ID = 0x2c;
inline constexpr uint16_t PCI_VENDOR_ID_DELL = 0x1028;

// ---------------------------------------------------------------- mailboxes (64-bit; the low word is written)
inline constexpr uint32_t MAILBOX_INTERRUPT_0 = 0x200;
inline constexpr uint32_t MAILBOX_RCV_STD_PROD_IDX = 0x268;
inline constexpr uint32_t MAILBOX_RCVRET_CON_IDX_0 = 0x280;
inline constexpr uint32_t MAILBOX_SNDHOST_PROD_IDX_0 = 0x300;
inline constexpr uint32_t MAILBOX_SNDNIC_PROD_IDX_0 = 0x380;

// ---------------------------------------------------------------- MAC
inline constexpr uint32_t MAC_MODE = 0x400, MAC_STATUS = 0x404, MAC_EVENT = 0x408;
inline constexpr uint32_t MAC_MODE_RESET = 0x00000001, MAC_MODE_HALF_DUPLEX = 0x00000002;
inline constexpr uint32_t MAC_STATUS_SYNC_CHANGED = 0x00000010, MAC_STATUS_CFG_CHANGED = 0x00000008,
                          MAC_STATUS_LNKSTATE_CHANGED = 0x00001000, MAC_STATUS_MI_COMPLETION = 0x00400000,
                          MAC_STATUS_MI_INTERRUPT = 0x00800000;
inline constexpr uint32_t MAC_EVENT_LNKSTATE_CHANGED = 0x00001000, MAC_EVENT_MI_INTERRUPT = 0x00800000;
inline constexpr uint32_t MAC_ADDR_0_HIGH = 0x410, MAC_ADDR_0_LOW = 0x414;
inline constexpr uint32_t MAC_RX_MTU_SIZE = 0x43c;
inline constexpr uint32_t MAC_MI_COM = 0x44c, MAC_MI_STAT = 0x450, MAC_MI_MODE = 0x454;
inline constexpr uint32_t MI_COM_CMD_WRITE = 0x04000000, MI_COM_CMD_READ = 0x08000000, MI_COM_READ_FAILED = 0x10000000,
                          MI_COM_START = 0x20000000, MI_COM_BUSY = 0x20000000;
inline constexpr uint32_t MI_COM_PHY_ADDR_SHIFT = 21, MI_COM_REG_ADDR_SHIFT = 16, MI_COM_DATA_MASK = 0x0000ffff;
inline constexpr uint32_t MAC_TX_MODE = 0x45c, MAC_RX_MODE = 0x468;
// TX_MODE_FLOW_CTRL_ENABLE: send 802.3x PAUSE frames; RX_MODE_FLOW_CTRL_ENABLE: obey received ones
// (tg3 1.0 tg3_setup_flow_control: TG3_FLAG_TX_PAUSE -> the TX bit, TG3_FLAG_RX_PAUSE -> the RX bit).
inline constexpr uint32_t TX_MODE_ENABLE = 0x00000002, TX_MODE_FLOW_CTRL_ENABLE = 0x00000010;
inline constexpr uint32_t RX_MODE_ENABLE = 0x00000002, RX_MODE_FLOW_CTRL_ENABLE = 0x00000004,
                          RX_MODE_PROMISC = 0x00000100, RX_MODE_NO_CRC_CHECK = 0x00000200;

// ---------------------------------------------------------------- receive data and BD initiator
inline constexpr uint32_t RCVDBDI_MODE = 0x2400;
inline constexpr uint32_t RCVDBDI_JUMBO_BD = 0x2440, RCVDBDI_STD_BD = 0x2450, RCVDBDI_MINI_BD = 0x2460;

// ---------------------------------------------------------------- buffer manager (mbuf watermarks, in mbufs)
inline constexpr uint32_t BUFMGR_MB_RDMA_LOW_WATER = 0x4410, BUFMGR_MB_MACRX_LOW_WATER = 0x4414,
                          BUFMGR_MB_HIGH_WATER = 0x4418;
/// The values tg3_reset_hw writes (tg3 1.0 tg3.h, non-jumbo; tg3_get_invariants' bufmgr_config).
inline constexpr uint32_t DEFAULT_MB_RDMA_LOW_WATER = 0x40, DEFAULT_MB_MACRX_LOW_WATER = 0x20,
                          DEFAULT_MB_HIGH_WATER = 0x60;

// ---------------------------------------------------------------- host coalescing (research §1.1)
inline constexpr uint32_t HOSTCC_MODE = 0x3c00, HOSTCC_STATUS = 0x3c04;
inline constexpr uint32_t HOSTCC_MODE_RESET = 0x00000001, HOSTCC_MODE_ENABLE = 0x00000002,
                          HOSTCC_MODE_ATTN = 0x00000004, HOSTCC_MODE_NOW = 0x00000008,
                          HOSTCC_MODE_64BYTE = 0x00000080, HOSTCC_MODE_32BYTE = 0x00000100,
                          HOSTCC_MODE_CLRTICK_RXBD = 0x00000200, HOSTCC_MODE_CLRTICK_TXBD = 0x00000400;
inline constexpr uint32_t HOSTCC_RXCOL_TICKS = 0x3c08, HOSTCC_TXCOL_TICKS = 0x3c0c;
inline constexpr uint32_t HOSTCC_RXMAX_FRAMES = 0x3c10, HOSTCC_TXMAX_FRAMES = 0x3c14;
inline constexpr uint32_t HOSTCC_RXCOAL_TICK_INT = 0x3c18, HOSTCC_TXCOAL_TICK_INT = 0x3c1c;
inline constexpr uint32_t HOSTCC_RXCOAL_MAXF_INT = 0x3c20, HOSTCC_TXCOAL_MAXF_INT = 0x3c24;
inline constexpr uint32_t HOSTCC_STAT_COAL_TICKS = 0x3c28;
inline constexpr uint32_t HOSTCC_STATS_BLK_HOST_ADDR = 0x3c30, HOSTCC_STATUS_BLK_HOST_ADDR = 0x3c38;
inline constexpr uint32_t HOSTCC_STATS_BLK_NIC_ADDR = 0x3c40, HOSTCC_STATUS_BLK_NIC_ADDR = 0x3c44;

// ---------------------------------------------------------------- GRC
inline constexpr uint32_t GRC_MODE = 0x6800, GRC_MISC_CFG = 0x6804, GRC_LOCAL_CTRL = 0x6808;
inline constexpr uint32_t GRC_MISC_CFG_CORECLK_RESET = 0x00000001;  ///< tg3.h: core-clock reset (tg3_chip_reset)
inline constexpr uint32_t GRC_MODE_HOST_SENDBDS = 0x00020000, GRC_MODE_4X_NIC_SEND_RINGS = 0x20000000;
inline constexpr uint32_t GRC_LCLCTRL_INT_ACTIVE = 0x00000001, GRC_LCLCTRL_CLEARINT = 0x00000002,
                          GRC_LCLCTRL_SETINT = 0x00000004;

// ---------------------------------------------------------------- NIC SRAM (32 KB window at BAR0 + 0x8000)
inline constexpr uint32_t NIC_SRAM_WIN_BASE = 0x8000;
inline constexpr uint32_t NIC_SRAM_SEND_RCB = 0x0100, NIC_SRAM_RCV_RET_RCB = 0x0200;
inline constexpr uint32_t NIC_SRAM_STATS_BLK = 0x0300, NIC_SRAM_STATUS_BLK = 0x0b00;
inline constexpr uint32_t NIC_SRAM_TX_BUFFER_DESC = 0x4000;  ///< 512 send BDs
inline constexpr uint32_t NIC_SRAM_RX_BUFFER_DESC = 0x6000;  ///< 256 std BDs (the chip's copy)
inline constexpr uint32_t NIC_SRAM_MBUF_POOL_BASE = 0x8000, NIC_SRAM_MBUF_POOL_SIZE = 0x18000;
inline constexpr uint32_t kSramBytes = 0x20000;  ///< 128 KB: NIC_SRAM_MBUF_POOL_BASE + NIC_SRAM_MBUF_POOL_SIZE

// ---------------------------------------------------------------- descriptors
inline constexpr unsigned TXD_SIZE = 16;  ///< struct tg3_tx_buffer_desc: addr_hi, addr_lo, len_flags, vlan_tag
inline constexpr uint32_t TXD_FLAG_TCPUDP_CSUM = 0x0001, TXD_FLAG_IP_CSUM = 0x0002, TXD_FLAG_END = 0x0004;
inline constexpr uint32_t TXD_LEN_SHIFT = 16;
inline constexpr unsigned RXD_SIZE = 32;  ///< struct tg3_rx_buffer_desc (std ring and return ring)
inline constexpr uint32_t RXD_IDX_SHIFT = 16, RXD_LEN_MASK = 0x0000ffff, RXD_FLAGS_SHIFT = 0;
inline constexpr uint32_t RXD_FLAG_END = 0x0004, RXD_FLAG_ERROR = 0x0400, RXD_FLAG_IP_CSUM = 0x1000,
                          RXD_FLAG_TCPUDP_CSUM = 0x2000, RXD_FLAG_IS_TCP = 0x4000;
inline constexpr uint32_t RXD_OPAQUE_RING_STD = 0x00010000, RXD_OPAQUE_INDEX_MASK = 0x0000ffff;
// struct tg3_rx_buffer_desc byte offsets
inline constexpr unsigned RXD_ADDR_HI = 0, RXD_ADDR_LO = 4, RXD_IDX_LEN = 8, RXD_TYPE_FLAGS = 12,
                          RXD_IP_TCP_CSUM = 16, RXD_ERR_VLAN = 20, RXD_OPAQUE = 28;

// ---------------------------------------------------------------- status block (struct tg3_hw_status)
inline constexpr unsigned TG3_HW_STATUS_SIZE = 0x80;
inline constexpr uint32_t SD_STATUS_UPDATED = 0x00000001, SD_STATUS_LINK_CHG = 0x00000002, SD_STATUS_ERROR = 0x00000004;
// byte offsets (little-endian host: rx_jumbo_consumer then rx_consumer; idx[0].rx_producer then tx_consumer)
inline constexpr unsigned SB_STATUS = 0, SB_STATUS_TAG = 4, SB_RX_JUMBO_CONSUMER = 8, SB_RX_CONSUMER = 10,
                          SB_RX_MINI_CONSUMER = 12, SB_IDX0_RX_PRODUCER = 16, SB_IDX0_TX_CONSUMER = 18;

// ---------------------------------------------------------------- statistics block (struct tg3_hw_stats)
inline constexpr unsigned TG3_HW_STATS_SIZE = 0x800;  ///< 0xb00 - 0x300
// tg3_stat64_t byte offsets from the block's start (its first 0x100 bytes are __reserved0)
inline constexpr unsigned STATS_RX_OCTETS = 0x100, STATS_RX_UCAST_PACKETS = 0x118, STATS_RX_MCAST_PACKETS = 0x120,
                          STATS_RX_BCAST_PACKETS = 0x128, STATS_RX_FCS_ERRORS = 0x130, STATS_RX_XON_PAUSE_RCVD = 0x140,
                          STATS_RX_XOFF_PAUSE_RCVD = 0x148, STATS_RX_MAC_CTRL_RCVD = 0x150,
                          STATS_RX_XOFF_ENTERED = 0x158;
inline constexpr unsigned STATS_TX_OCTETS = 0x300, STATS_TX_XON_SENT = 0x318, STATS_TX_XOFF_SENT = 0x320,
                          STATS_TX_UCAST_PACKETS = 0x3d8, STATS_TX_MCAST_PACKETS = 0x3e0,
                          STATS_TX_BCAST_PACKETS = 0x3e8;
// Receive List Placement, Send Data Initiator, Host Coalescing groups
inline constexpr unsigned STATS_RXBDS_EMPTY = 0x598, STATS_RX_DISCARDS = 0x5a0;
inline constexpr unsigned STATS_RING_STATUS_UPDATE = 0x6a0, STATS_NIC_IRQS = 0x6a8, STATS_NIC_AVOIDED_IRQS = 0x6b0;

// ---------------------------------------------------------------- PHY (MII registers, tg3.h / mii.h)
inline constexpr unsigned PHY_ADDR = 0x01;
inline constexpr unsigned MII_BMCR = 0x00, MII_BMSR = 0x01, MII_PHYSID1 = 0x02, MII_PHYSID2 = 0x03,
                          MII_ADVERTISE = 0x04, MII_LPA = 0x05, MII_TG3_CTRL = 0x09, MII_STAT1000 = 0x0a,
                          MII_TG3_AUX_STAT = 0x19;
// The copper PHY's interrupt and test registers (tg3.h 0.99): MII_TG3_ISTAT (clear on read, tg3
// reads it twice to "clear pending interrupts"), MII_TG3_IMASK (a set bit masks), MII_TG3_INT_LINKCHG;
// tg3's calc_crc_errors sets bit 15 of register 0x1e (MII_TG3_TEST1 here) and reads the receive CRC
// error count from register 0x14 (MII_TG3_RXR_COUNTERS here), on 5700/5701 copper.
inline constexpr unsigned MII_TG3_RXR_COUNTERS = 0x14, MII_TG3_ISTAT = 0x1a, MII_TG3_IMASK = 0x1b,
                          MII_TG3_TEST1 = 0x1e;
inline constexpr uint16_t MII_TG3_INT_LINKCHG = 0x0002, MII_TG3_TEST1_CRC_EN = 0x8000;
inline constexpr uint16_t BMSR_LSTATUS = 0x0004, BMSR_ANEGCOMPLETE = 0x0020;
inline constexpr uint16_t ADVERTISE_PAUSE_CAP = 0x0400, ADVERTISE_PAUSE_ASYM = 0x0800;  ///< also LPA_PAUSE_* (mii.h)
inline constexpr uint16_t MII_TG3_AUX_STAT_SPDMASK = 0x0700, MII_TG3_AUX_STAT_1000FULL = 0x0700,
                          MII_TG3_AUX_STAT_100FULL = 0x0500;

/// Little-endian loads/stores of descriptor and status words (the chip is run with no byte/word swap
/// on x86: MISC_HOST_CTRL_WORD_SWAP only, which makes the 64-bit words' halves ordered as here).
inline uint16_t ld16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
inline uint32_t ld32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t(p[3]) << 24); }
inline void st16(uint8_t* p, uint16_t v) { p[0] = uint8_t(v); p[1] = uint8_t(v >> 8); }
inline void st32(uint8_t* p, uint32_t v) { for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i)); }
/// A 64-bit host address or tg3_stat64_t as the chip lays it out: {u32 high, u32 low}.
inline void st_hilo(uint8_t* p, uint64_t v) { st32(p, uint32_t(v >> 32)); st32(p + 4, uint32_t(v)); }
inline uint64_t ld_hilo(const uint8_t* p) { return (uint64_t(ld32(p)) << 32) | ld32(p + 4); }

}  // namespace nicsim::tg3
