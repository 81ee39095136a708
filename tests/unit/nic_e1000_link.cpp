// 8254x link faults on the register-level bench (no driver): STATUS.LU and ICR.LSC follow the
// internal PHY's link monitor (SDM §13.4.17: LSC "each time the link status changes"; §3.4.3 the
// PHY's LINK indication; research/link-faults-failover.md §A1/§A2), the MAC holds frames while
// the link is down (SDM §8.6.5.2), CTRL.SLU|ILOS forces the link (e1000 5.0.43's e1000_tx_flush),
// and frames with a bad FCS are dropped into CRCERRS only when they pass the address filter, frames
// the PHY flagged with RX_ER into RXERRC.
#include "nic_e1000_bench.h"
#include "models/ether/link_faults.h"

// This file's own names, apart from the other files of a unity batch.
namespace nic_e1000_link_test {
using namespace bench;

namespace {
constexpr uint64_t kRing = 0x20000, kBufs = 0x200000, kRxRing = 0x40000, kRxBufs = 0x300000;
constexpr uint8_t kCmd = txcmd::EOP | txcmd::IFCS | txcmd::RS;
std::vector<uint8_t> frame_bytes(unsigned len, uint8_t seed) {
  return make_frame({0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0F}, len, seed).bytes;
}
/// The NIC's link-fail timer on bench link 0 (the NIC is side 0).
sc_time nic_fail(Bench& b) {
  return phy_timers(1000).link_fail(LinkFaults(*b.links[0]).master(0));
}
}  // namespace

TEST_CASE("8254x cable pull: STATUS.LU clears and ICR.LSC interrupts after the PHY link-fail timer then again on link up", "[e1000][faults]") {
  Bench b("82546EB");
  LinkFaults(*b.links[0]).schedule_cable(ms(10), false);
  LinkFaults(*b.links[0]).schedule_cable(ms(1500), true);
  std::vector<std::pair<sc_time, uint32_t>> icr;
  bool lu_at_pull = false, lu_before_fail = false, lu_after_fail = true, lu_end = false;
  run(
      [&] {
        b.w(0, IMS, icr::LSC);
        wait_until(ms(10) + ns(1));
        lu_at_pull = b.r(0, STATUS) & status::LU;  // the PHY still has link: the timer runs
        wait_until(ms(10) + nic_fail(b) - us(1));
        lu_before_fail = b.r(0, STATUS) & status::LU;
        wait_until(ms(10) + nic_fail(b) + us(1));
        lu_after_fail = b.r(0, STATUS) & status::LU;
        icr.push_back({now(), b.r(0, ICR)});
        wait_until(ms(1500) + phy_timers(1000).link_up + us(1));
        lu_end = b.r(0, STATUS) & status::LU;
        icr.push_back({now(), b.r(0, ICR)});
      },
      sec(3));
  CHECK(lu_at_pull);
  CHECK(lu_before_fail);
  CHECK_FALSE(lu_after_fail);
  CHECK(lu_end);
  REQUIRE(icr.size() == 2);
  CHECK((icr[0].second & icr::LSC));
  CHECK((icr[1].second & icr::LSC));
  // INTA# rose when the PHY declared each change (LSC is not an RX-delay cause: no moderation here).
  auto rises = b.irq[0].assertions();
  REQUIRE(rises.size() == 2);
  CHECK(rises[0] == ms(10) + nic_fail(b));
  CHECK(rises[1] == ms(1500) + phy_timers(1000).link_up);
}

TEST_CASE("8254x without link holds posted frames and sends them when the link returns", "[e1000][faults]") {
  Bench b("82546EB");
  LinkFaults(*b.links[0]).schedule_cable(ms(1), false);
  LinkFaults(*b.links[0]).schedule_cable(ms(1000), true);
  run(
      [&] {
        b.setup_tx(0, kRing, 8);
        wait_until(ms(1) + nic_fail(b) + us(1));  // link down
        b.put_tx(kRing, 0, kBufs, frame_bytes(60, 1), kCmd);
        b.put_tx(kRing, 1, kBufs + 2048, frame_bytes(1514, 2), kCmd);
        b.w(0, TDT, 2);
        wait_until(ms(999));
        CHECK(b.peers[0]->rx.empty());
        // Not sent: the MAC is disabled. (RS write-back still happens once the data is in the TX
        // packet buffer; only RPS waits for the send, SDM §3.3.3.1: the frames wait in the NIC.)
        CHECK(b.nic->peek(0, GPTC) == 0);
        wait_until(sec(3));
      },
      sec(3));
  REQUIRE(b.peers[0]->rx.size() == 2);
  CHECK(b.peers[0]->rx[0].t > ms(1000) + phy_timers(1000).link_up);
  CHECK(b.peers[0]->rx[0].t < ms(1000) + phy_timers(1000).link_up + us(20));
  CHECK((b.tx_desc(kRing, 1).sta & txsta::DD));
  CHECK(LinkFaults::lost(*b.links[0], 0) == 0);
}

TEST_CASE("8254x CTRL.SLU with ILOS forces the link: held frames go out onto the dead wire and are lost there", "[e1000][faults]") {
  Bench b("82546EB");
  LinkFaults(*b.links[0]).schedule_cable(ms(1), false);
  uint32_t icr_after = 0;
  run(
      [&] {
        b.setup_tx(0, kRing, 8);
        wait_until(ms(1) + nic_fail(b) + us(1));
        (void)b.r(0, ICR);  // the link-down LSC
        b.put_tx(kRing, 0, kBufs, frame_bytes(60, 1), kCmd);
        b.w(0, TDT, 1);
        wait_until(now() + us(50));
        CHECK(b.nic->peek(0, GPTC) == 0);
        const uint32_t ctrl = b.r(0, CTRL);
        b.w(0, CTRL, ctrl | ctrl::SLU | ctrl::ILOS);  // e1000_tx_flush: force link up
        wait_until(now() + ms(10));                  // mdelay(10)
        b.w(0, CTRL, ctrl);
        icr_after = b.r(0, ICR);
      },
      sec(1));
  CHECK(b.nic->peek(0, GPTC) == 1);                   // counted as sent
  CHECK((b.tx_desc(kRing, 0).sta & txsta::DD));
  CHECK(LinkFaults::lost(*b.links[0], 0) == 1);                     // lost on the wire
  CHECK(b.peers[0]->rx.empty());
  CHECK((icr_after & icr::LSC));                       // "the link status change interrupts this caused"
  CHECK_FALSE((b.nic->peek(0, STATUS) & status::LU));  // restored: the PHY still has no link
}

TEST_CASE("8254x bad FCS: dropped and counted in CRCERRS when the address matches and counted nowhere when it does not", "[e1000][faults]") {
  Bench b("82546EB");
  LinkFaults(*b.links[0]).add_error_window(1, SC_ZERO_TIME, sec(1), 1.0);  // peer -> NIC: every frame corrupted
  const auto mac = b.nic->mac_address(0);
  run(
      [&] {
        b.setup_rx(0, kRxRing, 8, kRxBufs, 7);
        for (int i = 0; i < 5; ++i) b.peers[0]->send(make_frame(mac, 1514, uint8_t(i)), now());
        for (int i = 0; i < 3; ++i) b.peers[0]->send(make_frame({0x00, 0x01, 0x02, 0x03, 0x04, 0x05}, 60), now());
        wait_until(ms(1));
      },
      ms(1));
  CHECK(b.nic->peek(0, CRCERRS) == 5);
  CHECK(b.nic->peek(0, GPRC) == 0);
  CHECK(b.nic->peek(0, TPR) == 8);  // TPR counts every packet received, errors included (SDM §13.7)
  CHECK(sim().counters.get("nic.port0.rx_filtered") == 3);
  auto t = b.nic->eth_port(0)->tally();
  REQUIRE(t);
  uint64_t crc = 0;
  for (auto& [why, n] : t->dropped)
    if (why == "bad FCS (CRCERRS)") crc = n;
  CHECK(crc == 5);
  CHECK_FALSE((b.rx_desc(kRxRing, 0).status & rxsta::DD));
}

TEST_CASE("8254x symbol errors: frames the PHY flags with RX_ER count in RXERRC and not in CRCERRS", "[e1000][faults]") {
  Bench b("82546EB");
  LinkFaults(*b.links[0]).add_error_window(1, SC_ZERO_TIME, sec(1), 1.0, true);  // peer -> NIC: every frame RX_ER
  const auto mac = b.nic->mac_address(0);
  run(
      [&] {
        b.setup_rx(0, kRxRing, 8, kRxBufs, 7);
        for (int i = 0; i < 4; ++i) b.peers[0]->send(make_frame(mac, 1514, uint8_t(i)), now());
        for (int i = 0; i < 2; ++i) b.peers[0]->send(make_frame({0x00, 0x01, 0x02, 0x03, 0x04, 0x05}, 60), now());
        wait_until(ms(1));
      },
      ms(1));
  CHECK(b.nic->peek(0, RXERRC) == 4);  // "must pass address filtering" as CRCERRS (SDM §13.7)
  CHECK(b.nic->peek(0, CRCERRS) == 0);
  CHECK(b.nic->peek(0, GPRC) == 0);
  CHECK(b.nic->peek(0, TPR) == 6);
  CHECK(sim().counters.get("nic.port0.rx_filtered") == 2);
  auto t = b.nic->eth_port(0)->tally();
  REQUIRE(t);
  uint64_t rxer = 0;
  for (auto& [why, n] : t->dropped)
    if (why == "PHY receive error, RX_ER (RXERRC)") rxer = n;
  CHECK(rxer == 4);
}

}  // namespace nic_e1000_link_test
