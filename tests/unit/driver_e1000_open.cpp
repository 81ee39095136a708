// e1000 driver model: what probe and open write to the real 8254x model, per MAC type and driver
// version (e1000_main.c configure_tx/configure_rx; research/intel-8254x-e1000-e100.md §2).
#include "driver_e1000_harness.h"
#include <catch2/catch.hpp>
#include <set>

// This file's own names, apart from the other files of a unity batch.
namespace driver_e1000_open_test {
using namespace drvtest;
using namespace nicsim::e1000drv;

namespace {
struct Want {
  uint32_t off;
  uint32_t v;
};
/// True when the writes to BAR `bar` issued at or after `from` contain `want` in this order.
bool ordered_writes(const TestHost& hw, uint64_t bar, sc_time from, const std::vector<Want>& want, std::string& missing) {
  size_t k = 0;
  for (const auto& m : hw.mmio) {
    if (k == want.size()) break;
    if (m.write && m.t >= from && m.addr == bar + want[k].off && m.v == want[k].v) ++k;
  }
  if (k < want.size()) {
    char b[64];
    std::snprintf(b, sizeof b, "offset 0x%05x = %u (entry %zu)", want[k].off, want[k].v, k);
    missing = b;
  }
  return k == want.size();
}
bool wrote(const TestHost& hw, uint64_t addr) { return !hw.accesses(addr, true).empty(); }
}  // namespace

TEST_CASE("e1000 4.4.12-k1 on an 82546EB: probe names both ports and open writes TIDV TADV RDTR RADV ITR=488 and IMS",
          "[e1000drv]") {
  TestHost hw("alpha");
  e1000::E1000 nic("alpha_eth1", e1000::variant("82546EB"));
  auto vec = hw.attach("pcix", nic);
  Kernel k(hw, kernel_params("alpha"));
  const DriverEntry* de = driver("e1000-4.4.12-k1");
  REQUIRE(de);
  auto devs = de->probe(k, nic, vec, nic_config("alpha", "eth1", "82546EB", de->name), ParamValues(de->params));
  REQUIRE(devs.size() == 2);
  auto* a = dynamic_cast<Adapter*>(devs[0].get());
  REQUIRE(a);
  sc_time t_open = sc_core::SC_ZERO_TIME;
  int rc = -99;
  auto ifup = [&]() -> Task<void> {
    t_open = now();
    rc = co_await k.dev_open(*devs[0]);
  };
  k.spawn_process("ifup", ifup());
  sc_core::sc_start(ms(5));

  REQUIRE(rc == 0);
  CHECK(k.dev_get("eth1") == devs[0].get());
  CHECK(k.dev_get("eth1:1") == devs[1].get());
  CHECK(devs[0]->irq == vec[0]);
  CHECK(devs[1]->irq == vec[1]);
  // The station addresses the hardware holds (port B = port A with the last bit flipped).
  CHECK(devs[0]->dev_addr == nic.mac_address(0));
  CHECK(devs[1]->dev_addr == nic.mac_address(1));
  CHECK(a->mac_type() == e1000_82546);

  const uint64_t bar = nic.bar(0);
  const auto tx = a->tx_ring_state(), rx = a->rx_ring_state();
  CHECK(tx.count == 256);  // TxDescriptors default
  CHECK(rx.count == 80);   // RxDescriptors default (4.4.12)
  // e1000_up order: configure_tx, setup_rctl, configure_rx, alloc_rx_buffers, IMS.
  const uint32_t tipg = 8 | (8 << 10) | (6 << 20);  // IPGT 8, IPGR1 8, IPGR2 6 (82543+ copper)
  std::vector<Want> want = {
      {E1000_TDBAL, uint32_t(tx.dma)}, {E1000_TDBAH, 0}, {E1000_TDLEN, 256 * 16}, {E1000_TDH, 0}, {E1000_TDT, 0},
      {E1000_TIPG, tipg},              {E1000_TIDV, 64}, {E1000_TADV, 64},
      {E1000_RDTR, 0},                 {E1000_RADV, 128},
      {E1000_ITR, 488},  // 1e9 / (8000 × 256 ns), research §2
      {E1000_RDBAL, uint32_t(rx.dma)}, {E1000_RDBAH, 0}, {E1000_RDLEN, 80 * 16}, {E1000_RDH, 0}, {E1000_RDT, 0},
      // alloc_rx_buffers fills all 80 and hands them over at every 16th index
      {E1000_RDT, 0},                  {E1000_RDT, 16},  {E1000_RDT, 32}, {E1000_RDT, 48}, {E1000_RDT, 64},
      {E1000_IMS, 0x80 | 0x01 | 0x10 | 0x08 | 0x04},  // RXT0 | TXDW | RXDMT0 | RXSEQ | LSC
  };
  std::string missing;
  const bool in_order_ok = ordered_writes(hw, bar, t_open, want, missing);
  INFO(missing);
  CHECK(in_order_ok);
  CHECK(hw.writes(bar + E1000_ITR).size() == 1);
  // The registers as the hardware holds them.
  CHECK(nic.peek(0, e1000::ITR) == 488);
  CHECK(nic.peek(0, e1000::RADV) == 128);
  CHECK(nic.peek(0, e1000::TADV) == 64);
  CHECK(nic.peek(0, e1000::TIDV) == 64);
  CHECK(nic.peek(0, e1000::RDTR) == 0);
  CHECK(nic.peek(0, e1000::IMS) == 0x9D);
  CHECK(nic.peek(0, e1000::RDT) == 64);
  const uint32_t rctl = nic.peek(0, e1000::RCTL);
  CHECK((rctl & e1000::rctl::EN));
  CHECK((rctl & e1000::rctl::BAM));
  CHECK(e1000::rx_buffer_bytes(rctl) == 2048);
  CHECK((nic.peek(0, e1000::TCTL) & e1000::tctl::EN));
  // Every frame arms TIDV: IFCS | IDE | RS (the 82546 reports status with RS).
  CHECK(a->txd_cmd() == (E1000_TXD_CMD_IFCS | E1000_TXD_CMD_IDE | E1000_TXD_CMD_RS));
  CHECK(a->rx_buffer_len() == 2048);
  // The RX ring in memory: 80 distinct 2048-byte buffers, each 2 bytes past a 16-byte boundary.
  std::set<uint64_t> bufs;
  for (unsigned i = 0; i < 80; ++i) {
    uint8_t d[16];
    hw.mem_read(rx.dma + 16 * i, d, 16);
    uint64_t addr;
    std::memcpy(&addr, d, 8);
    CHECK(addr % 16 == 2);
    bufs.insert(addr);
  }
  CHECK(bufs.size() == 80);
  // Port B was probed (reset, addresses) but not opened: no rings, interrupts masked.
  CHECK_FALSE(wrote(hw, nic.bar(1) + E1000_TDLEN));
  CHECK(nic.peek(1, e1000::IMS) == 0);
}

TEST_CASE("e1000 4.4.12-k1 on an 82544GC: ITR and RADV and TADV are never written (mac_type < 82540)", "[e1000drv]") {
  TestHost hw("alpha");
  e1000::E1000 nic("alpha_eth0", e1000::variant("82544GC"));
  auto vec = hw.attach("lan", nic);
  Kernel k(hw, kernel_params("alpha"));
  const DriverEntry* de = driver("e1000-4.4.12-k1");
  REQUIRE(de);
  auto devs = de->probe(k, nic, vec, nic_config("alpha", "eth0", "82544GC", de->name), ParamValues(de->params));
  REQUIRE(devs.size() == 1);
  auto* a = dynamic_cast<Adapter*>(devs[0].get());
  sc_time t_open = sc_core::SC_ZERO_TIME;
  int rc = -99;
  auto ifup = [&]() -> Task<void> {
    t_open = now();
    rc = co_await k.dev_open(*devs[0]);
  };
  k.spawn_process("ifup", ifup());
  sc_core::sc_start(ms(5));

  REQUIRE(rc == 0);
  CHECK(a->mac_type() == e1000_82544);
  const uint64_t bar = nic.bar(0);
  CHECK_FALSE(wrote(hw, bar + E1000_ITR));
  CHECK_FALSE(wrote(hw, bar + E1000_RADV));
  CHECK_FALSE(wrote(hw, bar + E1000_TADV));
  std::vector<Want> want = {{E1000_TDLEN, 256 * 16}, {E1000_TIDV, 64}, {E1000_RDTR, 0}, {E1000_RDLEN, 80 * 16},
                            {E1000_RDT, 64},         {E1000_IMS, 0x9D}};
  std::string missing;
  const bool in_order_ok = ordered_writes(hw, bar, t_open, want, missing);
  INFO(missing);
  CHECK(in_order_ok);
  CHECK(nic.peek(0, e1000::TIDV) == 64);
  CHECK(nic.peek(0, e1000::RDTR) == 0);
  CHECK(nic.peek(0, e1000::IMS) == 0x9D);
  // 82543 and later report status with RS (RPS only before the 82543).
  CHECK(a->txd_cmd() == (E1000_TXD_CMD_IFCS | E1000_TXD_CMD_IDE | E1000_TXD_CMD_RS));
  CHECK(devs[0]->dev_addr == nic.mac_address(0));
}

TEST_CASE("e1000 5.0.43-k1 on 82546EBs: InterruptThrottleRate N gives ITR 1e9/(256 N) and 0 off and 1 dynamic "
          "from the watchdog with RxDescriptors 256",
          "[e1000drv]") {
  TestHost hw("alpha");
  const DriverEntry* de = driver("e1000-5.0.43-k1");
  REQUIRE(de);
  const int64_t rates[3] = {20000, 0, 1};
  std::vector<std::unique_ptr<e1000::E1000>> nics;
  std::vector<std::vector<unsigned>> vecs;
  for (int i = 0; i < 3; ++i) {
    nics.push_back(std::make_unique<e1000::E1000>(("alpha_eth" + std::to_string(i + 1)).c_str(),
                                                  e1000::variant("82546EB")));
    vecs.push_back(hw.attach("pcix", *nics.back()));
  }
  Kernel k(hw, kernel_params("alpha"));
  std::vector<std::shared_ptr<NetDevice>> devs;
  for (int i = 0; i < 3; ++i) {
    ParamValues pv(de->params);
    pv.set("InterruptThrottleRate", rates[i]);
    auto d = de->probe(k, *nics[i], vecs[i], nic_config("alpha", "eth" + std::to_string(i + 1), "82546EB", de->name),
                       pv);
    devs.push_back(d[0]);
    devs.push_back(d[1]);
  }
  sc_time t_opened = sc_core::SC_ZERO_TIME;
  auto ifup = [&]() -> Task<void> {
    for (int i = 0; i < 3; ++i) {
      const int rc = co_await k.dev_open(*devs[2 * i]);
      if (rc != 0) co_return;
    }
    t_opened = now();
  };
  k.spawn_process("ifup", ifup());
  const sc_time tick = tick_period(100);
  sc_core::sc_start(tick + ms(3));  // past the first watchdog run (first tick after open)

  REQUIRE(t_opened > sc_core::SC_ZERO_TIME);
  REQUIRE(t_opened < tick);
  const uint32_t itr_20000 = 1000000000u / (20000u * 256u);  // SDM p=305: ITR counts 256 ns
  const uint32_t itr_8000 = 1000000000u / (8000u * 256u);    // dynamic mode without traffic: 8000/s
  // Fixed rate: written by configure_rx.
  CHECK(hw.writes(nics[0]->bar(0) + E1000_ITR) == std::vector<uint32_t>{itr_20000});
  CHECK(nics[0]->peek(0, e1000::ITR) == itr_20000);
  // 0: never written, the reset value 0 (no throttling) stays.
  CHECK(hw.writes(nics[1]->bar(0) + E1000_ITR).empty());
  CHECK(nics[1]->peek(0, e1000::ITR) == 0);
  // 1 (dynamic): not written at open; the first watchdog (first tick) writes 8000/s.
  auto w = hw.accesses(nics[2]->bar(0) + E1000_ITR, true);
  REQUIRE(w.size() == 1);
  CHECK(w[0].v == itr_8000);
  CHECK(w[0].t > tick);
  CHECK(nics[2]->peek(0, e1000::ITR) == itr_8000);
  // RxDescriptors 256 (5.0.43): RDLEN 4096, buffers handed over at indices 0, 16, ..., 240.
  for (auto& n : nics) {
    CHECK(n->peek(0, e1000::RDLEN) == 256 * 16);
    CHECK(n->peek(0, e1000::RDT) == 240);
  }
  std::vector<uint32_t> rdt = {0};  // configure_rx
  for (uint32_t i = 0; i < 256; i += 16) rdt.push_back(i);
  CHECK(hw.writes(nics[0]->bar(0) + E1000_RDT) == rdt);
  // Everything else is the 4.4.x code: TIDV 64, RADV 128, TADV 64, RDTR 0.
  CHECK(nics[0]->peek(0, e1000::TIDV) == 64);
  CHECK(nics[0]->peek(0, e1000::RADV) == 128);
  CHECK(nics[0]->peek(0, e1000::TADV) == 64);
  CHECK(nics[0]->peek(0, e1000::RDTR) == 0);
}

namespace {
/// Open eth0 (an 8254x `part`) with e1000 4.2.8-k1 defaults; checks the delay registers
/// (research/seeds-001-004-platforms-drivers.md §2.2, LH@a4358d3aab e1000_main.c configure_rx/tx).
void check_428_open(const char* part) {
  TestHost hw("alpha");
  e1000::E1000 nic("alpha_eth0", e1000::variant(part));
  auto vec = hw.attach("lan", nic);
  Kernel k(hw, kernel_params("alpha"));
  const DriverEntry* de = driver("e1000-4.2.8-k1");
  REQUIRE(de);
  auto devs = de->probe(k, nic, vec, nic_config("alpha", "eth0", part, de->name), ParamValues(de->params));
  REQUIRE(devs.size() == 1);
  int rc = -99;
  auto ifup = [&]() -> Task<void> { rc = co_await k.dev_open(*devs[0]); };
  k.spawn_process("ifup", ifup());
  sc_core::sc_start(ms(5));
  REQUIRE(rc == 0);
  const uint64_t bar = nic.bar(0);
  CHECK(nic.peek(0, e1000::TIDV) == 64);
  CHECK(nic.peek(0, e1000::RDTR) == 64);
  CHECK_FALSE(wrote(hw, bar + E1000_TADV));
  if (std::string(part) == "82544GC") {
    CHECK_FALSE(wrote(hw, bar + E1000_RADV));
    CHECK_FALSE(wrote(hw, bar + E1000_ITR));
  } else {
    CHECK(nic.peek(0, e1000::RADV) == 128);
    CHECK(nic.peek(0, e1000::ITR) == 488);
  }
}
}  // namespace

TEST_CASE("e1000 4.2.8-k1 open on an 82544GC: RDTR 64 and TIDV 64, no RADV or ITR or TADV", "[e1000drv]") {
  check_428_open("82544GC");
}

TEST_CASE("e1000 4.2.8-k1 open on an 82540EM: RDTR 64 and RADV 128 and ITR 488 and TIDV 64, no TADV", "[e1000drv]") {
  check_428_open("82540EM");
}

}  // namespace driver_e1000_open_test
