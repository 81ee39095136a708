// Register-level test bench for the 8255x model, no driver: the 8254x bench's fake host memory
// (fixed bus rule: 60 ns + 3.75 ns/byte per transaction), IRQ sink and link peer, a CPU stand-in
// doing 8/16/32-bit accesses to either BAR, and helpers that lay out CBs and RFDs the way
// eepro100/e100 do. Tests compute expected times from the rules, not from a run.
#pragma once
#include "tests/unit/nic_e1000_bench.h"
#include "models/nic/i8255x/i8255x.h"

namespace bench8255x {

using namespace nicsim;
using namespace nicsim::i8255x;
using bench::FakePeer;
using bench::HostMem;
using bench::IrqSink;
using bench::make_frame;
using bench::run;
using bench::txn_time;
using bench::wait_until;

struct Cpu : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Cpu> socket;
  explicit Cpu(sc_core::sc_module_name n) : sc_module(n), socket("socket") {}
  tlm::tlm_response_status access(bool write, uint64_t a, void* p, unsigned len, bool io = false) {
    tlm::tlm_generic_payload t;
    PciSpaceExt ext;  // an I/O cycle, as the bus path delivers IN/OUT
    if (io) t.set_extension(&ext);
    struct Clear {
      tlm::tlm_generic_payload& t;
      PciSpaceExt& e;
      bool on;
      ~Clear() { if (on) t.clear_extension(&e); }
    } clear{t, ext, io};
    sc_time d = SC_ZERO_TIME;
    t.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    t.set_address(a);
    t.set_data_ptr(static_cast<unsigned char*>(p));
    t.set_data_length(len);
    t.set_streaming_width(len);
    socket->b_transport(t, d);
    return t.get_response_status();
  }
  template <typename T>
  void write(uint64_t a, T v, bool io = false) {
    REQUIRE(access(true, a, &v, sizeof v, io) == tlm::TLM_OK_RESPONSE);
  }
  template <typename T>
  T read(uint64_t a, bool io = false) {
    T v{};
    REQUIRE(access(false, a, &v, sizeof v, io) == tlm::TLM_OK_RESPONSE);
    return v;
  }
};

/// One 8255x on a fake host, cabled at 100 Mb/s to a fake peer.
struct Bench {
  static constexpr uint64_t kMemBar = 0xF0000000, kIoBar = 0xE000;
  static constexpr double kCableM = 2.0;
  HostMem host{"host"};
  Cpu cpu{"cpu"};
  std::unique_ptr<I8255x> nic;
  IrqSink irq;
  FakePeer peer{"peer"};
  std::unique_ptr<EthLink> link;
  uint64_t base = kMemBar;  ///< the BAR the helpers use

  explicit Bench(const char* part = "82559", I8255xParams p = {}) {
    nic = std::make_unique<I8255x>("nic", nicsim::i8255x::variant(part), p);
    cpu.socket.bind(nic->pci_target());
    nic->dma_initiator().bind(host.socket);
    nic->set_bar(0, kMemBar);
    nic->set_io_bar(kIoBar);
    nic->irq_out(0).bind(irq);
    link = std::make_unique<EthLink>("link", 100, kCableM, *nic, peer);
  }
  bool io() const { return base == kIoBar; }  ///< the helpers use I/O cycles on the I/O BAR
  void w8(uint32_t off, uint8_t v) { cpu.write<uint8_t>(base + off, v, io()); }
  void w16(uint32_t off, uint16_t v) { cpu.write<uint16_t>(base + off, v, io()); }
  void w32(uint32_t off, uint32_t v) { cpu.write<uint32_t>(base + off, v, io()); }
  uint8_t r8(uint32_t off) { return cpu.read<uint8_t>(base + off, io()); }
  uint16_t r16(uint32_t off) { return cpu.read<uint16_t>(base + off, io()); }
  uint32_t r32(uint32_t off) { return cpu.read<uint32_t>(base + off, io()); }
  uint16_t status() { return r16(SCBStatus); }
  Cus cus() { return Cus((r8(SCBStatus) >> kCusShift) & 3); }
  Rus rus() { return Rus((r8(SCBStatus) >> kRusShift) & 0xF); }

  /// Issue an SCB command with the general pointer `gp` and wait until it is accepted (command byte 0),
  /// as eepro100 wait_for_cmd_done does. `intr` is the interrupt control byte written with it.
  void command(uint8_t cmd, uint32_t gp = 0, uint8_t intr = 0) {
    w32(SCBPointer, gp);
    w16(SCBCmd, uint16_t(cmd | (intr << 8)));
    while (r8(SCBCmd) != 0) sc_core::wait(ns(100));
  }
  void ack(uint16_t bits) { w16(SCBStatus, bits); }

  // ---- memory layout helpers (little endian, as on x86)
  void put16(uint64_t a, uint16_t v) { uint8_t b[2]; st16(b, v); host.write(a, b, 2); }
  void put32(uint64_t a, uint32_t v) { uint8_t b[4]; st32(b, v); host.write(a, b, 4); }
  uint16_t get16(uint64_t a) const { uint8_t b[2]; host.read(a, b, 2); return ld16(b); }
  uint32_t get32(uint64_t a) const { uint8_t b[4]; host.read(a, b, 4); return ld32(b); }
  /// A CB header at `a`: status 0, command word, link.
  void put_cb(uint64_t a, uint16_t cmd, uint32_t link) { put16(a, 0); put16(a + 2, cmd); put32(a + 4, link); }
  /// A simplified-mode TxCB at `a` with the frame bytes after the 16-byte header.
  void put_tx_simple(uint64_t a, uint16_t flags, uint32_t link, const std::vector<uint8_t>& frame, uint8_t thr = 0xE0) {
    put_cb(a, uint16_t(cb::TRANSMIT | flags), link);
    put32(a + 8, kNullLink);
    put16(a + 12, uint16_t(frame.size() | cb::TX_EOF));
    host.mem[a + 14] = thr;
    host.mem[a + 15] = 0;
    host.write(a + 16, frame.data(), frame.size());
  }
  /// An RFD at `a` (simplified mode) of `size` data bytes.
  void put_rfd(uint64_t a, uint16_t cmd, uint32_t link, uint16_t size) {
    put_cb(a, cmd, link);
    put32(a + 8, kNullLink);
    put16(a + 12, 0);
    put16(a + 14, size);
  }
  /// Individual Address Setup + Configure (22 bytes, promiscuous off, broadcast on) as one CBL at
  /// `a`, run to completion by CU Start. The configure bytes are eepro100's i82558_config_cmd shape.
  void setup(uint64_t a, uint8_t byte3 = 0) {
    put_cb(a, cb::IA_SETUP, uint32_t(a + 16));
    auto m = nic->mac_address();
    host.write(a + 8, m.data(), 6);
    put_cb(a + 16, uint16_t(cb::CONFIGURE | cb::EL), kNullLink);
    uint8_t c[22] = {22, 0x08, 0, byte3, 0, 0, 0x22, 0x03, 1, 0, 0x2E, 0, 0x60, 0x08, 0x88, 0x68, 0, 0x40, 0xf2, 0xBD, 0x31, 0x05};
    host.write(a + 24, c, 22);
    command(uint8_t(cuc::START << 4), uint32_t(a));
    while (cus() != Cus::Idle) sc_core::wait(ns(500));
    ack(0xFF00);
  }
};

/// Time a frame of `len` bytes sent by the peer at `start` leaves the MAC receive pipeline (enters the RX FIFO).
inline sc_time rx_fifo_time(const I8255xParams& p, const sc_time& start, unsigned len) {
  return start + serialization_time(len, 100) + propagation_delay(Bench::kCableM, 5.0) + p.phy_rx_latency +
         p.mac_rx_latency;
}

}  // namespace bench8255x
