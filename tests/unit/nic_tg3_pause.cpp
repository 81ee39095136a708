// BCM5701 802.3x flow control on the bench (nic_tg3_bench.h, no driver): a received PAUSE holds data
// frames when RX_MODE_FLOW_CTRL_ENABLE is set (802.3 Annex 31B.3), is only counted without it, and
// the chip sends XOFF/XON on the RX mbuf pool's watermarks (BUFMGR_MB_MACRX_LOW_WATER /
// BUFMGR_MB_HIGH_WATER) when TX_MODE_FLOW_CTRL_ENABLE is set. Expected times from 802.3's rule
// (pause_time x 512 bit times) and the bench's documented steps, not from a run.
#include "tests/unit/nic_tg3_bench.h"
#include "models/ether/pause.h"

// This file's own names, apart from the other files of a unity batch.
namespace bench5701::nic_tg3_pause_test {

namespace {
const std::array<uint8_t, 6> kTg3PausePeerMac = {0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E};

uint64_t stat64(const Bench& b, unsigned off) {
  uint8_t s[8];
  b.host.read(kStats + off, s, 8);
  return ld_hilo(s);
}

/// Send BD 0 of a 200-byte frame whose journey is `j`, the mailbox written at `at`: returns when
/// its data is in the chip (the MAC queues it then).
sc_time send_one_at(Bench& b, const sc_time& at, JourneyId j) {
  const EthFrame f = make_frame(kTg3PausePeerMac, 200, 9);
  b.put_tx(0, f.bytes);
  if (j) dma_tags().tag(b.nic->dma_space(), kTxBufs, j);
  wait_until(at);
  b.mbox(MAILBOX_SNDNIC_PROD_IDX_0, 1);
  return at + dma_time(200, 512);
}
}  // namespace

TEST_CASE("tg3 PAUSE: a received XOFF of N quanta holds the next data frame N x 512 ns (RX_MODE_FLOW_CTRL_ENABLE)",
          "[tg3][flow]") {
  Tg3Params p;
  Bench b(p);
  CoalRegs c;
  c.tx_max_frames = 1;
  constexpr uint16_t kQuanta = 100;
  JourneyId j = 0;
  run([&] {
    b.setup(c);
    b.w(MAC_RX_MODE, RX_MODE_ENABLE | RX_MODE_FLOW_CTRL_ENABLE);
    b.peer.send(make_pause_frame(kTg3PausePeerMac, kQuanta), us(5));
    j = sim().journeys.begin("paused frame", us(6), "driver xmit", "test");
    send_one_at(b, us(6), j);
    wait_until(us(100));
  }, us(100));
  // The pause starts when the PAUSE is through the PHY/MAC receive pipeline, and lasts
  // 100 x 512 bit times = 51.2 µs at 1 Gb/s; the frame (queued at ~6.3 µs) starts then.
  const sc_time pause_from = rx_fifo_time(p, us(5), 60);
  const sc_time start = pause_from + ns(kQuanta * 512);
  REQUIRE(b.peer.rx.size() == 1);
  CHECK(b.peer.rx[0].t == start + serialization_time(200, 1000) + propagation_delay(Bench::kCableM, 5.0));
  CHECK(sim().counters.get("nic.rx_xoff_pause_rcvd") == 1);
  CHECK(sim().counters.get("nic.rx_xoff_entered") == 1);
  CHECK(sim().counters.get("nic.rx_ucast_packets") + sim().counters.get("nic.rx_mcast_packets") == 0);  // consumed
  sim().journeys.finish(j, us(100));
  bool pause_mark = false;
  for (auto& m : sim().journeys.finished().back().marks) pause_mark |= (m.stage == "MAC TX" && m.cause == "PAUSE");
  CHECK(pause_mark);
}

TEST_CASE("tg3 PAUSE: an XON (pause_time 0) releases the held frame at once", "[tg3][flow]") {
  Tg3Params p;
  Bench b(p);
  CoalRegs c;
  run([&] {
    b.setup(c);
    b.w(MAC_RX_MODE, RX_MODE_ENABLE | RX_MODE_FLOW_CTRL_ENABLE);
    b.peer.send(make_pause_frame(kTg3PausePeerMac, 0xFFFF), us(5));  // 33.5 ms
    b.peer.send(make_pause_frame(kTg3PausePeerMac, 0), us(20));
    send_one_at(b, us(6), 0);
    wait_until(us(60));
  }, us(60));
  REQUIRE(b.peer.rx.size() == 1);
  CHECK(b.peer.rx[0].t ==
        rx_fifo_time(p, us(20), 60) + serialization_time(200, 1000) + propagation_delay(Bench::kCableM, 5.0));
  CHECK(sim().counters.get("nic.rx_xoff_pause_rcvd") == 1);
  CHECK(sim().counters.get("nic.rx_xon_pause_rcvd") == 1);
}

TEST_CASE("tg3 PAUSE: without RX_MODE_FLOW_CTRL_ENABLE a PAUSE is counted and consumed, nothing is held",
          "[tg3][flow]") {
  Tg3Params p;
  Bench b(p);
  CoalRegs c;
  sc_time data_in;
  run([&] {
    b.setup(c);  // MAC_RX_MODE = RX_MODE_ENABLE only
    b.peer.send(make_pause_frame(kTg3PausePeerMac, 0xFFFF), us(5));
    data_in = send_one_at(b, us(10), 0);
    wait_until(us(60));
  }, us(60));
  REQUIRE(b.peer.rx.size() == 1);
  CHECK(b.peer.rx[0].t == data_in + p.mac_tx_latency + p.phy_tx_latency + serialization_time(200, 1000) +
                              propagation_delay(Bench::kCableM, 5.0));
  CHECK(sim().counters.get("nic.rx_xoff_pause_rcvd") == 1);
  CHECK(sim().counters.get("nic.rx_xoff_entered") == 0);
  CHECK(sim().counters.get("nic.rx_ucast_packets") + sim().counters.get("nic.rx_mcast_packets") == 0);
}

TEST_CASE("tg3 PAUSE: XOFF when the RX mbuf pool passes BUFMGR_MB_MACRX_LOW_WATER, XON at BUFMGR_MB_HIGH_WATER",
          "[tg3][flow]") {
  Tg3Params p;  // rx_buffer_bytes 64 KB = 512 mbufs of kMbufBytes (128 B)
  Bench b(p);
  CoalRegs c;
  c.rx_max_frames = 1;
  constexpr unsigned kLen = 1514, kFrames = 41;
  const sc_time drain_at = us(800);
  run([&] {
    b.setup(c);
    b.w(MAC_TX_MODE, TX_MODE_ENABLE | TX_MODE_FLOW_CTRL_ENABLE);
    b.w(HOSTCC_STAT_COAL_TICKS, 100);
    // No std BD yet: the frames stay in the mbuf pool.
    for (unsigned i = 0; i < kFrames; ++i)
      b.peer.send(make_frame(b.nic->mac_address(), kLen, uint8_t(i)), us(1) + frame_time(kLen, 1000) * double(i));
    wait_until(drain_at);
    b.post_rx(64);
    wait_until(us(1200));
  }, us(1200));
  // tg3's defaults: XOFF below 32 free mbufs, XON at 96. 40 frames hold 40 x 1518 = 60720 B
  // (37 free mbufs); the 41st makes 62238 B (25 free): XOFF. Draining to 35 frames (53130 B,
  // 96 free) brings the XON.
  CHECK(b.r(BUFMGR_MB_MACRX_LOW_WATER) == 0x20);
  CHECK(b.r(BUFMGR_MB_HIGH_WATER) == 0x60);
  REQUIRE(b.peer.rx.size() == 2);
  auto check_pause = [&](const EthFrame& f, uint16_t quanta) {
    REQUIRE(f.bytes.size() == 60);
    const uint8_t da[6] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
    const auto mac = b.nic->mac_address();
    CHECK(std::equal(da, da + 6, f.bytes.begin()));
    CHECK(std::equal(mac.begin(), mac.end(), f.bytes.begin() + 6));
    CHECK((f.bytes[12] == 0x88 && f.bytes[13] == 0x08 && f.bytes[14] == 0x00 && f.bytes[15] == 0x01));
    CHECK(((f.bytes[16] << 8) | f.bytes[17]) == quanta);
  };
  check_pause(b.peer.rx[0].f, kXoffPauseQuanta);
  check_pause(b.peer.rx[1].f, 0);
  const sc_time last_in = rx_fifo_time(p, us(1) + frame_time(kLen, 1000) * double(kFrames - 1), kLen);
  CHECK(b.peer.rx[0].t == last_in + p.mac_tx_latency + p.phy_tx_latency + serialization_time(60, 1000) +
                              propagation_delay(Bench::kCableM, 5.0));
  CHECK(b.peer.rx[1].t > drain_at);
  CHECK(sim().counters.get("nic.tx_xoff_sent") == 1);
  CHECK(sim().counters.get("nic.tx_xon_sent") == 1);
  CHECK(sim().counters.get("nic.tx_ucast_packets") + sim().counters.get("nic.tx_mcast_packets") == 0);
  CHECK(sim().counters.get("nic.rx_ucast_packets") == kFrames);
  // The statistics block carries them at tg3_hw_stats' offsets.
  CHECK(stat64(b, STATS_TX_XOFF_SENT) == 1);
  CHECK(stat64(b, STATS_TX_XON_SENT) == 1);
  auto t = b.nic->tally();
  REQUIRE(t);
  CHECK(t->sent == 2);  // the link carried two control frames from this port
}

TEST_CASE("tg3 PAUSE: without TX_MODE_FLOW_CTRL_ENABLE a full pool sends nothing", "[tg3][flow]") {
  Tg3Params p;
  Bench b(p);
  CoalRegs c;
  run([&] {
    b.setup(c);
    for (unsigned i = 0; i < 44; ++i)
      b.peer.send(make_frame(b.nic->mac_address(), 1514, uint8_t(i)), us(1) + frame_time(1514, 1000) * double(i));
    wait_until(us(700));
  }, us(700));
  CHECK(b.peer.rx.empty());
  CHECK(sim().counters.get("nic.tx_xoff_sent") == 0);
  CHECK(sim().counters.get("nic.rx_discards") == 1);  // 44 x 1518 > 65536: the last one finds no room
}

}  // namespace bench5701::nic_tg3_pause_test
