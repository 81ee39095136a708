// Register-level test bench for the GMAC model (models/nic/gem), no driver: the 8254x bench's fake
// host memory (bus rule: 60 ns + 3.75 ns/byte per transaction, one at a time), IRQ sink and link
// peer, and a CPU stand-in doing 8/16/32-bit MMIO as PowerPC's out_8 / out_le16 / out_le32 do.
// Helpers lay out the rings the way sungem v0.95's gem_init_dma does and write descriptors as
// little-endian 64-bit words (cpu_to_le64). Tests compute expected times from the rules.
#pragma once
#include "tests/unit/nic_e1000_bench.h"
#include "models/nic/gem/gem.h"

namespace benchgem {

using namespace nicsim;
using namespace nicsim::gem;
using bench::dma_time;
using bench::FakePeer;
using bench::HostMem;
using bench::IrqSink;
using bench::make_frame;
using bench::run;
using bench::txn_time;
using bench::wait_until;

inline constexpr uint64_t kTxRing = 0x10000, kRxRing = 0x10800, kRxBufs = 0x100000, kTxBufs = 0x200000;
inline constexpr unsigned kRxBufBytes = 1500 + 46 + 2 + 64 - 2;  // sungem RX_BUF_ALLOC_SIZE - RX_OFFSET at MTU 1500

/// 8/16/32-bit little-endian MMIO (the bytes of the value in address order, low byte first).
struct MmioCpu : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<MmioCpu> socket;
  explicit MmioCpu(sc_core::sc_module_name n) : sc_module(n), socket("socket") {}
  uint32_t access(bool write, uint64_t a, uint32_t v, unsigned len) {
    uint8_t d[4];
    for (unsigned i = 0; i < 4; ++i) d[i] = uint8_t(v >> (8 * i));
    tlm::tlm_generic_payload t;
    sc_time delay = SC_ZERO_TIME;
    t.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    t.set_address(a);
    t.set_data_ptr(d);
    t.set_data_length(len);
    t.set_streaming_width(len);
    socket->b_transport(t, delay);
    REQUIRE(t.is_response_ok());
    uint32_t r = 0;
    for (unsigned i = 0; i < len; ++i) r |= uint32_t(d[i]) << (8 * i);
    return r;
  }
};

struct Bench {
  static constexpr uint64_t kBar = 0x80000000;
  static constexpr double kCableM = 2.0;
  HostMem host{"host", 4 << 20};
  MmioCpu cpu{"cpu"};
  std::unique_ptr<Gmac> nic;
  IrqSink irq;
  FakePeer peer{"peer"};
  std::unique_ptr<EthLink> link;

  explicit Bench(GemParams p = {}) {
    p.clock_ppm = 0;
    nic = std::make_unique<Gmac>("nic", p);
    cpu.socket.bind(nic->pci_target());
    nic->dma_initiator().bind(host.socket);
    nic->set_bar(0, kBar);
    nic->irq_out(0).bind(irq);
    link = std::make_unique<EthLink>("link", 1000, kCableM, *nic, peer);
  }
  void w(uint32_t off, uint32_t v) { cpu.access(true, kBar + off, v, 4); }
  uint32_t r(uint32_t off) { return cpu.access(false, kBar + off, 0, 4); }
  void w16(uint32_t off, uint32_t v) { cpu.access(true, kBar + off, v, 2); }
  uint32_t r16(uint32_t off) { return cpu.access(false, kBar + off, 0, 2); }
  void w8(uint32_t off, uint32_t v) { cpu.access(true, kBar + off, v, 1); }
  uint32_t r8(uint32_t off) { return cpu.access(false, kBar + off, 0, 1); }

  /// gem_init_dma / gem_init_pause_thresholds as sungem v0.95 writes them (rings of `tx` / `rx`
  /// entries, RXDMA_BLANK `blank`), GREG_CFG infinite bursts with grant limits 31, the MACs
  /// enabled, GREG_IMASK = `imask`.
  void setup(uint32_t imask, uint32_t blank = 1, uint32_t txdma_extra = 0, unsigned tx = 128, unsigned rx = 128) {
    auto code = [](unsigned n) { unsigned c = 0; while ((32u << c) < n) ++c; return c << 1; };
    w(GREG_CFG, GREG_CFG_IBURST | (31u << 1) | (31u << 6));
    w(TXDMA_CFG, code(tx) | (0x7ffu << 10) | txdma_extra);
    w(TXDMA_DBHI, 0);
    w(TXDMA_DBLOW, uint32_t(kTxRing));
    w(RXDMA_CFG, code(rx) | (2u << 10) | ((14u / 2) << 13) | RXDMA_CFG_FTHRESH_512);
    w(RXDMA_DBHI, 0);
    w(RXDMA_DBLOW, uint32_t(kRxRing));
    w(RXDMA_BLANK, blank);
    w(MAC_TXMASK, 0xffff);
    w(MAC_RXMASK, 0xffff);
    w(MAC_MCMASK, 0xffff);
    w(TXDMA_CFG, r(TXDMA_CFG) | TXDMA_CFG_ENABLE);
    w(RXDMA_CFG, r(RXDMA_CFG) | RXDMA_CFG_ENABLE);
    w(MAC_TXCFG, MAC_TXCFG_ENAB);
    w(MAC_RXCFG, MAC_RXCFG_ENAB);
    w(GREG_IMASK, imask);
  }
  /// RX descriptors 0..n-1 with BUFSZ | OWN and buffers at kRxBufs + i·2048 (little-endian words).
  void post_rx(unsigned n, unsigned kick) {
    for (unsigned i = 0; i < n; ++i) {
      uint8_t d[16];
      put_le64(d, (uint64_t(kRxBufBytes) << 16) | RXDCTRL_OWN);
      put_le64(d + 8, kRxBufs + uint64_t(i) * 2048);
      host.write(kRxRing + 16u * i, d, 16);
    }
    w(RXDMA_KICK, kick);
  }
  /// A one-descriptor frame at TX descriptor `idx` (SOF | EOF | length, INTME if asked), as
  /// sungem writes it: both words cpu_to_le64. No kick.
  void put_tx(unsigned idx, const std::vector<uint8_t>& bytes, bool intme = false) {
    const uint64_t buf = kTxBufs + uint64_t(idx) * 2048;
    host.write(buf, bytes.data(), bytes.size());
    uint8_t d[16];
    put_le64(d, TXDCTRL_SOF | TXDCTRL_EOF | bytes.size() | (intme ? TXDCTRL_INTME : 0));
    put_le64(d + 8, buf);
    host.write(kTxRing + 16u * idx, d, 16);
  }
  uint64_t rx_status(unsigned idx) const {
    uint8_t d[8];
    host.read(kRxRing + 16u * idx, d, 8);
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | d[i];
    return v;
  }
  static void put_le64(uint8_t* p, uint64_t v) {
    for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
  }
};

/// When a frame of `len` bytes sent by the peer at `start` is in the GMAC's RX FIFO.
inline sc_time rx_fifo_time(const GemParams& p, const sc_time& start, unsigned len) {
  return start + serialization_time(len, 1000) + propagation_delay(Bench::kCableM, 5.0) + p.phy_rx_latency +
         p.mac_rx_latency;
}
/// From a frame in the RX FIFO (first of its group of 4 descriptors) to RXDMA_DONE: the 64-byte
/// descriptor fetch, the data (+4 FCS) in one burst, the 8-byte status word.
inline sc_time rx_dma_first(unsigned len) { return txn_time(64) + txn_time(len + 4) + txn_time(8); }
/// The same for a frame whose descriptor is already fetched.
inline sc_time rx_dma_next(unsigned len) { return txn_time(len + 4) + txn_time(8); }

}  // namespace benchgem
