// Pure tests of the 8254x interrupt-moderation rules (no SystemC kernel): every expected time is
// computed from the SDM rule as documented in models/nic/e1000/moderation.h.
#include "models/nic/e1000/moderation.h"
#include "models/nic/e1000/regs.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace nic_e1000_moderation_test {
using namespace nicsim;
using namespace nicsim::e1000;

namespace {
const double kTick = 1.024;  // µs per RDTR/RADV/TIDV/TADV count (SDM p=304)
Moderation make_moderation(bool gen82540 = true, double ppm = 0.0) {
  ModFeatures f{gen82540, gen82540, gen82540, !gen82540};
  return Moderation(f, ClockDomain("nic", 25e6, ppm));
}
/// Drive `m` to `t` the way the NIC does with zero write-back time: expiries raise their cause.
std::vector<ModExpiry> step(Moderation& m, const sc_time& t) {
  auto ex = m.advance(t);
  for (auto& e : ex)
    m.set_cause(e.at, (e.timer == ModTimer::TIDV || e.timer == ModTimer::TADV) ? icr::TXDW : icr::RXT0);
  return ex;
}
}  // namespace

TEST_CASE("RDTR restarts on every packet (82540+): one RXT0 RDTR×1.024 µs after the last", "[e1000][moderation]") {
  auto m = make_moderation();
  m.write_ims(us(0), icr::RXT0);
  m.write_rdtr(us(0), 20);
  for (double t : {10.0, 20.0, 30.0}) {
    step(m, us(t));
    CHECK(m.rx_packet_stored(us(t)) == ModOutcome::Delayed);
  }
  REQUIRE(m.next_deadline());
  CHECK(*m.next_deadline() == us(30 + 20 * kTick));
  auto ex = step(m, us(30 + 20 * kTick));
  REQUIRE(ex.size() == 1);
  CHECK(ex[0].timer == ModTimer::RDTR);
  CHECK(m.line());
  CHECK(m.assertions() == 1);
  CHECK(m.last_assertion() == us(50.48));
}

TEST_CASE("RDTR on the 82544 is started by the first packet and not restarted", "[e1000][moderation]") {
  auto m = make_moderation(false);
  m.write_ims(us(0), icr::RXT0);
  m.write_rdtr(us(0), 20);
  for (double t : {10.0, 20.0, 30.0}) {
    step(m, us(t));
    m.rx_packet_stored(us(t));
  }
  // First packet at 10 µs: expiry at 10 + 20.48 = 30.48 µs, after the third packet (30 µs).
  CHECK(m.assertions() == 0);
  auto ex = step(m, us(31));
  REQUIRE(ex.size() == 1);
  CHECK(ex[0].at == us(10 + 20 * kTick));
  CHECK(m.line());
}

TEST_CASE("RDTR=0 means an immediate RXT0 and disables RADV", "[e1000][moderation]") {
  auto m = make_moderation();
  m.write_rdtr(us(0), 0);
  m.write_radv(128);
  CHECK(m.rx_packet_stored(us(5)) == ModOutcome::Immediate);
  CHECK_FALSE(m.running(ModTimer::RADV));
  CHECK_FALSE(m.next_deadline());
}

TEST_CASE("RADV starts on the first packet, is not restarted, and halts RDTR", "[e1000][moderation]") {
  auto m = make_moderation();
  m.write_ims(us(0), icr::RXT0);
  m.write_rdtr(us(0), 20);
  m.write_radv(25);
  // Packets every 10 µs: RDTR (20.48 µs) never expires; RADV fires 25.6 µs after the first.
  std::vector<ModExpiry> all;
  for (double t = 10; t <= 30; t += 10) {
    auto e = step(m, us(t));
    all.insert(all.end(), e.begin(), e.end());
    m.rx_packet_stored(us(t));
  }
  auto e = step(m, us(36));
  all.insert(all.end(), e.begin(), e.end());
  REQUIRE(all.size() == 1);
  CHECK(all[0].timer == ModTimer::RADV);
  CHECK(all[0].at == us(10 + 25 * kTick));
  CHECK_FALSE(m.running(ModTimer::RDTR));  // reloaded but halted (SDM p=305)
  m.read_icr(us(36));
  // No spurious second interrupt from the halted RDTR.
  CHECK(step(m, us(200)).empty());
  CHECK(m.assertions() == 1);
}

TEST_CASE("RDTR expiry leaves RADV re-initialised but not started", "[e1000][moderation]") {
  auto m = make_moderation();
  m.write_rdtr(us(0), 10);
  m.write_radv(100);
  m.rx_packet_stored(us(1));
  auto e = step(m, us(20));
  REQUIRE(e.size() == 1);
  CHECK(e[0].timer == ModTimer::RDTR);
  CHECK(e[0].at == us(1 + 10 * kTick));
  CHECK_FALSE(m.running(ModTimer::RADV));
  // The next packet starts RADV afresh (first packet after the interrupt).
  m.rx_packet_stored(us(30));
  REQUIRE(m.deadline(ModTimer::RADV));
  CHECK(*m.deadline(ModTimer::RADV) == us(30 + 100 * kTick));
}

TEST_CASE("FPD acts on the RDTR write: immediate flush, both RX timers stop, FPD reads 0", "[e1000][moderation]") {
  auto m = make_moderation();
  m.write_rdtr(us(0), 100);
  m.write_radv(200);
  m.rx_packet_stored(us(1));
  m.write_rdtr(us(7), 100 | rdtr::FPD);
  CHECK(m.rdtr() == 100);
  auto e = m.advance(us(7));
  REQUIRE(e.size() == 1);
  CHECK(e[0].timer == ModTimer::FPD);
  CHECK(e[0].at == us(7));
  CHECK_FALSE(m.running(ModTimer::RDTR));
  CHECK_FALSE(m.running(ModTimer::RADV));
}

TEST_CASE("TIDV counts from the RS+IDE write-back and restarts, IDE=0 is immediate", "[e1000][moderation]") {
  auto m = make_moderation();
  m.write_ims(us(0), icr::TXDW);
  m.write_tidv(10);
  CHECK(m.tx_descriptor_written_back(us(5), true) == ModOutcome::Delayed);
  CHECK(m.tx_descriptor_written_back(us(9), true) == ModOutcome::Delayed);
  auto e = step(m, us(30));
  REQUIRE(e.size() == 1);
  CHECK(e[0].timer == ModTimer::TIDV);
  CHECK(e[0].at == us(9 + 10 * kTick));
  CHECK(m.tx_descriptor_written_back(us(40), false) == ModOutcome::Immediate);
}

TEST_CASE("TADV starts once, fires before a restarting TIDV, and halts it", "[e1000][moderation]") {
  auto m = make_moderation();
  m.write_ims(us(0), icr::TXDW);
  m.write_tidv(10);
  m.write_tadv(12);
  for (double t : {5.0, 10.0, 15.0}) m.tx_descriptor_written_back(us(t), true);
  auto e = step(m, us(40));
  REQUIRE(e.size() == 1);
  CHECK(e[0].timer == ModTimer::TADV);
  CHECK(e[0].at == us(5 + 12 * kTick));  // TIDV alone would fire at 15 + 10.24
  CHECK(m.expiries(ModTimer::TIDV) == 0);
}

TEST_CASE("An immediate TX interrupt and a TIDV expiry halt TADV", "[e1000][moderation]") {
  auto m = make_moderation();
  m.write_tidv(10);
  m.write_tadv(50);
  m.tx_descriptor_written_back(us(1), true);
  CHECK(m.running(ModTimer::TADV));
  m.tx_descriptor_written_back(us(2), false);
  CHECK_FALSE(m.running(ModTimer::TADV));
  m.tx_descriptor_written_back(us(3), true);
  auto e = step(m, us(20));
  REQUIRE(e.size() == 1);
  CHECK(e[0].timer == ModTimer::TIDV);
  CHECK_FALSE(m.running(ModTimer::TADV));
}

TEST_CASE("ITR merges causes and measures the interval from the last assertion", "[e1000][moderation]") {
  auto m = make_moderation();
  m.write_ims(us(0), icr::RXT0 | icr::TXDW);
  m.write_itr(us(0), 100);  // 100 × 256 ns = 25.6 µs
  m.set_cause(us(10), icr::RXT0);
  CHECK(m.line());
  CHECK(m.last_assertion() == us(10));
  CHECK(m.read_icr(us(11)) == icr::RXT0);
  CHECK_FALSE(m.line());
  m.set_cause(us(15), icr::TXDW);
  m.set_cause(us(20), icr::RXT0);
  CHECK_FALSE(m.line());
  CHECK(m.itr_holding());
  REQUIRE(m.next_deadline());
  CHECK(*m.next_deadline() == us(35.6));
  m.advance(us(35.6));
  CHECK(m.line());
  CHECK(m.assertions() == 2);
  CHECK(m.read_icr(us(36)) == (icr::RXT0 | icr::TXDW));
  m.set_cause(us(70), icr::RXT0);  // long after 35.6 + 25.6: no hold
  CHECK(m.line());
  CHECK(m.last_assertion() == us(70));
}

TEST_CASE("ITR=0 does not throttle, masked causes do not assert, the level follows ICR and IMS", "[e1000][moderation]") {
  auto m = make_moderation();
  m.write_ims(us(0), icr::RXT0);
  m.set_cause(us(1), icr::RXT0);
  CHECK(m.line());
  m.read_icr(us(2));
  m.set_cause(us(2.1), icr::RXT0);
  CHECK(m.line());
  CHECK(m.assertions() == 2);
  m.write_imc(us(3), icr::RXT0);
  CHECK_FALSE(m.line());
  m.set_cause(us(4), icr::TXDW);  // not enabled in IMS
  CHECK_FALSE(m.line());
  m.write_ims(us(5), icr::TXDW);
  CHECK(m.line());
  m.clear_causes(us(6), icr::TXDW | icr::RXT0);
  CHECK_FALSE(m.line());
}

TEST_CASE("Registers the 82544 lacks ignore writes and read 0", "[e1000][moderation]") {
  auto m = make_moderation(false);
  m.write_itr(us(0), 100);
  m.write_radv(50);
  m.write_tadv(50);
  CHECK(m.itr() == 0);
  CHECK(m.radv() == 0);
  CHECK(m.tadv() == 0);
  m.write_ims(us(0), icr::RXT0);
  m.set_cause(us(1), icr::RXT0);
  m.read_icr(us(1.5));
  m.set_cause(us(2), icr::RXT0);
  CHECK(m.line());
  CHECK(m.last_assertion() == us(2));
}

TEST_CASE("Timers tick from the NIC clock: a +100 ppm crystal shortens RDTR by 100 ppm", "[e1000][moderation]") {
  auto m = make_moderation(true, 100.0);
  m.write_rdtr(us(0), 1000);
  m.rx_packet_stored(us(0));
  REQUIRE(m.next_deadline());
  CHECK(to_us(*m.next_deadline()) == Approx(1024.0 / 1.0001).epsilon(1e-9));
}

}  // namespace nic_e1000_moderation_test
