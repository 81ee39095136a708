// 802.3x flow control on the 8254x bench: the receive side honours PAUSE (CTRL.RFCE), the transmit
// side sends XOFF/XON at the FCRTH/FCRTL packet-buffer thresholds (CTRL.TFCE).
#include "nic_e1000_bench.h"

// This file's own names, apart from the other files of a unity batch.
namespace bench::nic_e1000_flow_test {

namespace {
constexpr uint64_t kRing = 0x20000, kBufs = 0x200000, kRxRing = 0x10000, kRxBufs = 0x100000;
EthFrame pause_frame(uint16_t quanta) {
  EthFrame f;
  f.bytes = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01, 0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E,
             0x88, 0x08, 0x00, 0x01, uint8_t(quanta >> 8), uint8_t(quanta)};
  f.bytes.resize(60, 0);
  return f;
}
std::vector<uint8_t> frame_bytes(unsigned len, uint8_t seed) {
  return make_frame({0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E}, len, seed).bytes;
}
constexpr uint8_t kCmd = txcmd::EOP | txcmd::IFCS | txcmd::RS | txcmd::IDE;
}  // namespace

TEST_CASE("Received PAUSE holds data frames for pause_time x 512 bit times (CTRL.RFCE)", "[e1000][flow]") {
  E1000Params p;
  Bench b("82546EB", p);
  JourneyId j = 0;
  run(
      [&] {
        b.w(0, CTRL, ctrl::RFCE | ctrl::SLU | ctrl::FD);
        b.setup_tx(0, kRing, 8);
        b.peers[0]->send(pause_frame(100), us(5));
        b.put_tx(kRing, 0, kBufs, frame_bytes(60, 3), kCmd);
        j = sim().journeys.begin("paused frame", us(6), "driver xmit", "test");
        dma_tags().tag(b.nic->dma_space(), kBufs, j);
        wait_until(us(6));
        b.w(0, TDT, 1);
        wait_until(us(100));
      },
      us(100));
  sc_time paused_until = rx_fifo_time(p, us(5), 60) + pause_duration(100, 1000);
  REQUIRE(b.peers[0]->rx.size() == 1);
  CHECK(b.peers[0]->rx[0].t == paused_until + serialization_time(60, 1000) + propagation_delay(Bench::kCableM, 5.0));
  CHECK(b.nic->peek(0, XOFFRXC) == 1);
  CHECK(b.nic->peek(0, GPRC) == 0);  // MAC control frames are not delivered
  sim().journeys.finish(j, us(100));
  bool pause_mark = false;
  for (auto& m : sim().journeys.finished().back().marks) pause_mark |= (m.stage == "MAC TX" && m.cause == "PAUSE");
  CHECK(pause_mark);
}

TEST_CASE("A PAUSE with pause_time 0 (XON) releases the transmitter at once", "[e1000][flow]") {
  E1000Params p;
  Bench b("82540EM", p);
  run(
      [&] {
        b.w(0, CTRL, ctrl::RFCE | ctrl::SLU | ctrl::FD);
        b.setup_tx(0, kRing, 8);
        b.peers[0]->send(pause_frame(0xFFFF), us(5));
        b.peers[0]->send(pause_frame(0), us(20));
        b.put_tx(kRing, 0, kBufs, frame_bytes(60, 3), kCmd);
        wait_until(us(6));
        b.w(0, TDT, 1);
        wait_until(us(60));
      },
      us(60));
  REQUIRE(b.peers[0]->rx.size() == 1);
  CHECK(b.peers[0]->rx[0].t ==
        rx_fifo_time(p, us(20), 60) + serialization_time(60, 1000) + propagation_delay(Bench::kCableM, 5.0));
  CHECK(b.nic->peek(0, XOFFRXC) == 1);
  CHECK(b.nic->peek(0, XONRXC) == 1);
}

TEST_CASE("RX FIFO above FCRTH sends XOFF (FCTTV), below FCRTL sends XON (CTRL.TFCE, FCRTL.XONE)", "[e1000][flow]") {
  E1000Params p;
  Bench b("82546EB", p);
  sc_time rdt_at = us(100);
  run(
      [&] {
        b.w(0, CTRL, ctrl::TFCE | ctrl::SLU | ctrl::FD);
        b.w(0, FCRTH, 3000);
        b.w(0, FCRTL, 1000 | fcrt::XONE);
        b.w(0, FCTTV, 0x100);
        b.setup_rx(0, kRxRing, 8, kRxBufs, 0);  // ring empty: frames stay in the packet buffer
        for (int i = 0; i < 3; ++i) b.peers[0]->send(make_frame(b.nic->mac_address(0), 1514, uint8_t(i)), us(1));
        wait_until(rdt_at);
        b.w(0, RDT, 7);
        wait_until(us(200));
      },
      us(200));
  auto mac = b.nic->mac_address(0);
  REQUIRE(b.peers[0]->rx.size() == 2);
  auto check_pause = [&](const EthFrame& f, uint16_t quanta) {
    REQUIRE(f.bytes.size() == 60);
    const uint8_t da[6] = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
    CHECK(std::equal(da, da + 6, f.bytes.begin()));
    CHECK(std::equal(mac.begin(), mac.end(), f.bytes.begin() + 6));
    CHECK((f.bytes[12] == 0x88 && f.bytes[13] == 0x08 && f.bytes[14] == 0x00 && f.bytes[15] == 0x01));
    CHECK(((f.bytes[16] << 8) | f.bytes[17]) == quanta);
  };
  check_pause(b.peers[0]->rx[0].f, 0x100);
  check_pause(b.peers[0]->rx[1].f, 0);
  // XOFF when the second frame (2 × 1518 = 3036 ≥ 3000 B) entered the buffer.
  sc_time second_in = rx_fifo_time(p, us(1) + frame_time(1514, 1000), 1514);
  sc_time xoff_out = second_in + p.mac_tx_latency + p.phy_tx_latency;
  CHECK(b.peers[0]->rx[0].t == xoff_out + serialization_time(60, 1000) + propagation_delay(Bench::kCableM, 5.0));
  CHECK(b.peers[0]->rx[1].t > rdt_at);  // XON only once the host drained the buffer
  CHECK(b.nic->peek(0, XOFFTXC) == 1);
  CHECK(b.nic->peek(0, XONTXC) == 1);
  CHECK(b.nic->peek(0, GPRC) == 3);
  CHECK(b.nic->peek(0, GPTC) == 0);  // flow-control frames are not good data packets
}

}  // namespace bench::nic_e1000_flow_test
