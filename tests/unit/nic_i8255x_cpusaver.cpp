// CPU-Saver microcode behaviour: dead-man timer, BundleMax, min-size mask, per revision
// (models/nic/i8255x/cpusaver.h; tests/unit/nic_i8255x_bench.h).
#include "tests/unit/nic_i8255x_bench.h"

// This file's own names, apart from the other files of a unity batch.
namespace bench8255x::nic_i8255x_cpusaver_test {

namespace {
constexpr uint64_t kRfa = 0x10000, kRfdStride = 0x800;
/// A 134-dword payload with the CPU-Saver instruction words of `layout` holding e100's patched values
/// (the other words are not modelled and left zero).
std::vector<uint32_t> image(const CpuSaverLayout& l, uint16_t delay, uint16_t bundle, uint16_t mask) {
  std::vector<uint32_t> w(cb::kUcodeDwords, 0);
  if (l.timer_dword) w[*l.timer_dword] = (uint32_t(kTimerOpcode) << 16) | delay;
  if (l.bundle_dword) w[*l.bundle_dword] = (uint32_t(kImmOpcode) << 16) | bundle;
  if (l.min_size_dword) w[*l.min_size_dword] = (uint32_t(kImmOpcode) << 16) | mask;
  return w;
}
void load_ucode(Bench& b, const std::vector<uint32_t>& w) {
  b.put_cb(0x1800, uint16_t(cb::LOAD_UCODE | cb::EL), kNullLink);
  for (size_t i = 0; i < w.size(); ++i) b.put32(0x1808 + 4 * i, w[i]);
  b.command(uint8_t(cuc::START << 4), 0x1800);
  while (b.cus() != Cus::Idle) sc_core::wait(ns(500));
  b.ack(0xFF00);
}
sc_time rx_done(const sc_time& in_fifo, unsigned len) {
  return in_fifo + txn_time(16) + bench::dma_time(len, 64) + txn_time(2) + txn_time(2);
}
/// Start the RU on `n` RFDs and return the FR assertion times after `frames` frames of the given
/// lengths, sent `gap` apart starting at t = 100 µs.
struct Rx {
  std::vector<sc_time> sent, fr;
};
Rx receive(Bench& b, const std::vector<unsigned>& lens, sc_time gap, const std::vector<uint32_t>* ucode,
           sc_time until = us(5000)) {
  for (unsigned i = 0; i < 16; ++i)
    b.put_rfd(kRfa + i * kRfdStride, i == 15 ? rfd::EL : 0, uint32_t(kRfa + (i + 1) * kRfdStride), 1518);
  Rx r;
  run([&] {
    b.setup(0x1000);
    if (ucode) load_ucode(b, *ucode);
    b.command(ruc::START, uint32_t(kRfa));
    size_t base = b.irq.assertions().size();
    wait_until(us(100));
    // The driver's ISR, polled every 200 ns: acknowledge FR each time the line is up.
    auto isr_until = [&](const sc_time& t) {
      while (now() < t) {
        if (b.irq.level) b.ack(stat::FR);
        sc_core::wait(ns(200));
      }
    };
    for (unsigned len : lens) {
      r.sent.push_back(now());
      b.peer.send(make_frame(b.nic->mac_address(), len, 0), now());
      isr_until(now() + gap);
    }
    isr_until(until - us(1));
    auto a = b.irq.assertions();
    r.fr.assign(a.begin() + long(base), a.end());
  }, until);
  return r;
}
}  // namespace

TEST_CASE("i8255x CPU-Saver: decode of the e100 parameter words per revision", "[i8255x][cpusaver]") {
  const auto& l559 = *nicsim::i8255x::variant("82559").cpusaver;
  auto p = decode_cpusaver(l559, image(l559, 0x600, 6, 0xFF80));
  REQUIRE(p);
  CHECK(p->int_delay_ticks == 0x600);
  CHECK(p->bundle_max == 6);
  CHECK(p->min_size_mask == 0xFF80);
  auto bad = image(l559, 0x600, 6, 0xFF80);
  bad[65] = 0x00380006;  // not the move-immediate form: not the CPU-Saver image
  CHECK_FALSE(decode_cpusaver(l559, bad));
  CHECK_FALSE(decode_cpusaver(l559, std::vector<uint32_t>(64, 0)));
  const auto& l558 = *nicsim::i8255x::variant("82558B0").cpusaver;
  auto q = decode_cpusaver(l558, image(l558, 0x800, 0, 0));
  REQUIRE(q);
  CHECK(q->int_delay_ticks == 0x800);
  CHECK_FALSE(q->bundle_max);
  CHECK_FALSE(q->min_size_mask);
  CHECK_FALSE(nicsim::i8255x::variant("82557").cpusaver);
}

TEST_CASE("i8255x CPU-Saver alone: timer, bundle and min-size rules", "[i8255x][cpusaver]") {
  ClockDomain tick("tick", kCpuSaverTicksPerUs * 1e6, 0.0);
  CpuSaver s(CpuSaverParams{0x600, 3, 0xFF80}, tick);
  CHECK(s.delay() == sec(0x600 / 1.5e6));
  CHECK_FALSE(s.frame(us(10), 200));
  CHECK(s.deadline() == us(10) + s.delay());
  CHECK(s.frame(us(20), 127));  // 127 & 0xFF80 == 0: at once, the bundle untouched
  CHECK(s.bundled() == 1);
  CHECK(s.deadline() == us(10) + s.delay());  // a small frame does not re-arm the timer
  CHECK_FALSE(s.frame(us(30), 128));
  CHECK(s.deadline() == us(30) + s.delay());  // "reset each time a new packet is received"
  CHECK(s.frame(us(40), 1514));  // the third: BundleMax
  CHECK(std::string(s.last_cause()) == "BundleMax");
  CHECK_FALSE(s.deadline());
  CHECK_FALSE(s.frame(us(50), 300));
  CHECK_FALSE(s.expire(us(50) + s.delay() - ns(1)));
  CHECK(s.expire(us(50) + s.delay()));
  CHECK(std::string(s.last_cause()) == "dead-man timer");
}

TEST_CASE("i8255x CPU-Saver on the 82559: FR one dead-man timer after the last bundled frame", "[i8255x][cpusaver]") {
  I8255xParams p;
  p.clock_ppm = 0;
  Bench b("82559", p);
  auto uc = image(*b.nic->variant().cpusaver, 0x600, 6, 0xFF80);
  Rx r = receive(b, {200, 300}, us(50), &uc);
  sc_time last_done = rx_done(rx_fifo_time(p, r.sent[1], 300), 300);
  REQUIRE(r.fr.size() == 1);  // both frames in one interrupt
  // 1024 µs (≈0.667 µs per tick, estimate) after the second frame: it re-armed the timer.
  CHECK(r.fr[0] == last_done + sec(0x600 / 1.5e6));
  CHECK(b.get16(kRfa + kRfdStride) == (rfd::C | rfd::OK));  // the second frame was stored long before
  CHECK(sim().counters.get("nic.cpusaver.dead-man timer") == 1);
}

TEST_CASE("i8255x CPU-Saver on the 82559: a frame under 128 bytes interrupts at once", "[i8255x][cpusaver]") {
  I8255xParams p;
  Bench b("82559", p);
  auto uc = image(*b.nic->variant().cpusaver, 0x600, 6, 0xFF80);
  Rx r = receive(b, {64}, us(50), &uc);
  REQUIRE(r.fr.size() == 1);
  CHECK(r.fr[0] == rx_done(rx_fifo_time(p, r.sent[0], 64), 64));
  CHECK(sim().counters.get("nic.cpusaver.min-size mask") == 1);
}

TEST_CASE("i8255x CPU-Saver on the 82559 with BundleSmallFr (mask 0xFFFF): small frames wait", "[i8255x][cpusaver]") {
  I8255xParams p;
  Bench b("82559", p);
  auto uc = image(*b.nic->variant().cpusaver, 0x300, 6, 0xFFFF);
  Rx r = receive(b, {64}, us(50), &uc);
  REQUIRE(r.fr.size() == 1);
  CHECK(r.fr[0] == rx_done(rx_fifo_time(p, r.sent[0], 64), 64) + sec(0x300 / 1.5e6));
}

TEST_CASE("i8255x CPU-Saver on the 82559: BundleMax frames interrupt before the timer", "[i8255x][cpusaver]") {
  I8255xParams p;
  Bench b("82559", p);
  auto uc = image(*b.nic->variant().cpusaver, 0x600, 3, 0xFF80);
  Rx r = receive(b, {500, 500, 500}, us(60), &uc);
  REQUIRE(r.fr.size() == 1);
  CHECK(r.fr[0] == rx_done(rx_fifo_time(p, r.sent[2], 500), 500));
  CHECK(sim().counters.get("nic.cpusaver.BundleMax") == 1);
}

TEST_CASE("i8255x CPU-Saver on the 82558 B0: timer only, small frames bundled too, the timer re-armed by each", "[i8255x][cpusaver]") {
  I8255xParams p;
  Bench b("82558B0", p);
  auto uc = image(*b.nic->variant().cpusaver, 0x200, 0, 0);
  Rx r = receive(b, {64, 64, 64, 64, 64, 64, 64}, us(20), &uc);
  REQUIRE(r.fr.size() == 1);
  // The dead-man timer is re-armed by each bundled frame: FR one delay after the last.
  CHECK(r.fr[0] == rx_done(rx_fifo_time(p, r.sent[6], 64), 64) + sec(0x200 / 1.5e6));
}

TEST_CASE("i8255x without microcode: one FR interrupt per frame", "[i8255x][cpusaver]") {
  I8255xParams p;
  Bench b("82559", p);
  Rx r = receive(b, {200, 300, 400}, us(60), nullptr);
  REQUIRE(r.fr.size() == 3);
  unsigned lens[3] = {200, 300, 400};
  for (int i = 0; i < 3; ++i) CHECK(r.fr[i] == rx_done(rx_fifo_time(p, r.sent[i], lens[i]), lens[i]));
  CHECK_FALSE(b.nic->cpusaver());
}

}  // namespace bench8255x::nic_i8255x_cpusaver_test
