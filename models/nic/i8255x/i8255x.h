// Intel 8255x Fast Ethernet controller (82557, 82558 A4/B0, 82559) as a 32-bit PCI device:
// CSR/SCB register file (regs.h), variant table (variants.h), serial EEPROM (eeprom.h), CPU-Saver
// microcode behaviour (cpusaver.h), and here the module: the SCB, the command unit walking the
// command block list, the receive unit filling the receive frame area, the DMA engine, the MAC.
//
// Behaviour (OpenSDM = Intel 8255x Open Source Software Developer Manual rev 1.3; names and
// encodings from Linux e100.h / eepro100.c, see regs.h):
//  * Registers: one CSR file reachable through the memory BAR (4 KB, PciDevice::bar) and the I/O
//    BAR (io_bar(), 32 B on the 82557, 64 B later), with 8/16/32-bit accesses at any offset, as
//    eepro100 (inb/inw/outw on I/O space) and e100 (readb/writew on memory space) use them. I/O
//    cycles arrive through the bus path tagged with a PciSpaceExt (models/bus/pci.h) and decode
//    only against the I/O BAR; untagged (memory) cycles only against the memory BAR.
//  * SCB command: a non-zero command byte is accepted `scb_accept` after the write; it reads back
//    non-zero until then (the drivers' wait_for_cmd_done / e100_wait_scb poll for 0).
//    CUC: CU Start (general pointer = CB offset from the CU base), CU Resume and Static Resume
//    (suspended → active at the CB the suspended one links to; ignored otherwise), Load CU Base,
//    Load Dump Counters Address, Dump / Dump and Reset Statistical Counters (16/19/20 dwords and
//    the completion dword 0xA005/0xA007). RUC: RU Start, RU Resume (suspended only), RU Abort,
//    Load RU Base.
//  * Interrupts: INTA# is asserted while STAT/ACK & enabled ≠ 0 and M = 0; on 82558+ the specific
//    mask bits of the interrupt control byte disable CX, FR, CNA, RNR, ER, FCP individually. The
//    driver acknowledges by writing 1s to the STAT/ACK byte. SI raises SWI.
//  * CU: each CB header (status, command, link) is read by DMA when the CU reaches it; that command
//    word decides what the CB does and I. A CB completes by writing C (+OK) into its status word,
//    then the CU reads the command word and link again ("CB command re-read") and those decide what
//    follows: EL → idle, S → suspended, both raise CNA (the CU left the active state); otherwise the
//    CU follows the link; I (as fetched) → CX. So an S bit a driver clears while the CB executes
//    (eepro100 clear_suspend + CU Resume, which is ignored while the CU is active) does not suspend
//    the CU: eepro100.c Theory of Operation IIIB describes the chip going on past the CB whose S was
//    erased. estimate: the re-read's size (6 bytes) and moment; the OpenSDM was not consulted on it. Commands: NOP, Individual Address Setup, Configure (bytes used: 3 MWI and
//    read align, 15 promiscuous / broadcast disable, 18 padding, 21 multicast all), Multicast Setup
//    (exact address list, not the hash filter), Transmit, Load Microcode, Dump.
//  * Transmit: simplified mode (data after the 16-byte TCB, TBD address 0xFFFFFFFF) and flexible
//    mode (SF: optional data in the TCB, then `TBD number` TBDs at the TBD array address). The data
//    is read into the TX FIFO; the frame starts on the wire when all of it is in (see `Approximations`
//    below for the transmit threshold); the TCB completes (C|OK) when its last bit has left.
//  * Receive: simplified RFDs. A frame that passes the address filter enters the 3 KB RX FIFO (no
//    room: rcv_oruns); while the RU is not ready it is dropped and counted in rcv_rsrc_err. For each
//    frame the RU reads the RFD header, writes the data (up to the RFD size; longer: truncated,
//    status without OK, NO_RESOURCES bit), the actual count (EOF|F|count) and the status (C|OK),
//    raises FR (or lets the CPU-Saver decide), then EL → no resources, S → suspended (both RNR),
//    else the next RFD is the link.
//  * CPU-Saver: a Load Microcode CB whose payload is the e100 image of this revision (the patched
//    instruction words are where e100_ucode.h says, in their instruction form) starts the
//    bundling behaviour of cpusaver.h; FR is then raised when it decides. Any other payload and the
//    82557: the CB completes and nothing changes.
//  * DMA: one bus master, FIFO, one burst of at most `dma_burst_bytes` at a time (PciTxnExt with
//    command: MR on the 82557; on 82558+ with read align (configure byte 3 bit 2): MRL up to a cache
//    line, MRM beyond; MW, or MWI for whole cache lines when configure byte 3 bit 0 and the PCI
//    command register (param mwi_enable) allow it).
//  * Counters (under the instance name): the dump counters by e100.h field name
//    (<inst>.xmt_gd_frames, .rcv_gd_frames, .rcv_rsrc_err, .rcv_oruns, ...), .interrupts,
//    .rx_filtered, .cpusaver.<cause>. Journeys: "descriptor fetch", "data DMA", "MAC TX",
//    "MAC RX", "RX FIFO", "RX DMA", "write-back", "moderation wait" (CPU-Saver causes), "interrupt".
//
// Approximations: the transmit threshold of the TCB is read but the frame starts only when all its
// data is in the FIFO (the link cannot start a frame in the past, and the data is not known
// earlier): at 32-bit/33 MHz this overstates TX start by the DMA time of the bytes past the
// threshold. The CU does not fetch the next CB while a frame is on the wire. Half duplex,
// collisions, CRC errors, early receive (ER) and 802.3x PAUSE are not modelled (the registers are
// kept). The Dump CB and PORT dump write a buffer whose layout is not modelled (zeros + IA/config).
#pragma once
#include "core/clock.h"
#include "core/dma_tags.h"
#include "models/ether/one_port_nic.h"
#include "models/bus/dma_engine.h"
#include "core/params.h"
#include "core/units.h"
#include "models/bus/pci.h"
#include "models/ether/frame.h"
#include "models/ether/mac_tx.h"
#include "models/ether/nic_params.h"
#include "models/nic/i8255x/cpusaver.h"
#include "models/nic/i8255x/eeprom.h"
#include "models/nic/i8255x/regs.h"
#include "models/nic/i8255x/variants.h"
#include <array>
#include <deque>
#include <functional>
#include <optional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace nicsim::i8255x {

/// The 8255x's parameters. clock_ppm / clock_ppm_spread (25 MHz crystal) and the MAC/PHY
/// latencies are the shared NicTimingParams (models/ether/nic_params.h), with these defaults.
struct I8255xParams : NicTimingParams {
  I8255xParams()
      : NicTimingParams{
            .clock_ppm = 0.0,          // crystal offset (25 MHz, 82559 DS X1/X2); IEEE 802.3 ±100 ppm
            .clock_ppm_spread = 15.0,  // σ of the seeded offset (estimate, like the 8254x entries)
            .mac_tx_latency = ns(400),  // estimate: MAC TX pipeline (FIFO → MII), 100 Mb/s nibble clock
            .phy_tx_latency = ns(300),  // estimate: 100BASE-TX PHY transmit (4B/5B, scrambler, MLT-3)
            .phy_rx_latency = ns(500),  // estimate: 100BASE-TX PHY receive (equaliser, descrambler)
            .mac_rx_latency = ns(400),  // estimate: MAC RX pipeline (MII → RX FIFO, address filter)
        } {}
  sc_time scb_accept = ns(300);   ///< estimate: SCB command accepted (command byte reads 0) after the write
  sc_time mdi_cycle = us(25.6);   ///< one MDI frame: 64 MDC cycles at 2.5 MHz (IEEE 802.3 §22.2.2.11, §22.2.4.5)
  sc_time selftest_time = us(10); ///< estimate: PORT self-test until the result is written
  double cpusaver_ticks_per_us = kCpuSaverTicksPerUs;  ///< CPU-Saver dead-man timer rate (estimate, cpusaver.h)
  unsigned dma_burst_bytes = 64;     ///< estimate: largest DMA burst (configure bytes 4/5 DMA counts not modelled)
  unsigned cache_line_bytes = 64;    ///< PCI cache line size register (2.4 on P4: 64 B, research e7500-p64h2-pcix.md [S10])
  bool mwi_enable = false;           ///< PCI command register MWI enable (BIOS/driver)
  unsigned tx_fifo_bytes = 3072;     ///< "3 Kbyte transmit and 3 Kbyte receive FIFOs" (82559 datasheet, Product
  unsigned rx_fifo_bytes = 3072;     ///< Features); 82557/82558: estimate, same size
  std::string mac_address;           ///< empty: Intel OUI 00:90:27 + hash of the instance name
  std::string dma_space;             ///< DmaTags space; empty: the SystemC name

  static ParamSchema schema();
  /// From validated values of schema(). Throws std::out_of_range for a missing name.
  static I8255xParams from(const ParamValues& v);
};

/// The PCI facts of a variant: 32-bit PCI, 33 MHz, one function, 4 KB CSR memory BAR.
PciDeviceInfo device_info(const Variant& v);

class I8255x : public OnePortNic {
 public:
  tlm_utils::simple_target_socket<I8255x> pci_target_socket;        ///< "pci_target"
  tlm_utils::simple_initiator_socket<I8255x> dma_initiator_socket;  ///< "dma_initiator"
  sc_core::sc_port<irq_if> irq;                                     ///< "irq_out_0": INTA#

  I8255x(sc_core::sc_module_name name, const Variant& v, const I8255xParams& p = {});
  ~I8255x() override;

  // PciDevice
  const PciDeviceInfo& info() const override { return info_; }
  tlm::tlm_target_socket<>& pci_target() override { return pci_target_socket; }
  tlm::tlm_initiator_socket<>& dma_initiator() override { return dma_initiator_socket; }
  sc_core::sc_port<irq_if>& irq_out(unsigned fn) override;
  void set_bar(unsigned fn, uint64_t base) override;  ///< the CSR memory BAR
  uint64_t bar(unsigned fn) const override;
  /// The CSR I/O BAR (PCI BAR1: an I/O port, 0 = unassigned) of the one function; its size is
  /// info().io_bar_size = io_bar_bytes(). Accesses carrying a PciSpaceExt (I/O cycles) decode
  /// against it, all others against the memory BAR. Throws std::out_of_range for fn != 0.
  void set_io_bar(unsigned fn, uint64_t base) override;
  uint64_t io_bar(unsigned fn) const override;
  void set_io_bar(uint64_t base) { set_io_bar(0, base); }
  uint64_t io_bar() const { return io_bar_; }
  unsigned io_bar_bytes() const { return v_.io_bar_bytes; }

  // EthPort (the port list, cable and name: OnePortNic)
  void frame_received(const EthFrame& f) override;
  std::optional<FrameTally> tally() const override;

  const Variant& variant() const { return v_; }
  const I8255xParams& params() const { return p_; }
  const ClockDomain& clock() const { return clk_; }
  std::array<uint8_t, 6> mac_address() const { return mac_; }
  DmaTags::Space dma_space() const { return space_; }
  Cus cu_state() const { return cus_; }
  Rus ru_state() const { return rus_; }
  /// The running CPU-Saver, or nullptr (no microcode loaded).
  const CpuSaver* cpusaver() const { return saver_.get(); }
  /// Internal statistical counter `c` (what the next dump would write).
  uint32_t stat(StatCounter c) const { return stats_[c]; }
  bool irq_level() const { return line_; }

 private:
  using DmaReq = DmaRequest;
  DmaBurst dma_burst(bool write, uint64_t addr, size_t left) const;
  void b_transport(tlm::tlm_generic_payload& trans, sc_time& delay);
  uint8_t read_byte(uint32_t off, const sc_time& t);
  void write_bytes(uint32_t off, const uint8_t* d, unsigned len, const sc_time& t, const sc_time& delay);
  void reset(bool selective);
  void raise(uint16_t bits);
  void sync_irq();
  uint16_t enabled_causes() const;
  void accept_command();
  void port_command(uint32_t v, const sc_time& delay);
  void mdi_start(uint32_t v, const sc_time& delay);
  void mdi_done();
  // CU
  void cu_fetch(uint32_t addr);
  void cu_exec(uint32_t addr, uint16_t status, uint16_t cmd, uint32_t link);
  void cu_transmit(uint32_t addr, uint16_t cmd, uint32_t link, const std::vector<uint8_t>& tcb);
  void cu_complete(uint32_t addr, uint16_t cmd, uint32_t link, bool ok);
  /// After a CB's status write: re-read its command word and link, then EL/S/next (see the header).
  void cu_next(uint32_t addr, uint16_t fetched_cmd);
  void cu_resume();
  void dump_counters(bool reset);
  void load_microcode(const std::vector<uint8_t>& payload);
  // RU / MAC RX
  void accept_frame(const EthFrame& f);
  bool address_match(const std::vector<uint8_t>& b) const;
  void rx_process();
  void rx_frame_done(const std::vector<uint8_t>& bytes, JourneyId j, uint16_t rfd_cmd, uint32_t link);
  void fr_now(JourneyId j, const char* cause);
  void on_saver();
  void count(StatCounter c, uint64_t n = 1);
  void submit(std::unique_ptr<DmaReq> r);
  static std::unique_ptr<DmaReq> make_req(bool write, uint64_t addr, size_t n, const char* what, const char* stage,
                                          JourneyId j = 0);
  template <typename F>
  void spawn(const char* what, sc_core::sc_event* ev, F f);

  const Variant& v_;
  I8255xParams p_;
  PciDeviceInfo info_;
  ClockDomain clk_, tick_clk_;
  DmaTags::Space space_;
  std::array<uint8_t, 6> mac_{};
  uint64_t bar_ = 0, io_bar_ = 0;
  std::unique_ptr<DmaEngine> dma_;
  uint64_t epoch_ = 0;  ///< bumped by a reset: stale DMA completions are ignored

  // SCB
  std::array<uint8_t, kCsrBytes> csr_{};
  uint16_t stat_ack_ = 0;
  uint8_t intr_ctl_ = 0, cmd_ = 0;
  sc_time cmd_accept_at_ = SC_ZERO_TIME;
  Cus cus_ = Cus::Idle;
  Rus rus_ = Rus::Idle;
  bool line_ = false;
  sc_time line_since_ = SC_ZERO_TIME;
  SerialEeprom eeprom_;
  std::array<uint16_t, 32> phy_{};
  uint32_t mdi_ = 0;
  bool mdi_busy_ = false;
  sc_core::sc_event scb_ev_, mdi_ev_, saver_ev_;

  // CU
  uint32_t cu_base_ = 0, ru_base_ = 0, dump_addr_ = 0;
  uint32_t cu_suspended_at_ = 0;  ///< the CB the CU suspended on
  std::array<uint8_t, cb::kConfigBytesMax> config_{};
  std::array<uint8_t, 6> ia_{};
  std::vector<std::array<uint8_t, 6>> multicast_;
  std::unique_ptr<CpuSaver> saver_;
  std::array<uint32_t, kStatCounters> stats_{};
  std::array<uint64_t*, kStatCounters> stat_ctr_{};

  // RX
  struct RxFrame { std::vector<uint8_t> bytes; JourneyId j; };
  std::deque<RxFrame> rx_fifo_;
  size_t rx_fifo_used_ = 0;
  bool rx_busy_ = false;
  uint32_t ru_next_ = 0;
  std::vector<JourneyId> rx_await_;  ///< frames stored whose FR has not been raised (CPU-Saver)
};

}  // namespace nicsim::i8255x
