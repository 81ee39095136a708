// Intel 8254x register map, bit fields and legacy descriptor formats, by datasheet name.
//
// Source: "PCI/PCI-X Family of Gigabit Ethernet Controllers Software Developer's Manual" (SDM),
// chapter 13 (register descriptions; page numbers as in research/intel-8254x-e1000-e100.md, "SDM p=N")
// and chapter 3 (descriptors). Offsets agree with Linux e1000_hw.h of 4.4.12-k1.
#pragma once
#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

namespace nicsim::e1000 {

/// How software sees a register.
enum class Access : uint8_t {
  RW,  ///< read/write storage
  RO,  ///< read only (writes ignored)
  RC,  ///< read only, cleared on read (statistics, SDM §13.7 "All statistics registers reset when read")
  WO,  ///< write only (reads return 0)
};

/// Which variants implement a register (a register the variant lacks reads 0 and ignores writes).
enum class Avail : uint8_t {
  All,
  Not82544,  ///< SDM footnote "Not applicable to the 82544GC/EI" (ITR p=305, RADV p=319, TADV p=331, EERD)
};

struct RegInfo {
  uint32_t offset;
  std::string_view name;
  Access access;
  uint32_t reset;
  Avail avail;
  std::string_view sdm;  ///< SDM section
};

// ---- Register offsets (SDM Table 13-2 "Ethernet Controller Register Summary") ----
inline constexpr uint32_t CTRL = 0x0000, STATUS = 0x0008, EECD = 0x0010, EERD = 0x0014, CTRL_EXT = 0x0018,
                          MDIC = 0x0020, FCAL = 0x0028, FCAH = 0x002C, FCT = 0x0030, VET = 0x0038,
                          ICR = 0x00C0, ITR = 0x00C4, ICS = 0x00C8, IMS = 0x00D0, IMC = 0x00D8, RCTL = 0x0100,
                          FCTTV = 0x0170, TXCW = 0x0178, RXCW = 0x0180, TCTL = 0x0400, TIPG = 0x0410,
                          LEDCTL = 0x0E00, PBA = 0x1000, FCRTL = 0x2160, FCRTH = 0x2168, RDBAL = 0x2800,
                          RDBAH = 0x2804, RDLEN = 0x2808, RDH = 0x2810, RDT = 0x2818, RDTR = 0x2820,
                          RXDCTL = 0x2828, RADV = 0x282C, RSRPD = 0x2C00, TXDMAC = 0x3000, TDBAL = 0x3800,
                          TDBAH = 0x3804, TDLEN = 0x3808, TDH = 0x3810, TDT = 0x3818, TIDV = 0x3820,
                          TXDCTL = 0x3828, TADV = 0x382C, TSPMT = 0x3830, RXCSUM = 0x5000;
// Statistics (SDM §13.7), all clear-on-read.
inline constexpr uint32_t CRCERRS = 0x4000, ALGNERRC = 0x4004, SYMERRS = 0x4008, RXERRC = 0x400C, MPC = 0x4010,
                          SCC = 0x4014, ECOL = 0x4018, MCC = 0x401C, LATECOL = 0x4020, COLC = 0x4028,
                          DC = 0x4030, TNCRS = 0x4034, SEC = 0x4038, CEXTERR = 0x403C, RLEC = 0x4040,
                          XONRXC = 0x4048, XONTXC = 0x404C, XOFFRXC = 0x4050, XOFFTXC = 0x4054, FCRUC = 0x4058,
                          PRC64 = 0x405C, PRC127 = 0x4060, PRC255 = 0x4064, PRC511 = 0x4068, PRC1023 = 0x406C,
                          PRC1522 = 0x4070, GPRC = 0x4074, BPRC = 0x4078, MPRC = 0x407C, GPTC = 0x4080,
                          GORCL = 0x4088, GORCH = 0x408C, GOTCL = 0x4090, GOTCH = 0x4094, RNBC = 0x40A0,
                          RUC = 0x40A4, RFC = 0x40A8, ROC = 0x40AC, RJC = 0x40B0, TORL = 0x40C0, TORH = 0x40C4,
                          TOTL = 0x40C8, TOTH = 0x40CC, TPR = 0x40D0, TPT = 0x40D4, PTC64 = 0x40D8,
                          PTC127 = 0x40DC, PTC255 = 0x40E0, PTC511 = 0x40E4, PTC1023 = 0x40E8, PTC1522 = 0x40EC,
                          MPTC = 0x40F0, BPTC = 0x40F4;
// Arrays.
inline constexpr uint32_t MTA = 0x5200;  ///< multicast table, 128 × 32 bits (SDM §13.5.1)
inline constexpr uint32_t RAL0 = 0x5400; ///< receive address low/high, 16 pairs (SDM §13.5.2)
inline constexpr uint32_t RAH0 = 0x5404;
inline constexpr uint32_t VFTA = 0x5600; ///< VLAN filter table, 128 × 32 bits
inline constexpr unsigned kMtaEntries = 128, kRaEntries = 16, kVftaEntries = 128;

/// The one register table: every named register the model implements.
inline constexpr RegInfo kRegs[] = {
    {CTRL, "CTRL", Access::RW, 0x00000000, Avail::All, "§13.4.1"},
    {STATUS, "STATUS", Access::RO, 0x00000000, Avail::All, "§13.4.2"},
    {EECD, "EECD", Access::RW, 0x00000100, Avail::All, "§13.4.3"},  // EE_PRES set
    {EERD, "EERD", Access::RW, 0x00000000, Avail::Not82544, "§13.4.4"},
    {CTRL_EXT, "CTRL_EXT", Access::RW, 0x00000000, Avail::All, "§13.4.6"},
    {MDIC, "MDIC", Access::RW, 0x10000000, Avail::All, "§13.4.7"},
    {FCAL, "FCAL", Access::RW, 0x00C28001, Avail::All, "§13.4.8"},
    {FCAH, "FCAH", Access::RW, 0x00000100, Avail::All, "§13.4.8"},
    {FCT, "FCT", Access::RW, 0x00008808, Avail::All, "§13.4.9"},
    {VET, "VET", Access::RW, 0x00008100, Avail::All, "§13.4.10"},
    {ICR, "ICR", Access::RC, 0x00000000, Avail::All, "§13.4.17 p=303"},
    {ITR, "ITR", Access::RW, 0x00000000, Avail::Not82544, "§13.4.18 p=305"},
    {ICS, "ICS", Access::WO, 0x00000000, Avail::All, "§13.4.19"},
    {IMS, "IMS", Access::RW, 0x00000000, Avail::All, "§13.4.20"},
    {IMC, "IMC", Access::WO, 0x00000000, Avail::All, "§13.4.21"},
    {RCTL, "RCTL", Access::RW, 0x00000000, Avail::All, "§13.4.22"},
    {FCTTV, "FCTTV", Access::RW, 0x00000000, Avail::All, "§13.4.12"},
    {TXCW, "TXCW", Access::RW, 0x00000000, Avail::All, "§13.4.13"},
    {RXCW, "RXCW", Access::RO, 0x00000000, Avail::All, "§13.4.14"},
    {TCTL, "TCTL", Access::RW, 0x00000000, Avail::All, "§13.4.33"},
    {TIPG, "TIPG", Access::RW, 0x00000000, Avail::All, "§13.4.34"},
    {LEDCTL, "LEDCTL", Access::RW, 0x07068302, Avail::All, "§13.4.15"},
    {PBA, "PBA", Access::RW, 0x00100030, Avail::All, "§13.4.16 p=288"},  // RXA 48 KB, TXA 16 KB
    {FCRTL, "FCRTL", Access::RW, 0x00000000, Avail::All, "§13.4.23"},
    {FCRTH, "FCRTH", Access::RW, 0x00000000, Avail::All, "§13.4.24"},
    {RDBAL, "RDBAL", Access::RW, 0x00000000, Avail::All, "§13.4.25"},
    {RDBAH, "RDBAH", Access::RW, 0x00000000, Avail::All, "§13.4.26"},
    {RDLEN, "RDLEN", Access::RW, 0x00000000, Avail::All, "§13.4.27 p=303"},
    {RDH, "RDH", Access::RW, 0x00000000, Avail::All, "§13.4.28 p=303"},
    {RDT, "RDT", Access::RW, 0x00000000, Avail::All, "§13.4.29 p=304"},
    {RDTR, "RDTR", Access::RW, 0x00000000, Avail::All, "§13.4.30 p=304"},
    {RXDCTL, "RXDCTL", Access::RW, 0x00000000, Avail::All, "§13.4.46 p=320"},
    {RADV, "RADV", Access::RW, 0x00000000, Avail::Not82544, "§13.4.31 p=305"},
    {RSRPD, "RSRPD", Access::RW, 0x00000000, Avail::Not82544, "§13.4.32"},
    {TXDMAC, "TXDMAC", Access::RW, 0x00000000, Avail::All, "§13.4.35"},
    {TDBAL, "TDBAL", Access::RW, 0x00000000, Avail::All, "§13.4.36"},
    {TDBAH, "TDBAH", Access::RW, 0x00000000, Avail::All, "§13.4.37"},
    {TDLEN, "TDLEN", Access::RW, 0x00000000, Avail::All, "§13.4.38"},
    {TDH, "TDH", Access::RW, 0x00000000, Avail::All, "§13.4.39"},
    {TDT, "TDT", Access::RW, 0x00000000, Avail::All, "§13.4.40 p=314"},
    {TIDV, "TIDV", Access::RW, 0x00000000, Avail::All, "§13.4.41 p=314"},
    {TXDCTL, "TXDCTL", Access::RW, 0x00000000, Avail::All, "§13.4.43 p=316"},
    {TADV, "TADV", Access::RW, 0x00000000, Avail::Not82544, "§13.4.44 p=317"},
    {TSPMT, "TSPMT", Access::RW, 0x01000400, Avail::Not82544, "§13.4.45 p=318"},
    {RXCSUM, "RXCSUM", Access::RW, 0x00000300, Avail::All, "§13.4.47"},
    {CRCERRS, "CRCERRS", Access::RC, 0, Avail::All, "§13.7"},
    {ALGNERRC, "ALGNERRC", Access::RC, 0, Avail::All, "§13.7"},
    {SYMERRS, "SYMERRS", Access::RC, 0, Avail::All, "§13.7"},
    {RXERRC, "RXERRC", Access::RC, 0, Avail::All, "§13.7"},
    {MPC, "MPC", Access::RC, 0, Avail::All, "§13.7 (missed: no FIFO space)"},
    {SCC, "SCC", Access::RC, 0, Avail::All, "§13.7"},
    {ECOL, "ECOL", Access::RC, 0, Avail::All, "§13.7"},
    {MCC, "MCC", Access::RC, 0, Avail::All, "§13.7"},
    {LATECOL, "LATECOL", Access::RC, 0, Avail::All, "§13.7"},
    {COLC, "COLC", Access::RC, 0, Avail::All, "§13.7"},
    {DC, "DC", Access::RC, 0, Avail::All, "§13.7"},
    {TNCRS, "TNCRS", Access::RC, 0, Avail::All, "§13.7"},
    {SEC, "SEC", Access::RC, 0, Avail::All, "§13.7"},
    {CEXTERR, "CEXTERR", Access::RC, 0, Avail::All, "§13.7"},
    {RLEC, "RLEC", Access::RC, 0, Avail::All, "§13.7"},
    {XONRXC, "XONRXC", Access::RC, 0, Avail::All, "§13.7"},
    {XONTXC, "XONTXC", Access::RC, 0, Avail::All, "§13.7"},
    {XOFFRXC, "XOFFRXC", Access::RC, 0, Avail::All, "§13.7"},
    {XOFFTXC, "XOFFTXC", Access::RC, 0, Avail::All, "§13.7"},
    {FCRUC, "FCRUC", Access::RC, 0, Avail::All, "§13.7"},
    {PRC64, "PRC64", Access::RC, 0, Avail::All, "§13.7"},
    {PRC127, "PRC127", Access::RC, 0, Avail::All, "§13.7"},
    {PRC255, "PRC255", Access::RC, 0, Avail::All, "§13.7"},
    {PRC511, "PRC511", Access::RC, 0, Avail::All, "§13.7"},
    {PRC1023, "PRC1023", Access::RC, 0, Avail::All, "§13.7"},
    {PRC1522, "PRC1522", Access::RC, 0, Avail::All, "§13.7"},
    {GPRC, "GPRC", Access::RC, 0, Avail::All, "§13.7"},
    {BPRC, "BPRC", Access::RC, 0, Avail::All, "§13.7"},
    {MPRC, "MPRC", Access::RC, 0, Avail::All, "§13.7"},
    {GPTC, "GPTC", Access::RC, 0, Avail::All, "§13.7"},
    {GORCL, "GORCL", Access::RC, 0, Avail::All, "§13.7 (64-bit with GORCH; cleared on GORCH read)"},
    {GORCH, "GORCH", Access::RC, 0, Avail::All, "§13.7"},
    {GOTCL, "GOTCL", Access::RC, 0, Avail::All, "§13.7 (64-bit with GOTCH; cleared on GOTCH read)"},
    {GOTCH, "GOTCH", Access::RC, 0, Avail::All, "§13.7"},
    {RNBC, "RNBC", Access::RC, 0, Avail::All, "§13.7 (received while no descriptors)"},
    {RUC, "RUC", Access::RC, 0, Avail::All, "§13.7"},
    {RFC, "RFC", Access::RC, 0, Avail::All, "§13.7"},
    {ROC, "ROC", Access::RC, 0, Avail::All, "§13.7"},
    {RJC, "RJC", Access::RC, 0, Avail::All, "§13.7"},
    {TORL, "TORL", Access::RC, 0, Avail::All, "§13.7"},
    {TORH, "TORH", Access::RC, 0, Avail::All, "§13.7"},
    {TOTL, "TOTL", Access::RC, 0, Avail::All, "§13.7"},
    {TOTH, "TOTH", Access::RC, 0, Avail::All, "§13.7"},
    {TPR, "TPR", Access::RC, 0, Avail::All, "§13.7"},
    {TPT, "TPT", Access::RC, 0, Avail::All, "§13.7"},
    {PTC64, "PTC64", Access::RC, 0, Avail::All, "§13.7"},
    {PTC127, "PTC127", Access::RC, 0, Avail::All, "§13.7"},
    {PTC255, "PTC255", Access::RC, 0, Avail::All, "§13.7"},
    {PTC511, "PTC511", Access::RC, 0, Avail::All, "§13.7"},
    {PTC1023, "PTC1023", Access::RC, 0, Avail::All, "§13.7"},
    {PTC1522, "PTC1522", Access::RC, 0, Avail::All, "§13.7"},
    {MPTC, "MPTC", Access::RC, 0, Avail::All, "§13.7"},
    {BPTC, "BPTC", Access::RC, 0, Avail::All, "§13.7"},
};

/// The table entry for `offset`, or nullptr (arrays MTA/RA/VFTA are not in the table).
inline const RegInfo* find_reg(uint32_t offset) {
  for (const auto& r : kRegs)
    if (r.offset == offset) return &r;
  return nullptr;
}

// ---- Bit fields ----
namespace ctrl {  // SDM §13.4.1
inline constexpr uint32_t FD = 1u << 0, LRST = 1u << 3, ASDE = 1u << 5, SLU = 1u << 6, ILOS = 1u << 7,
                          SPEED_MASK = 3u << 8, FRCSPD = 1u << 11, FRCDPX = 1u << 12, RST = 1u << 26,
                          RFCE = 1u << 27, TFCE = 1u << 28, VME = 1u << 30, PHY_RST = 1u << 31;
}
namespace status {  // SDM §13.4.2
inline constexpr uint32_t FD = 1u << 0, LU = 1u << 1, FUNC_SHIFT = 2, FUNC_MASK = 3u << 2, TXOFF = 1u << 4,
                          SPEED_1000 = 2u << 6, SPEED_100 = 1u << 6, SPEED_10 = 0u << 6, PCI66 = 1u << 11,
                          BUS64 = 1u << 12, PCIX_MODE = 1u << 13;
}
namespace eerd {  // SDM §13.4.4 (82540 and later)
inline constexpr uint32_t START = 1u << 0, DONE = 1u << 4, ADDR_SHIFT = 8, DATA_SHIFT = 16;
}
namespace mdic {  // SDM §13.4.7
inline constexpr uint32_t DATA_MASK = 0xFFFF, REG_SHIFT = 16, PHY_SHIFT = 21, OP_WRITE = 1u << 26,
                          OP_READ = 2u << 26, READY = 1u << 28, E = 1u << 30;
}
namespace icr {  // SDM §13.4.17 p=303; e1000_hw.h E1000_ICR_*
inline constexpr uint32_t TXDW = 1u << 0, TXQE = 1u << 1, LSC = 1u << 2, RXSEQ = 1u << 3, RXDMT0 = 1u << 4,
                          RXO = 1u << 6, RXT0 = 1u << 7, MDAC = 1u << 9, RXCFG = 1u << 10, TXD_LOW = 1u << 15,
                          SRPD = 1u << 16;
inline constexpr uint32_t ALL = 0x0001FFFF;
}
namespace rctl {  // SDM §13.4.22
inline constexpr uint32_t EN = 1u << 1, SBP = 1u << 2, UPE = 1u << 3, MPE = 1u << 4, LPE = 1u << 5,
                          RDMTS_SHIFT = 8, RDMTS_MASK = 3u << 8, MO_SHIFT = 12, MO_MASK = 3u << 12,
                          BAM = 1u << 15, BSIZE_SHIFT = 16, BSIZE_MASK = 3u << 16, BSEX = 1u << 25,
                          SECRC = 1u << 26;
}
namespace tctl {  // SDM §13.4.33
inline constexpr uint32_t EN = 1u << 1, PSP = 1u << 3, SWXOFF = 1u << 22;
}
namespace rdtr {  // SDM §13.4.30 p=304
inline constexpr uint32_t DELAY_MASK = 0xFFFF, FPD = 1u << 31;
}
namespace dctl {  // RXDCTL/TXDCTL, SDM §13.4.46 p=320 and §13.4.43 p=316
inline constexpr uint32_t PTHRESH_MASK = 0x3F, HTHRESH_SHIFT = 8, HTHRESH_MASK = 0x3F,
                          WTHRESH_SHIFT = 16, WTHRESH_MASK = 0x3F, GRAN = 1u << 24;
}
namespace fcrt {  // FCRTL/FCRTH, SDM §13.4.23/24: threshold in bytes, bits 15:3 (8-byte granularity)
inline constexpr uint32_t RT_MASK = 0xFFF8, XONE = 1u << 31;
}
namespace rah {
inline constexpr uint32_t AV = 1u << 31;
}
namespace pba {
inline constexpr uint32_t RXA_MASK = 0x7F, TXA_SHIFT = 16;
}

/// RX buffer size in bytes selected by RCTL.BSIZE/BSEX (SDM §13.4.22; 256..16384 B).
inline unsigned rx_buffer_bytes(uint32_t rctl_value) {
  unsigned bsize = (rctl_value & rctl::BSIZE_MASK) >> rctl::BSIZE_SHIFT;
  bool bsex = rctl_value & rctl::BSEX;
  static constexpr unsigned normal[4] = {2048, 1024, 512, 256};
  static constexpr unsigned ext[4] = {0, 16384, 8192, 4096};  // BSEX with BSIZE=00 is reserved
  if (bsex && bsize != 0) return ext[bsize];
  return normal[bsize];
}

// ---- Legacy descriptors (SDM §3.2.3 Table 3-1, §3.3.3 Table 3-8) ----
inline constexpr unsigned kDescBytes = 16;

namespace txcmd {  // TDESC.CMD, SDM §3.3.3.1
inline constexpr uint8_t EOP = 1u << 0, IFCS = 1u << 1, IC = 1u << 2, RS = 1u << 3,
                         RPS = 1u << 4,  // 82544GC/EI only ("report packet sent")
                         DEXT = 1u << 5, VLE = 1u << 6, IDE = 1u << 7;
}
namespace txsta {  // TDESC.STA, SDM §3.3.3.2
inline constexpr uint8_t DD = 1u << 0, EC = 1u << 1, LC = 1u << 2, TU = 1u << 3;
}
namespace rxsta {  // RDESC.STATUS, SDM §3.2.3.1
inline constexpr uint8_t DD = 1u << 0, EOP = 1u << 1, IXSM = 1u << 2, VP = 1u << 3, TCPCS = 1u << 5,
                         IPCS = 1u << 6, PIF = 1u << 7;
}

/// A transmit descriptor as the driver wrote it. Legacy (DEXT=0): length 15:0, CSO, CMD, STA, CSS,
/// special. Extended (DEXT=1, SDM §3.3.5-§3.3.7): DTYP in bits 23:20 of the second quadword
/// (0 = TCP/IP context descriptor, 1 = data descriptor with 20-bit length); CMD (DCMD) keeps
/// EOP/IFCS/RS/IDE/DEXT at the legacy positions.
struct TxDesc {
  uint64_t addr = 0;
  uint32_t length = 0;
  uint8_t cso = 0, cmd = 0, sta = 0, css = 0;
  uint16_t special = 0;
  bool dext = false;
  uint8_t dtyp = 0;
  bool is_context() const { return dext && dtyp == 0; }
};

inline uint64_t load_le64(const uint8_t* p) { uint64_t v; std::memcpy(&v, p, 8); return v; }  // host is LE
inline uint32_t load_le32(const uint8_t* p) { uint32_t v; std::memcpy(&v, p, 4); return v; }
inline uint16_t load_le16(const uint8_t* p) { uint16_t v; std::memcpy(&v, p, 2); return v; }
inline void store_le64(uint8_t* p, uint64_t v) { std::memcpy(p, &v, 8); }
inline void store_le16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); }

/// Decode 16 descriptor bytes (little endian, as in host memory).
inline TxDesc decode_tx_desc(const uint8_t* d) {
  TxDesc t;
  t.addr = load_le64(d);
  t.cmd = d[11];
  t.dext = t.cmd & txcmd::DEXT;
  if (t.dext) {
    t.dtyp = (d[10] >> 4) & 0xF;
    t.length = load_le32(d + 8) & 0xFFFFF;
  } else {
    t.length = load_le16(d + 8);
    t.cso = d[10];
  }
  t.sta = d[12] & 0x0F;
  t.css = d[13];
  t.special = load_le16(d + 14);
  return t;
}
/// Encode a legacy transmit descriptor (what a driver writes).
inline void encode_tx_desc(uint8_t* d, uint64_t addr, uint16_t length, uint8_t cmd, uint8_t cso = 0, uint8_t css = 0) {
  std::memset(d, 0, kDescBytes);
  store_le64(d, addr);
  store_le16(d + 8, length);
  d[10] = cso;
  d[11] = cmd;
  d[13] = css;
}

struct RxDesc {
  uint64_t addr = 0;
  uint16_t length = 0, checksum = 0;
  uint8_t status = 0, errors = 0;
  uint16_t special = 0;
};
inline RxDesc decode_rx_desc(const uint8_t* d) {
  RxDesc r;
  r.addr = load_le64(d);
  r.length = load_le16(d + 8);
  r.checksum = load_le16(d + 10);
  r.status = d[12];
  r.errors = d[13];
  r.special = load_le16(d + 14);
  return r;
}
inline void encode_rx_desc(uint8_t* d, const RxDesc& r) {
  store_le64(d, r.addr);
  store_le16(d + 8, r.length);
  store_le16(d + 10, r.checksum);
  d[12] = r.status;
  d[13] = r.errors;
  store_le16(d + 14, r.special);
}

/// Descriptors in a ring of `ring` entries from `head` up to (not including) `tail`.
inline unsigned ring_distance(unsigned head, unsigned tail, unsigned ring) {
  return ring == 0 ? 0 : (tail + ring - head) % ring;
}

}  // namespace nicsim::e1000
