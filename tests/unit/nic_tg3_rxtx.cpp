// BCM5701 send (BDs in NIC SRAM written by PIO + MAILBOX_SNDNIC_PROD_IDX_0) and receive (std
// producer ring and return ring in host memory) on the bench (nic_tg3_bench.h); times from the
// bench bus rule (60 ns + 3.75 ns/B per transaction) and the model's documented steps.
#include "tests/unit/nic_tg3_bench.h"

// This file's own names, apart from the other files of a unity batch.
namespace bench5701::nic_tg3_rxtx_test {

TEST_CASE("tg3 TX: a send BD written into NIC SRAM and the mailbox put the frame on the wire", "[tg3][tx]") {
  Tg3Params p;
  Bench b(p);
  CoalRegs c;
  c.tx_max_frames = 1;
  const EthFrame f = make_frame({0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E}, 1000, 7);
  run([&] {
    b.setup(c);
    b.put_tx(0, f.bytes);
    b.mbox(MAILBOX_SNDNIC_PROD_IDX_0, 1);
    wait_until(us(50));
  }, us(60));
  // Data: reads of at most MMRBC (512 B) -> 512 + 488; the BD itself is not read over the bus.
  const sc_time data_in = dma_time(1000, 512);
  REQUIRE(b.peer.rx.size() == 1);
  CHECK(b.peer.rx[0].f.bytes == f.bytes);
  CHECK(b.peer.rx[0].t == data_in + p.mac_tx_latency + p.phy_tx_latency + serialization_time(1000, 1000) +
                              propagation_delay(Bench::kCableM, 5.0));
  for (const auto& t : b.host.log) {
    CHECK(t.what != std::string("TX desc fetch"));
    if (!t.write) {
      CHECK(t.what == std::string("TX data"));
      CHECK(t.cmd == PciCommand::MemReadMultiple);  // DMA_RWCTRL_USE_MEM_READ_MULT
      CHECK(t.len <= 512);
    }
  }
  // The consumer index moved when the data was in (not when it left): status update then.
  auto a = b.irq.assertions();
  REQUIRE(a.size() == 1);
  CHECK(a[0] == data_in + txn_time(32));
  CHECK(b.sb16(SB_IDX0_TX_CONSUMER) == 1);
  CHECK(b.nic->tx_consumer() == 1);
  CHECK(sim().counters.get("nic.tx_ucast_packets") == 1);
}

TEST_CASE("tg3 TX: a frame of two BDs leaves once, after TXD_FLAG_END, and counts two BDs", "[tg3][tx]") {
  Bench b;
  CoalRegs c;
  c.tx_max_frames = 2;
  const EthFrame f = make_frame({0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E}, 300, 5);
  run([&] {
    b.setup(c);
    const uint64_t b0 = kTxBufs, b1 = kTxBufs + 4096;
    b.host.write(b0, f.bytes.data(), 100);
    b.host.write(b1, f.bytes.data() + 100, 200);
    const uint32_t a = NIC_SRAM_TX_BUFFER_DESC;
    b.sram(a + 4, uint32_t(b0));
    b.sram(a + 8, 100u << TXD_LEN_SHIFT);
    b.sram(a + 16 + 4, uint32_t(b1));
    b.sram(a + 16 + 8, 200u << TXD_LEN_SHIFT | TXD_FLAG_END);
    b.mbox(MAILBOX_SNDNIC_PROD_IDX_0, 1);  // producer inside the frame: nothing is sent
    wait_until(us(10));
    CHECK(b.peer.rx.empty());
    b.mbox(MAILBOX_SNDNIC_PROD_IDX_0, 2);
    wait_until(us(30));
  }, us(40));
  REQUIRE(b.peer.rx.size() == 1);
  CHECK(b.peer.rx[0].f.bytes == f.bytes);
  CHECK(b.sb16(SB_IDX0_TX_CONSUMER) == 2);
  CHECK(b.irq.assertions().size() == 1);  // TXMAX_FRAMES 2 counts BDs: this frame trips it
}

TEST_CASE("tg3 RX: a frame lands in a std ring buffer and its return BD in the return ring", "[tg3][rx]") {
  Tg3Params p;
  Bench b(p);
  CoalRegs c;
  c.rx_max_frames = 1;
  EthFrame f;
  sc_time sent;
  run([&] {
    b.setup(c);
    b.post_rx(8);  // the chip fetches the 8 std BDs (256 B) at once
    wait_until(us(1));
    f = make_frame(b.nic->mac_address(), 200, 9);
    sent = now();
    b.peer.send(f, sent);
    wait_until(us(50));
  }, us(60));
  std::vector<uint8_t> data(200);
  b.host.read(kRxBufs, data.data(), 200);
  CHECK(data == f.bytes);
  uint8_t rb[RXD_SIZE];
  b.host.read(kRetRing, rb, RXD_SIZE);
  CHECK(ld32(rb + RXD_IDX_LEN) == 204u);  // std index 0, length with the FCS (tg3_rx subtracts 4)
  CHECK((ld32(rb + RXD_TYPE_FLAGS) & RXD_FLAG_END) != 0);
  CHECK(ld32(rb + RXD_OPAQUE) == RXD_OPAQUE_RING_STD);
  CHECK(ld_hilo(rb + RXD_ADDR_HI) == kRxBufs);
  CHECK(b.sb16(SB_IDX0_RX_PRODUCER) == 1);
  CHECK(b.sb16(SB_RX_CONSUMER) == 1);
  auto a = b.irq.assertions();
  REQUIRE(a.size() == 1);
  CHECK(a[0] == rx_fifo_time(p, sent, 200) + rx_dma(200) + txn_time(32));
}

TEST_CASE("tg3 RX: TCP over IPv4 gets RXD_FLAG_TCPUDP_CSUM with ip_tcp_csum 0xffff", "[tg3][rx]") {
  Bench b;
  CoalRegs c;
  c.rx_max_frames = 1;
  run([&] {
    b.setup(c);
    b.post_rx(4);
    EthFrame f = make_frame(b.nic->mac_address(), 100, 0);
    f.bytes[23] = 6;  // IPv4 protocol TCP
    b.peer.send(f, now());
    wait_until(us(30));
  }, us(40));
  uint8_t rb[RXD_SIZE];
  b.host.read(kRetRing, rb, RXD_SIZE);
  CHECK((ld32(rb + RXD_TYPE_FLAGS) & RXD_FLAG_TCPUDP_CSUM) != 0);
  CHECK((ld32(rb + RXD_IP_TCP_CSUM) & 0xffff) == 0xffff);
}

TEST_CASE("tg3 RX: with no std BD a frame waits in the mbuf pool and goes when one is posted", "[tg3][rx]") {
  Bench b;
  CoalRegs c;
  c.rx_max_frames = 1;
  run([&] {
    b.setup(c);
    b.peer.send(make_frame(b.nic->mac_address(), 100, 1), now());
    wait_until(us(20));
    CHECK(b.sb16(SB_IDX0_RX_PRODUCER) == 0);
    b.post_rx(1);
    wait_until(us(40));
  }, us(50));
  CHECK(b.sb16(SB_IDX0_RX_PRODUCER) == 1);
  CHECK(sim().counters.get("nic.rxbds_empty") == 1);
  auto t = b.nic->tally();
  REQUIRE(t);
  CHECK(t->accepted == 1);
}

TEST_CASE("tg3 RX: frames for another station are filtered unless RX_MODE_PROMISC", "[tg3][rx]") {
  Bench b;
  CoalRegs c;
  c.rx_max_frames = 1;
  run([&] {
    b.setup(c);
    b.post_rx(4);
    b.peer.send(make_frame({0x00, 0x01, 0x02, 0x03, 0x04, 0x05}, 100, 1), now());
    wait_until(us(20));
    b.w(MAC_RX_MODE, RX_MODE_ENABLE | RX_MODE_PROMISC);
    b.peer.send(make_frame({0x00, 0x01, 0x02, 0x03, 0x04, 0x05}, 100, 2), now());
    wait_until(us(40));
  }, us(50));
  CHECK(sim().counters.get("nic.rx_filtered") == 1);
  CHECK(b.sb16(SB_IDX0_RX_PRODUCER) == 1);
}

TEST_CASE("tg3 statistics block: DMA'd every HOSTCC_STAT_COAL_TICKS with tg3_stat64_t counts", "[tg3][stats]") {
  Bench b;
  CoalRegs c;
  c.rx_max_frames = 1;
  run([&] {
    b.setup(c);
    b.post_rx(4);
    b.w(HOSTCC_STAT_COAL_TICKS, 100);
    b.peer.send(make_frame(b.nic->mac_address(), 100, 1), now());
    wait_until(us(150));
  }, us(160));
  uint8_t s[8];
  b.host.read(kStats + STATS_RX_UCAST_PACKETS, s, 8);
  CHECK(ld_hilo(s) == 1);
  b.host.read(kStats + STATS_RX_OCTETS, s, 8);
  CHECK(ld_hilo(s) == 104);
  size_t bytes = 0;
  for (const auto& t : b.host.log)
    if (t.what == std::string("statistics block")) bytes += t.len;
  CHECK(bytes == TG3_HW_STATS_SIZE);  // one block (in write bursts) at 100 µs; the next is due at 200 µs
}

TEST_CASE("tg3 PHY: MAC_MI_COM reads BMSR with link up after one MI frame", "[tg3][phy]") {
  Tg3Params p;
  Bench b(p);
  uint32_t busy = 0, done = 0;
  run([&] {
    b.w(MAC_MI_COM, MI_COM_CMD_READ | MI_COM_START | (PHY_ADDR << MI_COM_PHY_ADDR_SHIFT) | (MII_BMSR << MI_COM_REG_ADDR_SHIFT));
    busy = b.r(MAC_MI_COM);
    wait_until(p.mi_frame + ns(1));
    done = b.r(MAC_MI_COM);
  }, us(100));
  CHECK((busy & MI_COM_BUSY) != 0);
  CHECK((done & MI_COM_BUSY) == 0);
  CHECK((done & BMSR_LSTATUS) != 0);
  CHECK(b.r(TG3PCI_MISC_HOST_CTRL) >> MISC_HOST_CTRL_CHIPREV_SHIFT == CHIPREV_ID_5701_B5);
}

}  // namespace bench5701::nic_tg3_rxtx_test
