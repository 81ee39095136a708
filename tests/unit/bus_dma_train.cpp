// "Carry a burst as one transaction": the closed-form pieces of a posted tenure
// (posted_pieces) and the posted train
// (PostedTrainExt) through hub link -> north bridge -> DRAM against the same pieces sent as
// separate writes, with other traffic on the link. The train must give every piece the same times
// and leave every resource, counter and byte exactly as the separate writes do.
#include "core/sim_context.h"
#include "models/bus/hub_link.h"
#include "models/bus/pci_timing.h"
#include "models/bus/stream_timing.h"
#include "models/chipset/host_bridge.h"
#include "models/mem/dram.h"
#include <catch2/catch.hpp>
#include <set>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

// This file's own names, apart from the other files of a unity batch.
namespace bus_dma_train_test {
using namespace nicsim;


TEST_CASE("posted pieces are cut at each 128-byte ADB and reach the buffer after their data phases", "[bus][pci][speed]") {
  // 256 B aligned, 64-bit: two ADB pieces, in after 16 and 32 data phases of 8 bytes.
  auto a = posted_pieces(0x1000, 256, 128, 8);
  REQUIRE(a.size() == 2);
  CHECK(a[0].addr == 0x1000);
  CHECK(a[0].bytes == 128);
  CHECK(a[0].data_phases == 16);
  CHECK(a[1].addr == 0x1080);
  CHECK(a[1].bytes == 128);
  CHECK(a[1].data_phases == 32);
  // Misaligned start and end: 124 + 128 + 48 bytes; the first QWORD is partial (byte 4 of 8), so
  // the data phases count the QWORDs touched: 0x1004..0x107F = 16, ..0x10FF = 32, ..0x112F = 38.
  auto b = posted_pieces(0x1004, 300, 128, 8);
  REQUIRE(b.size() == 3);
  CHECK(b[0].bytes == 124);
  CHECK(b[1].bytes == 128);
  CHECK(b[2].bytes == 48);
  CHECK(b[2].addr == 0x1100);
  CHECK(b[0].data_phases == 16);
  CHECK(b[1].data_phases == 32);
  CHECK(b[2].data_phases == 38);
  for (size_t i = 0; i < b.size(); ++i)
    CHECK(b[i].data_phases == pci_data_phases(0x1004, static_cast<uint32_t>(b[i].addr + b[i].bytes - 0x1004), 8));
  // A 32-bit path moves 4 bytes per data phase.
  auto c = posted_pieces(0x2000, 256, 128, 4);
  REQUIRE(c.size() == 2);
  CHECK(c[0].data_phases == 32);
  CHECK(c[1].data_phases == 64);
  // Shorter than one ADB: one piece.
  auto d = posted_pieces(0x2010, 16, 128, 8);
  REQUIRE(d.size() == 1);
  CHECK(d[0].data_phases == 2);
  CHECK(posted_pieces(0x2000, 0, 128, 8).empty());
  CHECK_THROWS_AS(posted_pieces(0x2000, 64, 0, 8), std::invalid_argument);
  CHECK_THROWS_AS(posted_pieces(0x2000, 64, 128, 0), std::invalid_argument);
}

namespace {

struct NoApic : sc_core::sc_module, apic_msg_if, eoi_if {
  explicit NoApic(sc_core::sc_module_name n) : sc_module(n) {}
  void apic_message(unsigned, const sc_core::sc_time&) override {}
  void eoi(unsigned, const sc_core::sc_time&) override {}
};

struct NoTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<NoTarget> sock{"sock"};
  explicit NoTarget(sc_core::sc_module_name n) : sc_module(n) {
    sock.register_b_transport(this, &NoTarget::b);
  }
  void b(tlm::tlm_generic_payload& t, sc_time&) { t.set_response_status(tlm::TLM_OK_RESPONSE); }
};

/// Hub link -> north bridge -> DRAM, driven from a test socket on the link's upstream side.
struct Chain : sc_core::sc_module {
  HubLink hub;
  HostBridge mch;
  Dram dram;
  NoApic apic;
  NoTarget below;
  tlm_utils::simple_initiator_socket<Chain> up{"up"};
  tlm_utils::simple_initiator_socket<Chain> cpu{"cpu"}, mmio{"mmio"};  ///< unused: the target sockets need a binding
  std::set<uint64_t> snooped;  ///< 64-byte lines the inbound-write observer saw

  explicit Chain(sc_core::sc_module_name n)
      : sc_module(n), hub("hub"), mch("mch", HostBridgeParams{}, 1ull << 30), dram("dram"), apic("apic"), below("below") {
    up.bind(hub.up_target);
    cpu.bind(mch.fsb_target);
    mmio.bind(hub.down_target);
    hub.up_initiator.bind(*mch.hub_up.at(1));
    hub.down_initiator.bind(below.sock);
    hub.eoi_out.bind(apic);
    mch.mem_initiator.bind(dram.target);
    mch.apic_out.bind(apic);
    mch.set_inbound_write_observer([this](uint64_t a, size_t len) {
      for (uint64_t l = a / 64; l <= (a + len - 1) / 64; ++l) snooped.insert(l);
    });
  }
};

struct Piece {
  uint64_t addr;
  uint32_t bytes;
  sc_time at;
};

/// One write as the bridge forwards a single piece: returns when its last byte left (sent_end).
sc_time write_one(Chain& c, const Piece& p, std::vector<uint8_t>& data, uint64_t base) {
  tlm::tlm_generic_payload tr;
  tr.set_command(tlm::TLM_WRITE_COMMAND);
  tr.set_address(p.addr);
  tr.set_data_ptr(data.data() + (p.addr - base));
  tr.set_data_length(p.bytes);
  tr.set_streaming_width(p.bytes);
  tr.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  StreamTimingExt ext;
  tr.set_extension(&ext);
  sc_time d = p.at - now();
  c.up->b_transport(tr, d);
  tr.clear_extension(&ext);
  REQUIRE(tr.get_response_status() == tlm::TLM_OK_RESPONSE);
  REQUIRE(ext.has_sent_end);
  return ext.sent_end;
}

/// The same pieces as one posted train: returns each piece's sent_end.
std::vector<sc_time> write_train(Chain& c, const std::vector<Piece>& ps, std::vector<uint8_t>& data, uint64_t base) {
  tlm::tlm_generic_payload tr;
  uint32_t total = 0;
  PostedTrainExt train;
  for (auto& p : ps) {
    train.pieces.push_back({p.bytes, p.at, SC_ZERO_TIME});
    total += p.bytes;
  }
  tr.set_command(tlm::TLM_WRITE_COMMAND);
  tr.set_address(ps.front().addr);
  tr.set_data_ptr(data.data() + (ps.front().addr - base));
  tr.set_data_length(total);
  tr.set_streaming_width(total);
  tr.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  tr.set_extension(&train);
  sc_time d = ps.front().at - now();
  c.up->b_transport(tr, d);
  tr.clear_extension(&train);
  REQUIRE(tr.get_response_status() == tlm::TLM_OK_RESPONSE);
  std::vector<sc_time> ends;
  for (auto& p : train.pieces) ends.push_back(p.sent_end);
  return ends;
}

struct Driver : sc_core::sc_module {
  std::function<void()> body;
  explicit Driver(sc_core::sc_module_name n) : sc_module(n) {
    SC_HAS_PROCESS(Driver);
    SC_THREAD(run);
  }
  void run() { body(); }
};

}  // namespace

TEST_CASE("a posted train through hub link and MCH into DRAM equals its pieces sent one by one with other traffic on the link", "[bus][hub][mem][speed]") {
  Chain tc("t"), sc("s");
  Driver drv("drv");
  const uint64_t base = 0x123400;  // a DRAM row boundary falls inside the second burst below
  std::vector<uint8_t> data(4096);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 13 + 1);
  std::vector<sc_time> t_ends, s_ends;
  drv.body = [&] {
    sc_core::wait(ns(50));
    for (Chain* c : {&tc, &sc}) {
      // Other traffic: a read completion streaming down with gaps between its packets (shared
      // pipe), an interrupt-sized upstream write, and a CPU line fill keeping the DRAM bus busy.
      c->hub.send(HubLink::Dir::Down, 512, ns(120), ns(900));
      c->dram.schedule(false, 0x800000, 64, ns(300));
    }
    // Tenure 1: four ADB pieces 160 ns apart (PCI-X 100, 16 data phases each), request 40 ns after.
    // Tenure 2 crosses into the next 16 KB DRAM row with pieces that arrive together (they queue).
    std::vector<std::vector<Piece>> tenures = {
        {{base, 128, ns(200)}, {base + 128, 128, ns(360)}, {base + 256, 128, ns(520)}, {base + 384, 128, ns(680)}},
        {{0x127F80, 128, ns(700)}, {0x128000, 128, ns(700)}, {0x128080, 64, ns(705)}},
    };
    std::vector<uint8_t> data2(512);
    for (size_t i = 0; i < data2.size(); ++i) data2[i] = static_cast<uint8_t>(255 - i);
    for (auto& ps : tenures) {
      auto& buf = &ps == &tenures[0] ? data : data2;
      const uint64_t b = ps.front().addr;
      for (auto e : write_train(tc, ps, buf, b)) t_ends.push_back(e);
      for (auto& p : ps) s_ends.push_back(write_one(sc, p, buf, b));
    }
    // A later upstream write must queue behind both (FIFO per direction).
    t_ends.push_back(write_one(tc, {0x200000, 64, ns(710)}, data, 0x200000));
    s_ends.push_back(write_one(sc, {0x200000, 64, ns(710)}, data, 0x200000));
  };
  sc_core::sc_start();
  REQUIRE(t_ends.size() == 8);
  for (size_t i = 0; i < t_ends.size(); ++i) {
    INFO("piece " << i << ": train " << to_ns(t_ends[i]) << " ns, separate " << to_ns(s_ends[i]) << " ns");
    CHECK(t_ends[i] == s_ends[i]);
  }
  // The link's packets interleaved with the completion: someone waited.
  CHECK(tc.hub.pipe(HubLink::Dir::Up).wait_total() > SC_ZERO_TIME);
  for (const char* what : {".hub.packets", ".hub.up_payload_bytes", ".mch.inbound_writes", ".dram.writes",
                           ".dram.page_hits", ".dram.page_empty", ".dram.page_misses", ".dram.bytes_written"}) {
    INFO(what);
    CHECK(sim().counters.get(std::string("t") + what) == sim().counters.get(std::string("s") + what));
  }
  CHECK(sim().counters.get("t.mch.inbound_writes") == 8);
  CHECK(sim().counters.get("t.dram.page_misses") + sim().counters.get("t.dram.page_empty") >= 2);
  const IntervalResource &tp = tc.hub.pipe(HubLink::Dir::Up), &sp = sc.hub.pipe(HubLink::Dir::Up);
  CHECK(tp.busy_total() == sp.busy_total());
  CHECK(tp.wait_total() == sp.wait_total());
  CHECK(tp.grants() == sp.grants());
  CHECK(tp.free_at() == sp.free_at());
  CHECK(tc.dram.data_bus().busy_total() == sc.dram.data_bus().busy_total());
  CHECK(tc.dram.data_bus().wait_total() == sc.dram.data_bus().wait_total());
  CHECK(tc.dram.data_bus().free_at() == sc.dram.data_bus().free_at());
  CHECK(tc.snooped == sc.snooped);
  std::vector<uint8_t> a(1024), b(1024);
  tc.dram.read(base, a.data(), a.size());
  sc.dram.read(base, b.data(), b.size());
  CHECK(a == b);
  tc.dram.read(0x127F80, a.data(), 320);
  sc.dram.read(0x127F80, b.data(), 320);
  CHECK(a == b);
  CHECK(a[0] == 255);
}

}  // namespace bus_dma_train_test
