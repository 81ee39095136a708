// Two 8254x NICs on two fake hosts exchange frames over a crossover EthLink; the journey of a
// frame is followed from host A's buffer to host B's interrupt, with the time computed stage by stage.
#include "nic_e1000_bench.h"
#include "platforms/testbed.h"

// This file's own names, apart from the other files of a unity batch.
namespace bench::nic_e1000_pair_test {

namespace {
constexpr uint64_t kPairTxRing = 0x20000, kPairTxBufs = 0x200000, kPairRxRing = 0x10000, kPairRxBufs = 0x100000;
constexpr uint8_t kPairCmd = txcmd::EOP | txcmd::IFCS | txcmd::RS | txcmd::IDE;

struct Host {
  HostMem mem;
  Cpu cpu;
  std::unique_ptr<E1000> nic;
  IrqSink irq[2];
  Host(const char* tag, const char* variant_name, const E1000Params& p)
      : mem((std::string("mem_") + tag).c_str()), cpu((std::string("cpu_") + tag).c_str()) {
    nic = std::make_unique<E1000>((std::string("nic_") + tag).c_str(), variant(variant_name), p);
    cpu.socket.bind(nic->pci_target());
    nic->dma_initiator().bind(mem.socket);
    for (unsigned f = 0; f < nic->info().functions; ++f) {
      nic->set_bar(f, 0xF0000000 + 0x20000 * f);
      nic->irq_out(f).bind(irq[f]);
    }
  }
  void w(uint32_t off, uint32_t v) { cpu.write32(0xF0000000 + off, v); }
  uint32_t r(uint32_t off) { return cpu.read32(0xF0000000 + off); }
  void setup() {
    for (unsigned i = 0; i < 8; ++i) {
      uint8_t d[16] = {};
      store_le64(d, kPairRxBufs + 2048 * i);
      mem.write(kPairRxRing + 16 * i, d, 16);
    }
    w(RDBAL, kPairRxRing);
    w(RDLEN, 8 * 16);
    w(RDT, 7);
    w(RCTL, rctl::EN | rctl::BAM);
    std::vector<uint8_t> z(8 * 16, 0);
    mem.write(kPairTxRing, z.data(), z.size());
    w(TDBAL, kPairTxRing);
    w(TDLEN, 8 * 16);
    w(TCTL, tctl::EN | tctl::PSP);
    w(IMS, icr::RXT0);
  }
  void send(unsigned idx, const EthFrame& f) {
    mem.write(kPairTxBufs + 2048 * idx, f.bytes.data(), f.bytes.size());
    uint8_t d[16];
    encode_tx_desc(d, kPairTxBufs + 2048 * idx, uint16_t(f.bytes.size()), kPairCmd);
    mem.write(kPairTxRing + 16 * idx, d, 16);
  }
};
}  // namespace

TEST_CASE("Two NICs (82544GC and 82546EB) exchange frames over a crossover link", "[e1000][pair]") {
  E1000Params p;
  Host a("a", "82544GC", p), b("b", "82546EB", p);
  EthLink cable("cable", 1000, 3.0, *a.nic->eth_port(0), *b.nic->eth_port(0));
  JourneyId j = 0;
  const unsigned len = 100;
  run(
      [&] {
        a.setup();
        b.setup();
        for (unsigned i = 0; i < 3; ++i) {
          a.send(i, make_frame(b.nic->mac_address(0), len, uint8_t(10 + i)));
          b.send(i, make_frame(a.nic->mac_address(0), len, uint8_t(20 + i)));
        }
        j = sim().journeys.begin("A->B frame 0", us(10), "driver xmit", "a");
        dma_tags().tag(a.nic->dma_space(), kPairTxBufs, j);
        wait_until(us(10));
        a.w(TDT, 3);
        b.w(TDT, 3);
        wait_until(us(50));
      },
      us(50));
  // Both directions delivered, in order, with the bytes sent.
  for (auto* h : {&a, &b}) {
    uint8_t seed = h == &a ? 20 : 10;
    auto& peer_mac = h == &a ? a : b;
    (void)peer_mac;
    for (unsigned i = 0; i < 3; ++i) {
      RxDesc d;
      uint8_t raw[16];
      h->mem.read(kPairRxRing + 16 * i, raw, 16);
      d = decode_rx_desc(raw);
      CHECK(d.status == (rxsta::DD | rxsta::EOP));
      CHECK(d.length == len + 4);
      uint8_t x;
      h->mem.read(d.addr + 14, &x, 1);
      CHECK(uint8_t(x - 14) == uint8_t(seed + i));
    }
    CHECK(h->nic->peek(0, GPRC) == 3);
    CHECK(h->nic->peek(0, GPTC) == 3);
  }
  // Frame 0 A→B, stage by stage: A fetches 3 descriptors (48 B), reads 100 B, MAC+PHY, wire, 3 m of
  // cable, B's PHY+MAC, B writes 104 B, writes the descriptor back (RDTR = 0): interrupt.
  sc_time t = us(10) + txn_time(48) + dma_time(len, p.dma_read_burst_bytes);
  t += p.mac_tx_latency + p.phy_tx_latency + serialization_time(len, 1000) + propagation_delay(3.0, 5.0);
  t += p.phy_rx_latency + p.mac_rx_latency + dma_time(len + 4, p.dma_write_burst_bytes) + txn_time(16);
  auto irq_b = b.irq[0].assertions();
  REQUIRE(!irq_b.empty());
  CHECK(irq_b[0] == t);
  // The journey id travelled with the frame to B's RX buffer, and every stage was marked in order.
  CHECK(dma_tags().peek(b.nic->dma_space(), kPairRxBufs) == j);
  sim().journeys.finish(j, us(50));
  std::vector<std::string> stages;
  for (auto& m : sim().journeys.finished().back().marks)
    if (stages.empty() || stages.back() != m.stage) stages.push_back(m.stage);
  std::vector<std::string> want = {"driver xmit", "descriptor fetch", "data DMA", "MAC TX", "wire",
                                   "MAC RX", "RX FIFO", "RX DMA", "write-back", "interrupt"};
  CHECK(stages == want);
}

TEST_CASE("Device registry: the five 8254x variants with their bus facts and parameters", "[e1000][registry]") {
  auto& reg = Registry<DeviceEntry>::instance();
  for (const char* n : {"82544GC", "82544EI", "82540EM", "82545EM", "82546EB"}) REQUIRE(reg.find(n));
  const DeviceEntry* gc = reg.find("82544GC");
  CHECK(gc->info.width_bits == 32);
  CHECK_FALSE(gc->info.pcix_capable);
  CHECK(gc->info.max_mhz == 66);
  CHECK(gc->info.functions == 1);
  const DeviceEntry* eb = reg.find("82546EB");
  CHECK(eb->info.width_bits == 64);
  CHECK(eb->info.pcix_capable);
  CHECK(eb->info.functions == 2);
  CHECK(eb->ports == 2);
  ParamValues pv(eb->params);
  pv.set("clock_ppm", 50.0);
  pv.set("clock_ppm_spread", 0.0);  // exactly clock_ppm
  auto dev = eb->create("dut", pv);
  REQUIRE(dev);
  auto* nic = dynamic_cast<E1000*>(dev.get());
  REQUIRE(nic);
  CHECK(nic->clock().ppm() == 50.0);
  CHECK(nic->eth_ports() == 2);
  // With the default spread the offset is drawn from the run seed: clock_ppm + N(0, σ), the same
  // for the same instance name and seed, different between instances, clipped to ±100 ppm.
  ParamValues pr(eb->params);
  auto a1 = eb->create("seeded_a", pr);
  auto a2 = eb->create("seeded_b", pr);
  double p1 = dynamic_cast<E1000*>(a1.get())->clock().ppm(), p2 = dynamic_cast<E1000*>(a2.get())->clock().ppm();
  CHECK(p1 != p2);
  CHECK(std::abs(p1) <= 100.0);
  CHECK(std::abs(p2) <= 100.0);
}

}  // namespace bench::nic_e1000_pair_test
