// Intel 8255x (82557/82558/82559) Control/Status Registers and shared-memory structures, under
// Intel's names. One table per structure; offsets in bytes.
//
// Sources (cited per field):
//  * [e100.h]   Linux 2.4.18 drivers/net/e100/e100.h (Intel e100 2.x, oct-month/linux-kernel-2.4.18):
//               scb_t, SCB_STATUS_ACK_*, SCB_CUS_*, SCB_RUS_*, SCB_CUC_*, SCB_RUC_*, SCB_*_INT_MASK,
//               CB_*, RFD_*, PORT_*, basic_cntr_t/ext_cntr_t/tco_cntr_t, DUMP_*_COMPLETED.
//  * [e100_config.h] Intel e100 2.x drivers/net/e100/e100_config.h: CB_CFIG_* (configure byte map).
//  * [eepro100.c] Linux 2.4.19 drivers/net/eepro100.c (Becker v1.09j-t): speedo_offsets, EE_* bits,
//               mdio_read (MDI control layout).
//  * [OpenSDM]  Intel 8255x 10/100 Mbps Ethernet Controller Family Open Source Software Developer
//               Manual, rev 1.3 (2006).
#pragma once
#include <cstdint>

namespace nicsim::i8255x {

// ---------------------------------------------------------------- CSR (SCB) offsets [e100.h scb_t]
inline constexpr uint32_t SCBStatus = 0x00;    ///< 16 bit: low byte CUS/RUS, high byte STAT/ACK
inline constexpr uint32_t SCBStatAck = 0x01;   ///< 8 bit: STAT/ACK (write 1 to acknowledge)
inline constexpr uint32_t SCBCmd = 0x02;       ///< 8 bit: CUC (7:4), RUC (2:0)
inline constexpr uint32_t SCBIntrCtl = 0x03;   ///< 8 bit: M (0), SI (1), specific masks (7:2, 82558+)
inline constexpr uint32_t SCBPointer = 0x04;   ///< 32 bit: SCB General Pointer
inline constexpr uint32_t SCBPort = 0x08;      ///< 32 bit: PORT (address 31:4, function 3:0)
inline constexpr uint32_t SCBFlash = 0x0C;     ///< 16 bit: Flash control
inline constexpr uint32_t SCBEeprom = 0x0E;    ///< 16 bit: EEPROM control [eepro100.c SCBeeprom = 14]
inline constexpr uint32_t SCBCtrlMDI = 0x10;   ///< 32 bit: MDI control
inline constexpr uint32_t SCBRxDmaCnt = 0x14;  ///< 32 bit: receive DMA byte count
inline constexpr uint32_t SCBEarlyRx = 0x18;   ///< 8 bit: early receive interrupt (82558+, d101_scb_ext)
inline constexpr uint32_t SCBFcThld = 0x19;    ///< 8 bit: flow control threshold (82558+)
inline constexpr uint32_t SCBFcXonXoff = 0x1A; ///< 8 bit: flow control XON/XOFF command (82558+)
inline constexpr uint32_t SCBPmdr = 0x1B;      ///< 8 bit: power management driver register (82558+)
inline constexpr uint32_t SCBGenCtrl = 0x1C;   ///< 8 bit: general control (82559, d101m_scb_ext)
inline constexpr uint32_t SCBGenStat = 0x1D;   ///< 8 bit: general status (82559)
inline constexpr uint32_t kCsrBytes = 0x40;    ///< register file modelled: scb_t + d101m_scb_ext ends at 0x3C+4
inline constexpr uint32_t kCsrMemBarBytes = 4096;  ///< CSR memory BAR: 4 KB [OpenSDM §4.1 "CSR memory mapped base"]

// ---------------------------------------------------------------- SCB Status word [e100.h]
namespace stat {  // STAT/ACK bits in the 16-bit status word (high byte)
inline constexpr uint16_t CX = 0x8000;   ///< CU finished a CB with its I bit set (CX/TNO)
inline constexpr uint16_t FR = 0x4000;   ///< RU finished receiving a frame
inline constexpr uint16_t CNA = 0x2000;  ///< CU left the active state (idle or suspended)
inline constexpr uint16_t RNR = 0x1000;  ///< RU left the ready state
inline constexpr uint16_t MDI = 0x0800;  ///< MDI read or write cycle done (when MDI IE set)
inline constexpr uint16_t SWI = 0x0400;  ///< software interrupt (SCB command SI)
inline constexpr uint16_t ER = 0x0200;   ///< early receive (82558+)
inline constexpr uint16_t FCP = 0x0100;  ///< flow control pause (82558+)
inline constexpr uint16_t ACK_MASK = 0xFF00;
}  // namespace stat
enum class Cus : uint8_t { Idle = 0, Suspended = 1, Active = 2 };  ///< status bits 7:6 (SCB_CUS_*)
enum class Rus : uint8_t { Idle = 0, Suspended = 1, NoResources = 2, Ready = 4 };  ///< bits 5:2 (SCB_RUS_*)
inline constexpr unsigned kCusShift = 6, kRusShift = 2;

// ---------------------------------------------------------------- SCB Command word [e100.h]
namespace cuc {  // bits 7:4 of the command byte (value >> 4)
inline constexpr uint8_t NOP = 0x0, START = 0x1, RESUME = 0x2, DUMP_ADDR = 0x4, DUMP_STAT = 0x5, LOAD_BASE = 0x6,
                         DUMP_RST_STAT = 0x7, STATIC_RESUME = 0xA;  ///< STATIC_RESUME: 82558/9
}
namespace ruc {  // bits 2:0
inline constexpr uint8_t NOP = 0, START = 1, RESUME = 2, ABORT = 4, LOAD_HDS = 5, LOAD_BASE = 6;
}
namespace intr {  // interrupt control byte (SCB command word high byte)
inline constexpr uint8_t M = 0x01;        ///< SCB_INT_MASK: mask the INTA# pin entirely
inline constexpr uint8_t SI = 0x02;       ///< SCB_SOFT_INT: raise SWI
inline constexpr uint8_t FCP_MASK = 0x04, ER_MASK = 0x08, RNR_MASK = 0x10, CNA_MASK = 0x20, FR_MASK = 0x40,
                         CX_MASK = 0x80;  ///< specific masks, 82558+ only ("82558 interrupt mask bits")
}

// ---------------------------------------------------------------- PORT [e100.h PORT_*]
namespace port {
inline constexpr uint32_t SOFTWARE_RESET = 0, SELFTEST = 1, SELECTIVE_RESET = 2, DUMP = 3;
inline constexpr uint32_t FUNCTION_MASK = 0xF;
}

// ---------------------------------------------------------------- EEPROM control [e100.h, eepro100.c]
namespace eectl {
inline constexpr uint16_t EESK = 0x01;  ///< shift clock
inline constexpr uint16_t EECS = 0x02;  ///< chip select
inline constexpr uint16_t EEDI = 0x04;  ///< data into the EEPROM
inline constexpr uint16_t EEDO = 0x08;  ///< data out of the EEPROM (read only)
}

// ---------------------------------------------------------------- MDI control [eepro100.c mdio_read]
namespace mdi {
inline constexpr uint32_t DATA_MASK = 0xFFFF;
inline constexpr unsigned REG_SHIFT = 16;   ///< bits 20:16 PHY register
inline constexpr unsigned PHY_SHIFT = 21;   ///< bits 25:21 PHY address
inline constexpr uint32_t OP_WRITE = 1u << 26, OP_READ = 2u << 26, OP_MASK = 3u << 26;
inline constexpr uint32_t READY = 1u << 28;  ///< set by the part when the cycle is done
inline constexpr uint32_t IE = 1u << 29;     ///< interrupt (STAT/ACK MDI) at the end of the cycle
}

// ---------------------------------------------------------------- Command blocks [e100.h]
inline constexpr uint32_t kNullLink = 0xFFFFFFFF;  ///< link / TBD pointer "none"
namespace cb {
inline constexpr uint16_t EL = 0x8000, S = 0x4000, I = 0x2000;  ///< CB_EL_BIT, CB_S_BIT, CB_I_BIT
inline constexpr uint16_t SF = 0x0008;                          ///< CB_TX_SF_BIT: flexible mode TxCB
inline constexpr uint16_t CMD_MASK = 0x0007;
inline constexpr uint16_t C = 0x8000, OK = 0x2000, U = 0x1000;  ///< status: complete, OK, underrun
inline constexpr uint16_t NOP = 0, IA_SETUP = 1, CONFIGURE = 2, MULTICAST = 3, TRANSMIT = 4, LOAD_UCODE = 5,
                          DUMP = 6, DIAGNOSE = 7;
inline constexpr unsigned kHeaderBytes = 8;     ///< cb_header_t: status, command, link
inline constexpr unsigned kTcbBytes = 16;       ///< header + TBD array address + count/threshold/TBD number
inline constexpr uint16_t TX_EOF = 0x8000;      ///< TCB byte count / TBD EOF bit (CB_TX_EOF_BIT)
inline constexpr uint16_t TX_COUNT_MASK = 0x3FFF;
inline constexpr unsigned kTbdBytes = 8;        ///< tbd_t: address, count
inline constexpr unsigned kUcodeDwords = 134;   ///< UCODE_MAX_DWORDS
inline constexpr unsigned kConfigBytesMax = 22; ///< CB_CFIG_BYTE_COUNT
}

// ---------------------------------------------------------------- Configure bytes [e100_config.h]
namespace cfg {
inline constexpr uint8_t B3_MWI_EN = 0x01, B3_READAL_EN = 0x04, B3_TERMCL_EN = 0x08;  ///< 82558+
inline constexpr uint8_t B15_PROMISCUOUS = 0x01, B15_BROADCAST_DIS = 0x02;
inline constexpr uint8_t B18_PADDING = 0x02, B18_CRC_IN_MEM = 0x04;
inline constexpr uint8_t B21_MULTICAST_ALL = 0x08;
}

// ---------------------------------------------------------------- RFD (simplified mode) [e100.h rfd_t]
namespace rfd {
inline constexpr uint16_t C = 0x8000, OK = 0x2000;   ///< RFD_STATUS_COMPLETE, RFD_STATUS_OK
inline constexpr uint16_t NO_RESOURCES = 0x0200;     ///< RFD_NO_RESOURCES: frame longer than the RFD
inline constexpr uint16_t EL = 0x8000, S = 0x4000, SF = 0x0008;
inline constexpr uint16_t EOF_ = 0x8000, F = 0x4000, COUNT_MASK = 0x3FFF;
inline constexpr unsigned kHeaderBytes = 16;  ///< status, command, link, RBD pointer, count, size
}

// ---------------------------------------------------------------- Statistical counters [e100.h]
/// Index of each dword in the dump area (basic_cntr_t, ext_cntr_t; the 82559 adds two 16-bit TCO
/// counters packed in one dword). The completion dword follows the last counter.
enum StatCounter : unsigned {
  XmtGoodFrames, XmtMaxColl, XmtLateColl, XmtUnderruns, XmtLostCrs, XmtDeferred, XmtSingleColl, XmtMultColl,
  XmtTotalColl, RcvGoodFrames, RcvCrcErrors, RcvAlignErrors, RcvResourceErrors, RcvOverruns, RcvCollisions,
  RcvShortFrames, XmtFcFrames, RcvFcFrames, RcvFcUnsupported, TcoFrames, kStatCounters
};
inline constexpr uint32_t DUMP_STAT_COMPLETED = 0xA005, DUMP_RST_STAT_COMPLETED = 0xA007;

// ---------------------------------------------------------------- little-endian helpers
inline uint16_t ld16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
inline uint32_t ld32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t(p[3]) << 24); }
inline void st16(uint8_t* p, uint16_t v) { p[0] = uint8_t(v); p[1] = uint8_t(v >> 8); }
inline void st32(uint8_t* p, uint32_t v) { for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i)); }

}  // namespace nicsim::i8255x
