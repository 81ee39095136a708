// Apple GMAC (UniNorth) / Sun GEM register map as far as the model uses it: offsets and bits under
// the names of Linux drivers/net/sungem.h ($Id: sungem.h,v 1.8 2001/10/17, the header of sungem
// v0.95 in 2.4.13-2.4.16; read in liexusong/Linux-2.4.16, identical to MaximeChretien/linux-history
// tag 2.4.16), with the name drivers/net/gmac.h (gmac v1.5k4, unchanged 2.4.10-2.4.24) gives the
// same register or bit in the comment ("gmac.h: GM_..."). One table: a reader finds RXDMA_BLANK by
// grepping it. Offsets are byte offsets into BAR0. A third reading, where the two Linux headers
// disagree, is NetBSD/FreeBSD gemreg.h (Eduardo Horvath, 2001: "register definitions for Apple
// GMAC, Sun ERI and Sun GEM"; read in freebsd/freebsd-src sys/dev/gem/if_gemreg.h).
//
// Byte order: registers are little-endian 32-bit words (sungem uses readl/writel, which on PowerPC
// are in_le32/out_le32; gmac uses out_le32 / out_le16 / out_8 through GM_OUT by the register's
// REG_SZ_* class). A 16-bit or 8-bit access at a register's offset reaches its low 16 / 8 bits.
// DMA descriptors are two little-endian 64-bit words (struct gem_txd / gem_rxd).
//
// Where the headers disagree on the hardware (the model makes each a parameter, GemParams):
//  * GREG_BIFCFG bits: sungem.h SLOWCLK 0x1, B64DIS 0x2, M66EN 0x4; gmac.h GM_BIF_CFG_SLOWCLK 0x01,
//    _HOST_64 0x02, _B64D_DIS 0x04, _M66EN 0x08 ("Read-only: sense if configured for 66MHz"),
//    as NetBSD GEM_PCI_BIF_CNF_M66EN 0x8.
//  * GREG_CFG bit 0: sungem.h GREG_CFG_IBURST "Infinite Burst" (NetBSD GEM_CONFIG_BURST_INF 0x1);
//    gmac.h GM_GCONF_BURST_SZ "1: 64 bytes/burst, 0: infinite".
//  * TXDMA_CFG pacing: sungem.h TXDMA_CFG_PMODE 0x00200000 "TXALL irq means TX FIFO empty"
//    (NetBSD GEM_TX_CONFIG_PACED 0x00200000 "TX_all_int modifier"); gmac.h GM_TX_CONF_PACED_MODE
//    0x00100000 "1: tx_all irq after last descriptor, 0: tx_all irq when tx fifo empty". gmac.h's
//    bit lies inside its own TX FIFO threshold field (GM_TX_CONF_FIFO_THR_MASK 0x001ffc00), which
//    both drivers fill with 0x7ff, so only bit 21 can be a separate control bit.
#pragma once
#include <cstdint>

namespace nicsim::gem {

inline constexpr uint32_t kBar0Bytes = 2 * 1024 * 1024;  ///< sungem.h PROM_END 0x200000 (ROM at 0x100000)
inline constexpr uint16_t PCI_VENDOR_ID_APPLE = 0x106b;
inline constexpr uint16_t PCI_DEVICE_ID_APPLE_UNI_N_GMAC = 0x0021;  ///< include/linux/pci_ids.h (2.4.16)

// ---------------------------------------------------------------- global registers
inline constexpr uint32_t GREG_SEBSTATE = 0x0000;
inline constexpr uint32_t GREG_CFG = 0x0004;    ///< gmac.h: GM_GCONF (16-bit access)
inline constexpr uint32_t GREG_STAT = 0x000C;   ///< gmac.h: GM_IRQ_STATUS. Read clears bits 0-6.
inline constexpr uint32_t GREG_IMASK = 0x0010;  ///< gmac.h: GM_IRQ_MASK. 1 = source masked. Reset 0xffffffff.
inline constexpr uint32_t GREG_IACK = 0x0014;   ///< gmac.h: GM_IRQ_ACK. Write 1 clears that bit of 0-6.
inline constexpr uint32_t GREG_STAT2 = 0x001C;  ///< gmac.h: GM_IRQ_ALT_STAT. GREG_STAT without the clear.
inline constexpr uint32_t GREG_PCIESTAT = 0x1000, GREG_PCIEMASK = 0x1004;
inline constexpr uint32_t GREG_BIFCFG = 0x1008;  ///< gmac.h: GM_BIF_CFG (8-bit access)
inline constexpr uint32_t GREG_BIFDIAG = 0x100C;
inline constexpr uint32_t GREG_SWRST = 0x1010;   ///< gmac.h: GM_RESET (8-bit access)

inline constexpr uint32_t GREG_CFG_IBURST = 0x00000001;    ///< see the header comment: gmac.h reads "64 B/burst"
inline constexpr uint32_t GREG_CFG_TXDMALIM = 0x0000003e;  ///< gmac.h: "No of 64 bytes transfers", shift 1
inline constexpr uint32_t GREG_CFG_RXDMALIM = 0x000007c0;  ///< shift 6

inline constexpr uint32_t GREG_STAT_TXINTME = 0x00000001;   ///< gmac.h GM_IRQ_TX_INT_ME: frame with INTME moved
inline constexpr uint32_t GREG_STAT_TXALL = 0x00000002;     ///< gmac.h GM_IRQ_TX_ALL (meaning: TXDMA_CFG_PMODE)
inline constexpr uint32_t GREG_STAT_TXDONE = 0x00000004;    ///< gmac.h GM_IRQ_TX_DONE: one frame host -> TX FIFO
inline constexpr uint32_t GREG_STAT_RXDONE = 0x00000010;    ///< gmac.h GM_IRQ_RX_DONE (RXDMA_BLANK gates it)
inline constexpr uint32_t GREG_STAT_RXNOBUF = 0x00000020;   ///< gmac.h GM_IRQ_RX_NO_BUF
inline constexpr uint32_t GREG_STAT_RXTAGERR = 0x00000040;  ///< gmac.h GM_IRQ_RX_TAG_ERR
inline constexpr uint32_t GREG_STAT_PCS = 0x00002000;       ///< clears when PCS_ISTAT is read
inline constexpr uint32_t GREG_STAT_TXMAC = 0x00004000;     ///< gmac.h GM_IRQ_MAC_TX: MAC_TXSTAT & ~MAC_TXMASK
inline constexpr uint32_t GREG_STAT_RXMAC = 0x00008000;     ///< gmac.h GM_IRQ_MAC_RX: MAC_RXSTAT & ~MAC_RXMASK
inline constexpr uint32_t GREG_STAT_MAC = 0x00010000;       ///< gmac.h GM_IRQ_MAC_CTRL: MAC_CSTAT & ~MAC_MCMASK
inline constexpr uint32_t GREG_STAT_MIF = 0x00020000;       ///< gmac.h GM_IRQ_MIF
inline constexpr uint32_t GREG_STAT_PCIERR = 0x00040000;    ///< gmac.h GM_IRQ_BUS_ERROR
inline constexpr uint32_t GREG_STAT_TXNR = 0xfff80000;      ///< gmac.h GM_IRQ_TX_COMP: == TXDMA_TXDONE
inline constexpr unsigned GREG_STAT_TXNR_SHIFT = 19;
/// Bits 0-6: latched events, cleared by a read of GREG_STAT or a 1 written to GREG_IACK.
inline constexpr uint32_t kStatLatched = 0x0000007f;
/// The interrupt sources (the bits GREG_IMASK gates).
inline constexpr uint32_t kStatSources = 0x0007e07f;

// GREG_BIFCFG, both readings (see the header comment)
inline constexpr uint32_t GREG_BIFCFG_SLOWCLK = 0x1, GREG_BIFCFG_B64DIS = 0x2, GREG_BIFCFG_M66EN = 0x4;  // sungem.h
inline constexpr uint32_t GM_BIF_CFG_HOST_64 = 0x02, GM_BIF_CFG_B64D_DIS = 0x04, GM_BIF_CFG_M66EN = 0x08;  // gmac.h

inline constexpr uint32_t GREG_SWRST_TXRST = 0x1, GREG_SWRST_RXRST = 0x2, GREG_SWRST_RSTOUT = 0x4;

// ---------------------------------------------------------------- TX DMA
inline constexpr uint32_t TXDMA_KICK = 0x2000;   ///< gmac.h GM_TX_KICK: last valid descriptor + 1 (13 bits)
inline constexpr uint32_t TXDMA_CFG = 0x2004;    ///< gmac.h GM_TX_CONF
inline constexpr uint32_t TXDMA_DBLOW = 0x2008;  ///< gmac.h GM_TX_DESC_LO (ring 2 KB aligned)
inline constexpr uint32_t TXDMA_DBHI = 0x200C;   ///< gmac.h GM_TX_DESC_HI
inline constexpr uint32_t TXDMA_PCNT = 0x2024;   ///< TX FIFO packet counter
inline constexpr uint32_t TXDMA_TXDONE = 0x2100; ///< gmac.h GM_TX_COMP: descriptor after the last one moved
inline constexpr uint32_t TXDMA_FSZ = 0x2118;    ///< TX FIFO size in 64 B units (read-only)

inline constexpr uint32_t TXDMA_CFG_ENABLE = 0x00000001;
inline constexpr uint32_t TXDMA_CFG_RINGSZ = 0x0000001e;   ///< 32 << (field >> 1) descriptors
inline constexpr uint32_t TXDMA_CFG_FTHRESH = 0x001ffc00;  ///< obsolete (sungem.h); shift 10
inline constexpr uint32_t TXDMA_CFG_PMODE = 0x00200000;    ///< sungem.h; NetBSD GEM_TX_CONFIG_PACED
inline constexpr uint32_t GM_TX_CONF_PACED_MODE = 0x00100000;  ///< gmac.h's reading (inside FTHRESH)
inline constexpr unsigned kTxdmaKickBits = 13;

// ---------------------------------------------------------------- RX DMA
inline constexpr uint32_t RXDMA_CFG = 0x4000;      ///< gmac.h GM_RX_CONF
inline constexpr uint32_t RXDMA_DBLOW = 0x4004;    ///< gmac.h GM_RX_DESC_LO
inline constexpr uint32_t RXDMA_DBHI = 0x4008;     ///< gmac.h GM_RX_DESC_HI
inline constexpr uint32_t RXDMA_PCNT = 0x4018;     ///< RX FIFO packet counter
inline constexpr uint32_t RXDMA_PTHRESH = 0x4020;  ///< gmac.h GM_RX_PTH
inline constexpr uint32_t RXDMA_KICK = 0x4100;     ///< gmac.h GM_RX_KICK: last valid + 1, a multiple of 4
inline constexpr uint32_t RXDMA_DONE = 0x4104;     ///< gmac.h GM_RX_COMP: first descriptor not yet used
inline constexpr uint32_t RXDMA_BLANK = 0x4108;    ///< gmac.h GM_RX_BLANK
inline constexpr uint32_t RXDMA_FSZ = 0x4120;      ///< gmac.h GM_RX_FIFO_SIZE: 64 B units (read-only)

inline constexpr uint32_t RXDMA_CFG_ENABLE = 0x00000001;
inline constexpr uint32_t RXDMA_CFG_RINGSZ = 0x0000001e;
inline constexpr uint32_t RXDMA_CFG_RINGSZ_BDISAB = 0x00000020;  ///< gmac.h GM_RX_CONF_BATCH_DIS
inline constexpr uint32_t RXDMA_CFG_FBOFF = 0x00001c00;    ///< first data byte offset, shift 10
inline constexpr uint32_t RXDMA_CFG_CSUMOFF = 0x000fe000;  ///< checksum start (half-words? see gem.h), shift 13
inline constexpr uint32_t RXDMA_CFG_FTHRESH = 0x07000000;  ///< 64 << field bytes; shift 24
inline constexpr unsigned RXDMA_CFG_FBOFF_SHIFT = 10, RXDMA_CFG_CSUMOFF_SHIFT = 13, RXDMA_CFG_FTHRESH_SHIFT = 24;
inline constexpr uint32_t RXDMA_CFG_FTHRESH_64 = 0x00000000, RXDMA_CFG_FTHRESH_128 = 0x01000000,
                          RXDMA_CFG_FTHRESH_256 = 0x02000000, RXDMA_CFG_FTHRESH_512 = 0x03000000,
                          RXDMA_CFG_FTHRESH_1K = 0x04000000, RXDMA_CFG_FTHRESH_2K = 0x05000000;
inline constexpr uint32_t RXDMA_PTHRESH_OFF = 0x000001ff;  ///< XOFF when FIFO > this × 64 B
inline constexpr uint32_t RXDMA_PTHRESH_ON = 0x001ff000;   ///< XON when FIFO < this × 64 B; shift 12
inline constexpr uint32_t RXDMA_BLANK_IPKTS = 0x000001ff;  ///< packets since the previous RX_DONE
inline constexpr uint32_t RXDMA_BLANK_ITIME = 0x000ff000;  ///< units of 2048 PCI clocks since the previous RX_DONE; shift 12
inline constexpr unsigned RXDMA_BLANK_ITIME_SHIFT = 12;
inline constexpr unsigned kRxBlankClocksPerUnit = 2048;    ///< sungem.h RXDMA_BLANK_ITIME; gmac.h GM_RX_BLANK_UNITS

// ---------------------------------------------------------------- MAC
inline constexpr uint32_t MAC_TXRST = 0x6000, MAC_RXRST = 0x6004;  ///< self-clearing reset commands (bit 0)
inline constexpr uint32_t MAC_SNDPAUSE = 0x6008;  ///< gmac.h GM_MAC_SND_PAUSE
inline constexpr uint32_t MAC_TXSTAT = 0x6010;    ///< gmac.h GM_MAC_TX_STATUS. Read clears.
inline constexpr uint32_t MAC_RXSTAT = 0x6014;    ///< gmac.h GM_MAC_RX_STATUS. Read clears.
inline constexpr uint32_t MAC_CSTAT = 0x6018;     ///< gmac.h GM_MAC_CTRLSTAT. Read clears bits 0-2.
inline constexpr uint32_t MAC_TXMASK = 0x6020;    ///< gmac.h GM_MAC_TX_MASK. 1 = masked. Reset all ones.
inline constexpr uint32_t MAC_RXMASK = 0x6024;    ///< gmac.h GM_MAC_RX_MASK (and gmac.h's GM_MAC_CTRLSTAT_MASK, a typo)
inline constexpr uint32_t MAC_MCMASK = 0x6028;    ///< MAC control mask. 1 = masked.
inline constexpr uint32_t MAC_TXCFG = 0x6030, MAC_RXCFG = 0x6034, MAC_MCCFG = 0x6038, MAC_XIFCFG = 0x603C;
inline constexpr uint32_t MAC_IPG0 = 0x6040, MAC_IPG1 = 0x6044, MAC_IPG2 = 0x6048, MAC_STIME = 0x604C;
inline constexpr uint32_t MAC_MINFSZ = 0x6050, MAC_MAXFSZ = 0x6054, MAC_PASIZE = 0x6058, MAC_JAMSIZE = 0x605C;
inline constexpr uint32_t MAC_ATTLIM = 0x6060, MAC_MCTYPE = 0x6064;
inline constexpr uint32_t MAC_ADDR0 = 0x6080, MAC_ADDR1 = 0x6084, MAC_ADDR2 = 0x6088;  ///< [15:0], [31:16], [47:32]
inline constexpr uint32_t MAC_HASH0 = 0x60C0;                                          ///< .. MAC_HASH15 0x60FC
// 16-bit statistics counters (sungem.h "Statistics Registers"; writable, the drivers clear them)
inline constexpr uint32_t MAC_NCOLL = 0x6100, MAC_FASUCC = 0x6104, MAC_ECOLL = 0x6108, MAC_LCOLL = 0x610C;
inline constexpr uint32_t MAC_DTIMER = 0x6110, MAC_PATMPS = 0x6114, MAC_RFCTR = 0x6118, MAC_LERR = 0x611C;
inline constexpr uint32_t MAC_AERR = 0x6120, MAC_FCSERR = 0x6124, MAC_RXCVERR = 0x6128;
inline constexpr uint32_t MAC_RANDSEED = 0x6130, MAC_SMACHINE = 0x6134;

inline constexpr uint32_t MAC_SNDPAUSE_TS = 0x0000ffff, MAC_SNDPAUSE_SP = 0x00010000;
inline constexpr uint32_t MAC_TXSTAT_XMIT = 0x001, MAC_TXSTAT_URUN = 0x002, MAC_TXSTAT_MPE = 0x004,
                          MAC_TXSTAT_NCE = 0x008, MAC_TXSTAT_ECE = 0x010, MAC_TXSTAT_LCE = 0x020,
                          MAC_TXSTAT_FCE = 0x040, MAC_TXSTAT_DTE = 0x080, MAC_TXSTAT_PCE = 0x100;
inline constexpr uint32_t MAC_RXSTAT_RCV = 0x01, MAC_RXSTAT_OFLW = 0x02, MAC_RXSTAT_FCE = 0x04,
                          MAC_RXSTAT_ACE = 0x08, MAC_RXSTAT_CCE = 0x10, MAC_RXSTAT_LCE = 0x20, MAC_RXSTAT_VCE = 0x40;
inline constexpr uint32_t MAC_CSTAT_PRCV = 0x1, MAC_CSTAT_PS = 0x2, MAC_CSTAT_NPS = 0x4, MAC_CSTAT_PTR = 0xffff0000;
inline constexpr uint32_t MAC_TXCFG_ENAB = 0x001, MAC_TXCFG_NFCS = 0x100;
inline constexpr uint32_t MAC_RXCFG_ENAB = 0x001, MAC_RXCFG_SPAD = 0x002, MAC_RXCFG_SFCS = 0x004,
                          MAC_RXCFG_PROM = 0x008, MAC_RXCFG_PGRP = 0x010, MAC_RXCFG_HFE = 0x020;
inline constexpr uint32_t MAC_MCCFG_SPE = 0x1, MAC_MCCFG_RPE = 0x2, MAC_MCCFG_PMC = 0x4;  ///< send / obey PAUSE

// ---------------------------------------------------------------- MIF (MDIO) and PCS
inline constexpr uint32_t MIF_BBCLK = 0x6200, MIF_BBDATA = 0x6204, MIF_BBOENAB = 0x6208;
inline constexpr uint32_t MIF_FRAME = 0x620C, MIF_CFG = 0x6210, MIF_MASK = 0x6214, MIF_STATUS = 0x6218;
inline constexpr uint32_t MIF_CFG_PSELECT = 0x001, MIF_CFG_POLL = 0x002, MIF_CFG_BBMODE = 0x004,
                          MIF_CFG_MDI0 = 0x100, MIF_CFG_MDI1 = 0x200;
inline constexpr uint32_t MIF_CFG_PRADDR = 0x000000f8, MIF_CFG_PRADDR_SHIFT = 3;   ///< gmac.h GM_MIF_CFGPR_MASK: poll register
inline constexpr uint32_t MIF_CFG_PPADDR = 0x00007c00, MIF_CFG_PPADDR_SHIFT = 10;  ///< gmac.h GM_MIF_CFGPD_MASK: poll PHY address
inline constexpr uint32_t MIF_STATUS_DATA = 0xffff0000, MIF_STATUS_STAT = 0x0000ffff;  ///< "Live image", "Which bits have changed"
inline constexpr uint32_t MIF_FRAME_ST = 0xc0000000, MIF_FRAME_OP = 0x30000000, MIF_FRAME_PHYAD = 0x0f800000,
                          MIF_FRAME_REGAD = 0x007c0000, MIF_FRAME_TAMSB = 0x00020000, MIF_FRAME_TALSB = 0x00010000,
                          MIF_FRAME_DATA = 0x0000ffff;
inline constexpr uint32_t PCS_MIICTRL = 0x9000, PCS_MIISTAT = 0x9004, PCS_ISTAT = 0x9018, PCS_DMODE = 0x9050;

// ---------------------------------------------------------------- descriptors (little-endian 64-bit words)
/// struct gem_txd { u64 control_word; u64 buffer; } (gmac.h: struct gmac_dma_desc { size; flags; lo_addr;
/// hi_addr; }: the same 16 bytes as four 32-bit words, written with st_le32 or a native store).
inline constexpr unsigned kDescBytes = 16;
inline constexpr uint64_t TXDCTRL_BUFSZ = 0x0000000000007fffULL;   ///< gmac.h TX_SZ_MASK
inline constexpr uint64_t TXDCTRL_CSTART = 0x00000000001f8000ULL;
inline constexpr uint64_t TXDCTRL_COFF = 0x000000001fe00000ULL;
inline constexpr uint64_t TXDCTRL_CENAB = 0x0000000020000000ULL;   ///< gmac.h TX_SZ_CRC_ENABLE
inline constexpr uint64_t TXDCTRL_EOF = 0x0000000040000000ULL;     ///< gmac.h TX_SZ_EOP
inline constexpr uint64_t TXDCTRL_SOF = 0x0000000080000000ULL;     ///< gmac.h TX_SZ_SOP
inline constexpr uint64_t TXDCTRL_INTME = 0x0000000100000000ULL;   ///< gmac.h TX_FL_INTERRUPT (in `flags`)
inline constexpr uint64_t TXDCTRL_NOCRC = 0x0000000200000000ULL;   ///< gmac.h TX_FL_NO_CRC
/// struct gem_rxd { u64 status_word; u64 buffer; }: the driver posts BUFSZ | OWN, the chip writes
/// the status word back (OWN clear, the frame's length, the checksum) and leaves `buffer` alone.
inline constexpr uint64_t RXDCTRL_TCPCSUM = 0x000000000000ffffULL;  ///< gmac.h RX_SZ_CKSUM_MASK
inline constexpr uint64_t RXDCTRL_BUFSZ = 0x000000007fff0000ULL;    ///< gmac.h RX_SZ_MASK, shift 16
inline constexpr unsigned RXDCTRL_BUFSZ_SHIFT = 16;
inline constexpr uint64_t RXDCTRL_OWN = 0x0000000080000000ULL;      ///< gmac.h RX_SZ_OWN (advisory: not checked)
inline constexpr uint64_t RXDCTRL_HASHVAL = 0x0ffff00000000000ULL;
inline constexpr uint64_t RXDCTRL_HPASS = 0x1000000000000000ULL;
inline constexpr uint64_t RXDCTRL_ALTMAC = 0x2000000000000000ULL;   ///< gmac.h RX_FL_ALT_ADDR
inline constexpr uint64_t RXDCTRL_BAD = 0x4000000000000000ULL;      ///< gmac.h RX_FL_CRC_ERROR

/// Ring size in descriptors from the TXDMA_CFG/RXDMA_CFG RINGSZ field: 32 << (field >> 1), 32..8192.
constexpr unsigned ring_entries(uint32_t cfg) {
  const unsigned code = (cfg & TXDMA_CFG_RINGSZ) >> 1;
  return 32u << (code > 8 ? 8 : code);
}

}  // namespace nicsim::gem
