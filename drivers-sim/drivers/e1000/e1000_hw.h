// The e1000 driver's own view of the 8254x: register offsets, bit fields, descriptor layouts,
// MAC types and PCI device ids, named as in Linux drivers/net/e1000/e1000_hw.h of the 4.4.x driver
// (E1000_<REG>, E1000_<REG>_<BIT>), plus the small pure helpers the driver's arithmetic uses.
//
// This header is the driver's, not the hardware model's (DESIGN.md: drivers-sim/ reaches hardware only
// through MMIO, DMA memory and its interrupt line; it never includes models/). Values are the
// 8254x SDM's (PCI/PCI-X Family of GbE Controllers Software Developer's Manual, ch. 13 and §3.2/§3.3)
// as the Linux header spells them. Namespace `nicsim::e1000drv` keeps the names apart from the
// hardware model's `nicsim::e1000` in translation units (tests) that see both.
#pragma once
#include <cstdint>
#include <cstring>
#include <string_view>

namespace nicsim::e1000drv {

// ---- MAC types (e1000_hw.h enum e1000_mac_type; the ORDER matters: the driver tests
// `mac_type >= e1000_82540`, which excludes the 82544; research/intel-8254x-e1000-e100.md §2) ----
enum MacType : int {
  e1000_undefined = 0,
  e1000_82542_rev2_0,
  e1000_82542_rev2_1,
  e1000_82543,
  e1000_82544,
  e1000_82540,
  e1000_82545,
  e1000_82546,
};
/// "82544", "82540", ... for reports.
const char* mac_type_name(MacType t);

// ---- PCI device ids (e1000_hw.h E1000_DEV_ID_*) ----
inline constexpr uint16_t E1000_DEV_ID_82543GC_FIBER = 0x1001, E1000_DEV_ID_82543GC_COPPER = 0x1004,
                          E1000_DEV_ID_82544EI_COPPER = 0x1008, E1000_DEV_ID_82544EI_FIBER = 0x1009,
                          E1000_DEV_ID_82544GC_COPPER = 0x100C, E1000_DEV_ID_82544GC_LOM = 0x100D,
                          E1000_DEV_ID_82540EM = 0x100E, E1000_DEV_ID_82540EM_LOM = 0x1015,
                          E1000_DEV_ID_82540EP_LOM = 0x1016, E1000_DEV_ID_82540EP = 0x1017,
                          E1000_DEV_ID_82545EM_COPPER = 0x100F, E1000_DEV_ID_82545EM_FIBER = 0x1011,
                          E1000_DEV_ID_82546EB_COPPER = 0x1010, E1000_DEV_ID_82546EB_FIBER = 0x1012;

/// e1000_set_mac_type (e1000_hw.c): the MAC type of a PCI device id; e1000_undefined when unknown.
MacType mac_type_of(uint16_t device_id);
/// The copper part's device id for a part name as PCI config space reports it ("82546EB" -> 0x1010);
/// 0 when the name is not one the driver's PCI table lists.
uint16_t device_id_of(std::string_view part_name);

// ---- Register offsets (e1000_hw.h E1000_*) ----
inline constexpr uint32_t E1000_CTRL = 0x00000, E1000_STATUS = 0x00008, E1000_EECD = 0x00010,
                          E1000_CTRL_EXT = 0x00018, E1000_MDIC = 0x00020, E1000_FCAL = 0x00028,
                          E1000_FCAH = 0x0002C, E1000_FCT = 0x00030, E1000_VET = 0x00038, E1000_ICR = 0x000C0,
                          E1000_ITR = 0x000C4, E1000_ICS = 0x000C8, E1000_IMS = 0x000D0, E1000_IMC = 0x000D8,
                          E1000_RCTL = 0x00100, E1000_FCTTV = 0x00170, E1000_TCTL = 0x00400,
                          E1000_TIPG = 0x00410, E1000_PBA = 0x01000, E1000_FCRTL = 0x02160,
                          E1000_FCRTH = 0x02168, E1000_RDBAL = 0x02800, E1000_RDBAH = 0x02804,
                          E1000_RDLEN = 0x02808, E1000_RDH = 0x02810, E1000_RDT = 0x02818, E1000_RDTR = 0x02820,
                          E1000_RADV = 0x0282C, E1000_TDBAL = 0x03800, E1000_TDBAH = 0x03804,
                          E1000_TDLEN = 0x03808, E1000_TDH = 0x03810, E1000_TDT = 0x03818, E1000_TIDV = 0x03820,
                          E1000_TADV = 0x0382C, E1000_RXCSUM = 0x05000, E1000_MTA = 0x05200, E1000_RA = 0x05400,
                          E1000_VFTA = 0x05600, E1000_WUC = 0x05800, E1000_TXCW = 0x00178;
// Statistics (SDM §13.7; read-to-clear), in the order e1000_update_stats reads them.
inline constexpr uint32_t E1000_CRCERRS = 0x04000, E1000_ALGNERRC = 0x04004, E1000_SYMERRS = 0x04008,
                          E1000_RXERRC = 0x0400C, E1000_MPC = 0x04010, E1000_SCC = 0x04014, E1000_ECOL = 0x04018,
                          E1000_MCC = 0x0401C, E1000_LATECOL = 0x04020, E1000_COLC = 0x04028, E1000_DC = 0x04030,
                          E1000_TNCRS = 0x04034, E1000_SEC = 0x04038, E1000_CEXTERR = 0x0403C,
                          E1000_RLEC = 0x04040, E1000_XONRXC = 0x04048, E1000_XONTXC = 0x0404C,
                          E1000_XOFFRXC = 0x04050, E1000_XOFFTXC = 0x04054, E1000_FCRUC = 0x04058,
                          E1000_PRC64 = 0x0405C, E1000_PRC127 = 0x04060, E1000_PRC255 = 0x04064,
                          E1000_PRC511 = 0x04068, E1000_PRC1023 = 0x0406C, E1000_PRC1522 = 0x04070,
                          E1000_GPRC = 0x04074, E1000_BPRC = 0x04078, E1000_MPRC = 0x0407C, E1000_GPTC = 0x04080,
                          E1000_GORCL = 0x04088, E1000_GORCH = 0x0408C, E1000_GOTCL = 0x04090,
                          E1000_GOTCH = 0x04094, E1000_RNBC = 0x040A0, E1000_RUC = 0x040A4, E1000_RFC = 0x040A8,
                          E1000_ROC = 0x040AC, E1000_RJC = 0x040B0, E1000_TORL = 0x040C0, E1000_TORH = 0x040C4,
                          E1000_TOTL = 0x040C8, E1000_TOTH = 0x040CC, E1000_TPR = 0x040D0, E1000_TPT = 0x040D4,
                          E1000_PTC64 = 0x040D8, E1000_PTC127 = 0x040DC, E1000_PTC255 = 0x040E0,
                          E1000_PTC511 = 0x040E4, E1000_PTC1023 = 0x040E8, E1000_PTC1522 = 0x040EC,
                          E1000_MPTC = 0x040F0, E1000_BPTC = 0x040F4, E1000_TSCTC = 0x040F8,
                          E1000_TSCTFC = 0x040FC;

// ---- Bit fields ----
inline constexpr uint32_t E1000_CTRL_FD = 0x00000001, E1000_CTRL_SLU = 0x00000040, E1000_CTRL_FRCSPD = 0x00000800,
                          E1000_CTRL_FRCDPX = 0x00001000, E1000_CTRL_RST = 0x04000000,
                          E1000_CTRL_RFCE = 0x08000000, E1000_CTRL_TFCE = 0x10000000, E1000_CTRL_VME = 0x40000000;
inline constexpr uint32_t E1000_CTRL_ILOS = 0x00000080;  ///< invert loss-of-signal
inline constexpr uint32_t E1000_TXCW_ANE = 0x80000000;   ///< TXCW auto-negotiation enable
inline constexpr uint32_t E1000_CTRL_EXT_EE_RST = 0x00002000;
inline constexpr uint32_t E1000_STATUS_FD = 0x00000001, E1000_STATUS_LU = 0x00000002,
                          E1000_STATUS_FUNC_1 = 0x00000004, E1000_STATUS_TXOFF = 0x00000010,
                          E1000_STATUS_TBIMODE = 0x00000020, E1000_STATUS_SPEED_100 = 0x00000040,
                          E1000_STATUS_SPEED_1000 = 0x00000080, E1000_STATUS_PCI66 = 0x00000800,
                          E1000_STATUS_BUS64 = 0x00001000, E1000_STATUS_PCIX_MODE = 0x00002000;
// Interrupt causes (ICR/ICS/IMS/IMC share the layout; SDM p=303).
inline constexpr uint32_t E1000_ICR_TXDW = 0x00000001, E1000_ICR_TXQE = 0x00000002, E1000_ICR_LSC = 0x00000004,
                          E1000_ICR_RXSEQ = 0x00000008, E1000_ICR_RXDMT0 = 0x00000010, E1000_ICR_RXO = 0x00000040,
                          E1000_ICR_RXT0 = 0x00000080;
inline constexpr uint32_t E1000_ICS_RXDMT0 = E1000_ICR_RXDMT0;
/// e1000_main.c 4.4.x: IMS_ENABLE_MASK = RXT0 | TXDW | RXDMT0 | RXSEQ | LSC (research §2).
inline constexpr uint32_t IMS_ENABLE_MASK =
    E1000_ICR_RXT0 | E1000_ICR_TXDW | E1000_ICR_RXDMT0 | E1000_ICR_RXSEQ | E1000_ICR_LSC;
inline constexpr uint32_t E1000_RCTL_EN = 0x00000002, E1000_RCTL_SBP = 0x00000004, E1000_RCTL_UPE = 0x00000008,
                          E1000_RCTL_MPE = 0x00000010, E1000_RCTL_LPE = 0x00000020, E1000_RCTL_LBM_NO = 0,
                          E1000_RCTL_RDMTS_HALF = 0, E1000_RCTL_MO_SHIFT = 12, E1000_RCTL_BAM = 0x00008000,
                          E1000_RCTL_SZ_2048 = 0, E1000_RCTL_SZ_4096 = 0x00030000, E1000_RCTL_VFE = 0x00040000,
                          E1000_RCTL_CFIEN = 0x00080000, E1000_RCTL_BSEX = 0x02000000;
inline constexpr uint32_t E1000_TCTL_EN = 0x00000002, E1000_TCTL_PSP = 0x00000008, E1000_TCTL_CT = 0x00000FF0,
                          E1000_TCTL_COLD = 0x003FF000, E1000_CT_SHIFT = 4, E1000_COLD_SHIFT = 12;
/// Collision threshold and distance the driver programs into TCTL (e1000_hw.h; 802.3: 16 attempts,
/// 64-byte slot time at full duplex).
inline constexpr uint32_t E1000_COLLISION_THRESHOLD = 16, E1000_COLLISION_DISTANCE = 64;
/// TIPG for 82543+ copper (e1000_hw.h DEFAULT_82543_TIPG_*): IPGT 8, IPGR1 8, IPGR2 6 (SDM §13.4.34).
inline constexpr uint32_t DEFAULT_82543_TIPG_IPGT_COPPER = 8, DEFAULT_82543_TIPG_IPGR1 = 8,
                          DEFAULT_82543_TIPG_IPGR2 = 6, E1000_TIPG_IPGR1_SHIFT = 10, E1000_TIPG_IPGR2_SHIFT = 20;
inline constexpr uint32_t E1000_RXCSUM_TUOFL = 0x00000200;
inline constexpr uint32_t E1000_RAH_AV = 0x80000000;
inline constexpr uint32_t E1000_MDIC_DATA_MASK = 0x0000FFFF, E1000_MDIC_REG_SHIFT = 16, E1000_MDIC_PHY_SHIFT = 21,
                          E1000_MDIC_OP_WRITE = 0x04000000, E1000_MDIC_OP_READ = 0x08000000,
                          E1000_MDIC_READY = 0x10000000, E1000_MDIC_ERROR = 0x40000000;
inline constexpr uint32_t E1000_FCRTL_XONE = 0x80000000;
/// PBA at reset by the driver (e1000.h E1000_DEFAULT_PBA: 48 KB receive, the rest transmit).
inline constexpr uint32_t E1000_DEFAULT_PBA = 0x00000030;
/// 802.3x PAUSE frame address/type (e1000_hw.h FLOW_CONTROL_*).
inline constexpr uint32_t FLOW_CONTROL_ADDRESS_LOW = 0x00C28001, FLOW_CONTROL_ADDRESS_HIGH = 0x00000100,
                          FLOW_CONTROL_TYPE = 0x8808;
/// Flow-control thresholds and pause time the 4.4.x driver uses (e1000.h E1000_FC_*): 20480 B high,
/// 16384 B low water in the 48 KB RX packet buffer; 0x680 quanta = 858 µs at 1 Gb/s.
inline constexpr uint32_t E1000_FC_HIGH_THRESH = 0x5000, E1000_FC_LOW_THRESH = 0x4000,
                          E1000_FC_PAUSE_TIME = 0x0680;

// ---- PHY (MII registers through MDIC; M88E1000 at PHY address 1) ----
inline constexpr uint32_t M88_PHY_ADDR = 1;
inline constexpr uint32_t PHY_CTRL = 0x00, PHY_STATUS = 0x01, PHY_AUTONEG_ADV = 0x04, PHY_LP_ABILITY = 0x05,
                          PHY_1000T_CTRL = 0x09, PHY_1000T_STATUS = 0x0A, M88E1000_PHY_SPEC_CTRL = 0x10,
                          M88E1000_RX_ERR_CNTR = 0x15;
inline constexpr uint16_t MII_CR_AUTO_NEG_EN = 0x1000, MII_CR_RESTART_AUTO_NEG = 0x0200, MII_SR_LINK_STATUS = 0x0004;
inline constexpr uint16_t NWAY_AR_10T_HD_CAPS = 0x0020, NWAY_AR_10T_FD_CAPS = 0x0040, NWAY_AR_100TX_HD_CAPS = 0x0080,
                          NWAY_AR_100TX_FD_CAPS = 0x0100, NWAY_AR_PAUSE = 0x0400, NWAY_AR_ASM_DIR = 0x0800,
                          NWAY_LPAR_PAUSE = 0x0400, NWAY_LPAR_ASM_DIR = 0x0800, CR_1000T_FD_CAPS = 0x0200;

// ---- Flow control settings (e1000_hw.h e1000_fc_type; the FlowControl module parameter) ----
enum FcType : int { e1000_fc_none = 0, e1000_fc_rx_pause = 1, e1000_fc_tx_pause = 2, e1000_fc_full = 3, e1000_fc_default = 0xFF };

/// 802.3 Annex 28B.3 pause resolution as e1000_config_fc_after_link_up does it, from our
/// advertisement register `adv`, the partner's ability `lp` and what we asked for (`requested`).
FcType resolve_flow_control(uint16_t adv, uint16_t lp, FcType requested);

// ---- Descriptors (SDM §3.2.3, §3.3.3; e1000_hw.h struct e1000_tx_desc / e1000_rx_desc) ----
inline constexpr unsigned kDescBytes = 16;
/// TX descriptor "lower" dword command bits (cmd in bits 31:24, length in 15:0).
inline constexpr uint32_t E1000_TXD_CMD_EOP = 0x01000000, E1000_TXD_CMD_IFCS = 0x02000000,
                          E1000_TXD_CMD_IC = 0x04000000, E1000_TXD_CMD_RS = 0x08000000,
                          E1000_TXD_CMD_RPS = 0x10000000, E1000_TXD_CMD_DEXT = 0x20000000,
                          E1000_TXD_CMD_VLE = 0x40000000, E1000_TXD_CMD_IDE = 0x80000000,
                          E1000_TXD_DTYP_D = 0x00100000, E1000_TXD_DTYP_C = 0x00000000;
/// TX descriptor "upper" dword: status in bits 3:0 (DD = bit 0), POPTS in 15:8.
inline constexpr uint32_t E1000_TXD_STAT_DD = 0x00000001, E1000_TXD_POPTS_TXSM = 0x02;
inline constexpr uint8_t E1000_RXD_STAT_DD = 0x01, E1000_RXD_STAT_EOP = 0x02, E1000_RXD_STAT_IXSM = 0x04,
                         E1000_RXD_STAT_VP = 0x08, E1000_RXD_STAT_TCPCS = 0x20, E1000_RXD_STAT_IPCS = 0x40;
inline constexpr uint8_t E1000_RXD_ERR_CE = 0x01, E1000_RXD_ERR_SE = 0x02, E1000_RXD_ERR_SEQ = 0x04,
                         E1000_RXD_ERR_CXE = 0x10, E1000_RXD_ERR_TCPE = 0x20, E1000_RXD_ERR_IPE = 0x40,
                         E1000_RXD_ERR_RXE = 0x80;
inline constexpr uint8_t E1000_RXD_ERR_FRAME_ERR_MASK =
    E1000_RXD_ERR_CE | E1000_RXD_ERR_SE | E1000_RXD_ERR_SEQ | E1000_RXD_ERR_CXE | E1000_RXD_ERR_RXE;
/// Byte offsets inside a descriptor (little endian in host memory).
inline constexpr unsigned kTxdLowerOff = 8, kTxdUpperOff = 12, kRxdLengthOff = 8, kRxdStatusOff = 12,
                          kRxdErrorsOff = 13;

/// A legacy (or DEXT data) transmit descriptor: buffer address, lower dword (cmd | length), upper
/// dword (POPTS << 8 | status).
void encode_tx_desc(uint8_t* d, uint64_t buffer_addr, uint32_t lower, uint32_t upper);
/// A TCP/IP context descriptor (SDM §3.3.6): TUCSS/TUCSO (checksum start/offset), cmd_and_length.
void encode_tx_context_desc(uint8_t* d, uint8_t tucss, uint8_t tucso, uint32_t cmd_and_length);
/// A receive descriptor as the driver hands it to the NIC: buffer address, everything else 0.
void encode_rx_desc(uint8_t* d, uint64_t buffer_addr);

struct RxDescView {
  uint64_t buffer_addr = 0;
  uint16_t length = 0, csum = 0;
  uint8_t status = 0, errors = 0;
  uint16_t special = 0;
};
RxDescView decode_rx_desc(const uint8_t* d);

// ---- Driver constants (e1000.h / e1000_main.c / e1000_param.c, 4.4.x) ----
inline constexpr unsigned E1000_RXBUFFER_2048 = 2048;  ///< rx_buffer_len for MTU 1500 (e1000_sw_init)
/// e1000_alloc_rx_buffers' reserve_len: 16-byte aligned IP header after the 14-byte MAC header.
inline constexpr unsigned E1000_RX_RESERVE_LEN = 2;
inline constexpr unsigned ETHERNET_FCS_SIZE = 4;
inline constexpr unsigned ENET_HEADER_SIZE = 14;
inline constexpr unsigned MAX_JUMBO_FRAME_SIZE = 0x3F00;  ///< max_data_per_txd except 82544 on PCI-X
inline constexpr unsigned E1000_MAX_INTR = 10;            ///< ICR reads per e1000_intr call
inline constexpr unsigned E1000_RX_BUFFER_WRITE = 16;     ///< RDT is written when the refilled index % 16 == 0
inline constexpr unsigned E1000_TX_QUEUE_WAKE = 16;       ///< free TX descriptors needed to wake the queue
inline constexpr unsigned REQ_TX_DESCRIPTOR_MULTIPLE = 8, REQ_RX_DESCRIPTOR_MULTIPLE = 8;
inline constexpr unsigned E1000_RAR_ENTRIES = 16, E1000_NUM_MTA_REGISTERS = 128, E1000_VLAN_FILTER_TBL_SIZE = 128;
/// e1000_main.c 4.4.x configure_rx: #define MAX_INTS_PER_SEC 8000 (ITR = 1e9/(8000·256) = 488).
inline constexpr unsigned MAX_INTS_PER_SEC = 8000;

// ---- Pure arithmetic ----
/// E1000_ROUNDUP(v, m): v rounded up to a multiple of m.
constexpr unsigned roundup(unsigned v, unsigned m) { return (v + m - 1) / m * m; }
/// E1000_DESC_UNUSED: free descriptors of a ring of `count` with next_to_use `ntu` and
/// next_to_clean `ntc` (one slot is always kept empty so that head == tail means empty).
constexpr unsigned desc_unused(unsigned count, unsigned ntu, unsigned ntc) {
  return (ntc > ntu ? 0 : count) + ntc - ntu - 1;
}
/// TXD_USE_COUNT(S, X): descriptors for S bytes at most X bytes per descriptor.
constexpr unsigned txd_use_count(unsigned bytes, unsigned max_per_txd) {
  return bytes / max_per_txd + (bytes % max_per_txd ? 1 : 0);
}
/// ITR register value for `ints_per_sec` interrupts/s: 1e9 / (ints_per_sec × 256) in integer
/// arithmetic, as the driver computes it (8000 -> 488 = 124.9 µs; SDM p=305: ITR counts 256 ns).
/// 0 for a rate of 0.
constexpr uint32_t itr_interval(uint32_t ints_per_sec) {
  return ints_per_sec == 0 ? 0 : 1000000000u / (ints_per_sec * 256u);
}
/// The 5.x dynamic InterruptThrottleRate rule (e1000_watchdog @6bd8ee326e; research §2): from the
/// good octets transmitted and received in the last watchdog period (bytes),
///   goc = (tx + rx) / 10000, dif = |tx − rx| / 10000,
///   rate = goc > 0 ? dif·6000/goc + 2000 : 8000   interrupts/s (uint32 arithmetic),
/// so symmetric traffic gets 2000/s, one-way traffic 8000/s.
uint32_t dynamic_itr_rate(uint32_t gotcl, uint32_t gorcl);

}  // namespace nicsim::e1000drv
