// Register-level test bench for the 8254x model, no driver: a fake host (TLM target acting as host
// memory behind a bus with a simple, known timing rule), a CPU stand-in doing MMIO, IRQ sinks that
// record assertion times, and fake link peers. Tests write registers and descriptors the way a
// driver would and compute expected times from the datasheet rules and the bench's bus rule.
#pragma once
#include "core/dma_tags.h"
#include "core/sim_context.h"
#include "core/timed_resource.h"
#include "models/ether/link.h"
#include "models/nic/e1000/e1000.h"
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <memory>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

namespace bench {

using namespace nicsim;
using namespace nicsim::e1000;

/// The bench's bus rule: each transaction costs a fixed overhead plus a time per byte, one at a time.
/// (Chosen to resemble 32-bit PCI at 66 MHz: 4 bytes per 15 ns.)
inline const sc_time kTxnOverhead = ns(60);
inline const double kNsPerByte = 3.75;
inline sc_time txn_time(size_t bytes) { return kTxnOverhead + ns(kNsPerByte * bytes); }
/// Time the NIC's DMA of `bytes` takes on the bench bus when split into bursts of `burst` bytes
/// (buffers in tests never cross a 4 KB boundary).
inline sc_time dma_time(size_t bytes, size_t burst) {
  sc_time t = SC_ZERO_TIME;
  while (bytes > 0) {
    size_t n = std::min(bytes, burst);
    t += txn_time(n);
    bytes -= n;
  }
  return t;
}

struct HostMem : sc_core::sc_module {
  tlm_utils::simple_target_socket<HostMem> socket;
  std::vector<uint8_t> mem;
  TimedResource bus{"bench bus"};
  struct Txn {
    sc_time start, end;
    bool write;
    uint64_t addr;
    unsigned len;
    PciCommand cmd;
    JourneyId journey;
    std::string what;
  };
  std::vector<Txn> log;

  explicit HostMem(sc_core::sc_module_name n, size_t bytes = 4 << 20) : sc_module(n), socket("socket"), mem(bytes, 0) {
    socket.register_b_transport(this, &HostMem::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_time& delay) {
    uint64_t a = t.get_address();
    unsigned len = t.get_data_length();
    if (a + len > mem.size()) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    Grant g = bus.reserve(now() + delay, txn_time(len));
    if (t.is_write()) std::memcpy(&mem[a], t.get_data_ptr(), len);
    else std::memcpy(t.get_data_ptr(), &mem[a], len);
    auto* ext = t.get_extension<PciTxnExt>();
    log.push_back({g.start, g.end, t.is_write(), a, len, ext ? ext->cmd : PciCommand::MemRead, ext ? ext->journey : 0,
                   ext ? ext->what : ""});
    delay = g.end - now();
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  void write(uint64_t a, const void* p, size_t n) { std::memcpy(&mem[a], p, n); }
  void read(uint64_t a, void* p, size_t n) const { std::memcpy(p, &mem[a], n); }
};

struct IrqSink : irq_if {
  struct Edge {
    sc_time t;
    bool level;
  };
  std::vector<Edge> log;
  bool level = false;
  void set_irq_level(bool a) override {
    log.push_back({now(), a});
    level = a;
  }
  /// Times of rising edges.
  std::vector<sc_time> assertions() const {
    std::vector<sc_time> v;
    for (auto& e : log)
      if (e.level) v.push_back(e.t);
    return v;
  }
};

struct FakePeer : EthPort {
  std::string nm;
  EthLinkEnd* end = nullptr;
  struct Rx {
    sc_time t;
    EthFrame f;
  };
  std::vector<Rx> rx;
  explicit FakePeer(std::string n = "peer") : nm(std::move(n)) {}
  void attach_link(EthLinkEnd* e) override { end = e; }
  void frame_received(const EthFrame& f) override { rx.push_back({now(), f}); }
  std::string port_name() const override { return nm; }
  /// Start sending `f` at absolute time `at` (or when the wire is free).
  sc_time send(const EthFrame& f, const sc_time& at) { return end->transmit(f, at); }
};

struct Cpu : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Cpu> socket;
  explicit Cpu(sc_core::sc_module_name n) : sc_module(n), socket("socket") {}
  void write32(uint64_t a, uint32_t v) {
    tlm::tlm_generic_payload t;
    sc_time d = SC_ZERO_TIME;
    t.set_command(tlm::TLM_WRITE_COMMAND);
    t.set_address(a);
    t.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    t.set_data_length(4);
    t.set_streaming_width(4);
    socket->b_transport(t, d);
    REQUIRE(t.is_response_ok());
  }
  uint32_t read32(uint64_t a) {
    uint32_t v = 0;
    tlm::tlm_generic_payload t;
    sc_time d = SC_ZERO_TIME;
    t.set_command(tlm::TLM_READ_COMMAND);
    t.set_address(a);
    t.set_data_ptr(reinterpret_cast<unsigned char*>(&v));
    t.set_data_length(4);
    t.set_streaming_width(4);
    socket->b_transport(t, d);
    REQUIRE(t.is_response_ok());
    return v;
  }
};

/// A frame from `src` to `dst` MAC with ethertype 0x0800 and `len` bytes in total (DA..payload),
/// payload byte i = (seed + i) & 0xFF.
inline EthFrame make_frame(const std::array<uint8_t, 6>& dst, unsigned len, uint8_t seed = 0, JourneyId j = 0) {
  EthFrame f;
  // Ethernet header: dst, src 00:0a:0b:0c:0d:0e, type IPv4 (one assign: GCC 12 -Warray-bounds
  // false positive on insert after assign of a 6-byte range).
  const uint8_t hdr[14] = {dst[0], dst[1], dst[2], dst[3], dst[4], dst[5],
                           0x00,   0x0A,   0x0B,   0x0C,   0x0D,   0x0E, 0x08, 0x00};
  f.bytes.reserve(len > 14 ? len : 14);
  f.bytes.assign(hdr, hdr + 14);
  for (unsigned i = 14; i < len; ++i) f.bytes.push_back(uint8_t(seed + i));
  f.journey = j;
  return f;
}

/// One NIC on one fake host, each port cabled to a fake peer.
struct Bench {
  static constexpr uint64_t kBar0 = 0xF0000000, kBar1 = 0xF0020000;
  static constexpr double kCableM = 2.0;
  HostMem host{"host"};
  Cpu cpu{"cpu"};
  std::unique_ptr<E1000> nic;
  IrqSink irq[2];
  std::vector<std::unique_ptr<FakePeer>> peers;
  std::vector<std::unique_ptr<EthLink>> links;

  explicit Bench(const char* variant_name, E1000Params p = {}, unsigned speed = 1000) {
    nic = std::make_unique<E1000>("nic", variant(variant_name), p);
    cpu.socket.bind(nic->pci_target());
    nic->dma_initiator().bind(host.socket);
    for (unsigned f = 0; f < nic->info().functions; ++f) {
      nic->set_bar(f, f == 0 ? kBar0 : kBar1);
      nic->irq_out(f).bind(irq[f]);
      peers.push_back(std::make_unique<FakePeer>("peer" + std::to_string(f)));
      links.push_back(std::make_unique<EthLink>(("link" + std::to_string(f)).c_str(), speed, kCableM,
                                                *nic->eth_port(f), *peers.back()));
    }
  }
  uint64_t bar(unsigned fn) const { return fn == 0 ? kBar0 : kBar1; }
  void w(unsigned fn, uint32_t off, uint32_t v) { cpu.write32(bar(fn) + off, v); }
  uint32_t r(unsigned fn, uint32_t off) { return cpu.read32(bar(fn) + off); }

  /// RX ring of `n` descriptors at `ring`, buffers of 2048 B from `bufs`; hands `avail` descriptors
  /// to the NIC (RDT = avail) and enables the receiver (broadcast accept, BSIZE 2048).
  void setup_rx(unsigned fn, uint64_t ring, unsigned n, uint64_t bufs, unsigned avail, uint32_t extra_rctl = 0) {
    for (unsigned i = 0; i < n; ++i) {
      uint8_t d[16] = {};
      store_le64(d, bufs + uint64_t(i) * 2048);
      host.write(ring + 16 * i, d, 16);
    }
    w(fn, RDBAL, uint32_t(ring));
    w(fn, RDBAH, uint32_t(ring >> 32));
    w(fn, RDLEN, n * 16);
    w(fn, RDH, 0);
    w(fn, RDT, avail);
    w(fn, RCTL, rctl::EN | rctl::BAM | extra_rctl);
  }
  RxDesc rx_desc(uint64_t ring, unsigned i) const {
    uint8_t d[16];
    host.read(ring + 16 * i, d, 16);
    return decode_rx_desc(d);
  }
  void setup_tx(unsigned fn, uint64_t ring, unsigned n) {
    std::vector<uint8_t> z(16 * n, 0);
    host.write(ring, z.data(), z.size());
    w(fn, TDBAL, uint32_t(ring));
    w(fn, TDBAH, uint32_t(ring >> 32));
    w(fn, TDLEN, n * 16);
    w(fn, TDH, 0);
    w(fn, TDT, 0);
    w(fn, TCTL, tctl::EN | tctl::PSP);
  }
  /// Write frame bytes to `buf` and a legacy descriptor at ring index `idx` (no TDT write).
  void put_tx(uint64_t ring, unsigned idx, uint64_t buf, const std::vector<uint8_t>& bytes, uint8_t cmd) {
    host.write(buf, bytes.data(), bytes.size());
    uint8_t d[16];
    encode_tx_desc(d, buf, uint16_t(bytes.size()), cmd);
    host.write(ring + 16 * idx, d, 16);
  }
  TxDesc tx_desc(uint64_t ring, unsigned i) const {
    uint8_t d[16];
    host.read(ring + 16 * i, d, 16);
    return decode_tx_desc(d);
  }
};

/// Run `script` as a thread from time 0 and simulate until `until`.
inline void run(std::function<void()> script, const sc_time& until) {
  sc_core::sc_spawn_options o;
  sc_core::sc_spawn(std::move(script), "script", &o);
  sc_core::sc_start(until);
}

inline void wait_until(const sc_time& t) {
  if (t > now()) sc_core::wait(t - now());
}

/// Time a frame of `len` bytes sent by a fake peer at `start` is in the NIC's RX packet buffer.
inline sc_time rx_fifo_time(const E1000Params& p, const sc_time& start, unsigned len, unsigned speed = 1000) {
  return start + serialization_time(len, speed) + propagation_delay(Bench::kCableM, 5.0) + p.phy_rx_latency +
         p.mac_rx_latency;
}

}  // namespace bench
