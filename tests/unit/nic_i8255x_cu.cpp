// Command unit over a command block list and transmit at 100 Mb/s (tests/unit/nic_i8255x_bench.h).
#include "tests/unit/nic_i8255x_bench.h"

// This file's own names, apart from the other files of a unity batch.
namespace bench8255x::nic_i8255x_cu_test {

namespace {
std::vector<uint8_t> cu_frame_bytes(const std::array<uint8_t, 6>& dst, unsigned len, uint8_t seed) {
  return make_frame(dst, len, seed).bytes;
}
const std::array<uint8_t, 6> kCuPeerMac = {0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E};
}  // namespace

TEST_CASE("i8255x CU: simplified TxCB with EL and I: wire timing at 100 Mb/s, C/OK, CX and CNA", "[i8255x][cu]") {
  I8255xParams p;  // dma_burst_bytes 64
  Bench b("82559", p);
  auto fr = cu_frame_bytes(kCuPeerMac, 100, 7);
  b.put_tx_simple(0x2000, uint16_t(cb::EL | cb::I), kNullLink, fr);
  sc_time t_accept;
  run([&] {
    b.w32(SCBPointer, 0x2000);
    b.w8(SCBCmd, uint8_t(cuc::START << 4));
    t_accept = now() + p.scb_accept;
    wait_until(t_accept + us(500));
  }, us(600));
  // CB header (8 B), the rest of the TCB (8 B), the data in bursts of 64 + 36 on the bench bus.
  sc_time data_in = t_accept + txn_time(8) + txn_time(8) + txn_time(64) + txn_time(36);
  sc_time start = data_in + p.mac_tx_latency + p.phy_tx_latency;
  sc_time end = start + serialization_time(100, 100);
  REQUIRE(b.peer.rx.size() == 1);
  CHECK(b.peer.rx[0].f.bytes == fr);
  CHECK(b.peer.rx[0].t == end + propagation_delay(Bench::kCableM, 5.0));
  CHECK(b.get16(0x2000) == (cb::C | cb::OK));
  REQUIRE(b.irq.assertions().size() == 1);
  // The status write-back, the re-read of the command word and link (EL/S sampled at completion),
  // then CX|CNA.
  CHECK(b.irq.assertions()[0] == end + txn_time(2) + txn_time(6));
  CHECK(b.nic->cu_state() == Cus::Idle);
  CHECK(b.nic->stat(XmtGoodFrames) == 1);
  // 100 Mb/s: a 100-byte frame is 8 + 104 bytes of 80 ns on the wire.
  CHECK(serialization_time(100, 100) == ns(112 * 80));
}

TEST_CASE("i8255x CU: S bit suspends with CNA, CU Resume runs the next CB, CX only on I", "[i8255x][cu]") {
  Bench b("82558B0");
  auto f1 = cu_frame_bytes(kCuPeerMac, 60, 1), f2 = cu_frame_bytes(kCuPeerMac, 80, 2);
  b.put_tx_simple(0x2000, cb::S, 0x2100, f1);
  b.put_tx_simple(0x2100, uint16_t(cb::EL | cb::I), kNullLink, f2);
  run([&] {
    b.command(uint8_t(cuc::START << 4), 0x2000);
    wait_until(now() + us(100));
    CHECK(b.cus() == Cus::Suspended);
    CHECK(b.peer.rx.size() == 1);
    CHECK((b.status() & stat::CNA));
    CHECK((b.status() & stat::CX) == 0);  // no I bit on the first CB
    CHECK(b.get16(0x2100) == 0);          // not reached
    b.ack(stat::CNA);
    CHECK_FALSE(b.irq.level);
    b.command(uint8_t(cuc::RESUME << 4));
    wait_until(now() + us(100));
    CHECK(b.cus() == Cus::Idle);
    REQUIRE(b.peer.rx.size() == 2);
    CHECK(b.peer.rx[1].f.bytes == f2);
    CHECK((b.status() & (stat::CX | stat::CNA)) == (stat::CX | stat::CNA));
    b.ack(0xFF00);
    b.command(uint8_t(cuc::RESUME << 4));  // resume while idle: ignored
    wait_until(now() + us(100));
    CHECK(b.peer.rx.size() == 2);
    CHECK(b.cus() == Cus::Idle);
  }, us(1000));
}

TEST_CASE("i8255x CU: flexible TxCB gathers the TBD array, NOP and IA setup in the same CBL", "[i8255x][cu]") {
  Bench b("82559");
  auto fr = cu_frame_bytes(kCuPeerMac, 120, 3);
  // NOP → IA setup → TxCB (flexible, two TBDs) with EL.
  b.put_cb(0x1000, cb::NOP, 0x1100);
  b.put_cb(0x1100, cb::IA_SETUP, 0x1200);
  const uint8_t ia[6] = {0x00, 0x90, 0x27, 0x11, 0x22, 0x34};
  b.host.write(0x1108, ia, 6);
  b.put_cb(0x1200, uint16_t(cb::TRANSMIT | cb::SF | cb::EL), kNullLink);
  b.put32(0x1208, 0x3000);                // TBD array
  b.put16(0x120C, 0);                     // no data in the TCB
  b.host.mem[0x120E] = 0xE0;              // threshold
  b.host.mem[0x120F] = 2;                 // TBD number
  b.put32(0x3000, 0x4000);
  b.put16(0x3004, uint16_t(14 | cb::TX_EOF * 0));
  b.put32(0x3008, 0x5000);
  b.put16(0x300C, uint16_t(106 | cb::TX_EOF));
  b.host.write(0x4000, fr.data(), 14);
  b.host.write(0x5000, fr.data() + 14, 106);
  run([&] {
    b.command(uint8_t(cuc::START << 4), 0x1000);
    wait_until(now() + us(200));
  }, us(300));
  REQUIRE(b.peer.rx.size() == 1);
  CHECK(b.peer.rx[0].f.bytes == fr);
  CHECK(b.get16(0x1000) == (cb::C | cb::OK));
  CHECK(b.get16(0x1100) == (cb::C | cb::OK));
  CHECK(b.get16(0x1200) == (cb::C | cb::OK));
  CHECK(b.nic->cu_state() == Cus::Idle);
  // The TBD fetch is one 16-byte read at the TBD array address.
  bool tbd_read = false;
  for (auto& t : b.host.log) tbd_read |= (!t.write && t.addr == 0x3000 && t.len == 16);
  CHECK(tbd_read);
}

TEST_CASE("i8255x CU: with configure read align the 82559 reads data with MRL", "[i8255x][cu]") {
  Bench b("82559");
  auto fr = cu_frame_bytes(kCuPeerMac, 200, 4);
  run([&] {
    b.setup(0x1000, cfg::B3_READAL_EN);
    b.host.log.clear();
    b.put_tx_simple(0x2000, cb::EL, kNullLink, fr);
    b.command(uint8_t(cuc::START << 4), 0x2000);
    wait_until(now() + us(200));
  }, us(400));
  REQUIRE(b.peer.rx.size() == 1);
  unsigned mrl = 0, reads64 = 0;
  for (auto& t : b.host.log)
    if (!t.write && t.len == 64) {
      ++reads64;
      mrl += t.cmd == PciCommand::MemReadLine;
    }
  CHECK(reads64 == 3);  // 200 B of data: 64 + 64 + 64 + 8
  CHECK(mrl == 3);      // a burst up to one cache line with read align: MRL
}

}  // namespace bench8255x::nic_i8255x_cu_test
