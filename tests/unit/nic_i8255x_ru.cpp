// Receive unit over simplified RFDs: FR per frame, RNR at EL, the no-resource counter and the
// statistical counter dump (tests/unit/nic_i8255x_bench.h).
#include "tests/unit/nic_i8255x_bench.h"

// This file's own names, apart from the other files of a unity batch.
namespace bench8255x::nic_i8255x_ru_test {

namespace {
constexpr uint64_t kRuRfa = 0x10000, kRuRfdStride = 0x800;
void put_rfa(Bench& b, unsigned n, uint16_t last_flags = rfd::EL) {
  for (unsigned i = 0; i < n; ++i)
    b.put_rfd(kRuRfa + i * kRuRfdStride, i + 1 == n ? last_flags : 0, uint32_t(kRuRfa + (i + 1) * kRuRfdStride), 1518);
}
/// When the RU has written frame `len` (bytes) into an RFD, starting at `in_fifo`, on the bench bus
/// with 64-byte bursts: RFD header read, data, actual count, status.
sc_time ru_rx_done(const sc_time& in_fifo, unsigned len) {
  sc_time t = in_fifo + txn_time(16);
  t += bench::dma_time(len, 64);
  return t + txn_time(2) + txn_time(2);
}
}  // namespace

TEST_CASE("i8255x RU: a frame fills an RFD (count, C/OK, data) and raises FR at once", "[i8255x][ru]") {
  I8255xParams p;
  Bench b("82559", p);
  put_rfa(b, 4);
  EthFrame f;
  sc_time sent;
  run([&] {
    b.setup(0x1000);
    b.command(ruc::START, uint32_t(kRuRfa));
    CHECK(b.rus() == Rus::Ready);
    f = make_frame(b.nic->mac_address(), 200, 9);
    sent = now();
    b.peer.send(f, sent);
    wait_until(now() + us(200));
  }, us(400));
  CHECK(b.get16(kRuRfa) == (rfd::C | rfd::OK));
  CHECK(b.get16(kRuRfa + 12) == (rfd::EOF_ | rfd::F | 200));
  std::vector<uint8_t> data(200);
  b.host.read(kRuRfa + 16, data.data(), 200);
  CHECK(data == f.bytes);
  auto a = b.irq.assertions();
  REQUIRE(a.size() == 2);  // the setup's CNA, then FR
  CHECK(a[1] == ru_rx_done(rx_fifo_time(p, sent, 200), 200));
  CHECK((b.nic->stat(RcvGoodFrames)) == 1);
  CHECK(b.nic->ru_state() == Rus::Ready);
}

TEST_CASE("i8255x RU: EL leaves no resources with RNR, later frames count as resource errors", "[i8255x][ru]") {
  Bench b("82558A4");
  put_rfa(b, 2);
  run([&] {
    b.setup(0x1000);
    b.command(ruc::START, uint32_t(kRuRfa));
    for (int i = 0; i < 4; ++i) {
      b.peer.send(make_frame(b.nic->mac_address(), 100, uint8_t(i)), now());
      wait_until(now() + us(100));
    }
    CHECK(b.rus() == Rus::NoResources);
    CHECK((b.status() & (stat::FR | stat::RNR)) == (stat::FR | stat::RNR));
    // Dump and reset the counters: 19 dwords on the 82558 and the completion word.
    b.command(uint8_t(cuc::DUMP_ADDR << 4), 0x20000);
    b.command(uint8_t(cuc::DUMP_RST_STAT << 4));
    wait_until(now() + us(10));
  }, us(1000));
  CHECK(b.get32(0x20000 + 4 * RcvGoodFrames) == 2);
  CHECK(b.get32(0x20000 + 4 * RcvResourceErrors) == 2);
  CHECK(b.get32(0x20000 + 4 * 19) == DUMP_RST_STAT_COMPLETED);
  CHECK(b.nic->stat(RcvResourceErrors) == 0);  // reset by the dump
  CHECK(sim().counters.get("nic.rcv_rsrc_err") == 2);
  auto t = b.nic->tally();
  REQUIRE(t);
  CHECK(t->accepted == 2);
}

TEST_CASE("i8255x RU: S suspends, RU Resume continues at the linked RFD, filter drops other DAs", "[i8255x][ru]") {
  Bench b("82559");
  b.put_rfd(kRuRfa, rfd::S, uint32_t(kRuRfa + kRuRfdStride), 1518);
  b.put_rfd(kRuRfa + kRuRfdStride, rfd::EL, kNullLink, 1518);
  run([&] {
    b.setup(0x1000);
    b.command(ruc::START, uint32_t(kRuRfa));
    b.peer.send(make_frame(b.nic->mac_address(), 100, 1), now());
    wait_until(now() + us(100));
    CHECK(b.rus() == Rus::Suspended);
    b.peer.send(make_frame({0x00, 0x01, 0x02, 0x03, 0x04, 0x05}, 100, 2), now());  // not ours
    wait_until(now() + us(100));
    b.command(ruc::RESUME);
    CHECK(b.rus() == Rus::Ready);
    b.peer.send(make_frame(b.nic->mac_address(), 100, 3), now());
    wait_until(now() + us(100));
  }, us(1000));
  CHECK(b.get16(kRuRfa + kRuRfdStride) == (rfd::C | rfd::OK));
  CHECK(b.host.mem[kRuRfa + kRuRfdStride + 16 + 14] == uint8_t(3 + 14));  // payload byte 14 of frame 3
  CHECK(sim().counters.get("nic.rx_filtered") == 1);
  CHECK(b.nic->stat(RcvResourceErrors) == 0);
}

}  // namespace bench8255x::nic_i8255x_ru_test
