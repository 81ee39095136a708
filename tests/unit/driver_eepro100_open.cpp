// eepro100 driver model: what probe and open write to the real 8255x model (eepro100.c
// speedo_found1, speedo_open, speedo_init_rx_ring, speedo_resume, set_rx_mode).
#include "driver_eepro100_host.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace driver_eepro100_open_test {
using namespace drvtest;
using namespace nicsim::eepro100drv;


TEST_CASE("eepro100 probe reads the station address from the EEPROM over I/O space and open links 64 RxFDs, starts "
          "the RU at RxFD 0 and the CU at the IA Setup with CX FR CNA RNR enabled",
          "[eepro100drv]") {
  SpeedoHost h;
  sc_core::sc_start(ms(60));
  REQUIRE(h.open_rc == 0);
  Speedo& s = *h.sp;
  // speedo_found1: do_eeprom_cmd shifts through SCBeeprom with io_outw/io_inw (I/O BAR 1 only).
  CHECK(s.dev_addr == h.nic.mac_address());
  CHECK(s.eeprom().size() == 64);
  size_t ee_io = 0, ee_mem = 0;
  for (const auto& m : h.hw.mmio) {
    if (m.io && m.addr == h.nic.io_bar(0) + SCBeeprom) ++ee_io;
    if (!m.io && m.addr == h.bar() + SCBeeprom) ++ee_mem;
  }
  CHECK(ee_io > 64 * 27 * 3);  // 64 words x 27 command bits x (2 outw + 1 inw)
  CHECK(ee_mem == 0);
  // speedo_init_rx_ring: 64 RxFDs linked in order, size PKT_BUF_SZ, rx_buf_addr 0xffffffff, the last EL|S.
  for (unsigned i = 0; i + 1 < RX_RING_SIZE; ++i) {
    INFO("RxFD " << i);
    REQUIRE(s.rx_ring_dma(i) != 0);
    CHECK(h.mem32(s.rx_ring_dma(i) + 4) == uint32_t(s.rx_ring_dma(i + 1)));
    CHECK(h.mem32(s.rx_ring_dma(i) + 8) == 0xffffffffu);
    CHECK(h.mem32(s.rx_ring_dma(i) + 12) >> 16 == PKT_BUF_SZ);
    CHECK((h.mem32(s.rx_ring_dma(i)) & 0xC0000000u) == 0);
  }
  CHECK((h.mem32(s.rx_ring_dma(RX_RING_SIZE - 1)) & 0xC0000000u) == 0xC0000000u);
  // speedo_resume: RxStart with the general pointer at RxFD 0, CUStart at TxFD 0 (the IA Setup) with
  // the interrupt byte masking only ER and FCP.
  uint32_t pointer = 0;
  bool rx_started = false, cu_started = false;
  for (const auto& m : h.hw.mmio) {
    if (!m.write || m.io) continue;
    if (m.addr == h.bar() + SCBPointer) pointer = m.v;
    if (m.addr == h.bar() + SCBCmd && m.len == 1 && m.v == RxStart) {
      CHECK(pointer == uint32_t(s.rx_ring_dma(0)));
      rx_started = true;
    }
    if (m.addr == h.bar() + SCBCmd && m.len == 2 && (m.v & 0xff) == CUStart) {
      CHECK(pointer == uint32_t(s.tx_ring_dma()));
      CHECK((m.v & 0xff00) == (SCBMaskEarlyRx | SCBMaskFlowCtl));
      cu_started = true;
    }
  }
  CHECK(rx_started);
  CHECK(cu_started);
  CHECK(h.nic.ru_state() == nicsim::i8255x::Rus::Ready);
  // IA Setup, Configure and the empty multicast list ran, each with S; the CU suspended on the last.
  CHECK(h.nic.cu_state() == nicsim::i8255x::Cus::Suspended);
  CHECK(s.cur_tx() == 3);
  CHECK((h.mem32(s.tx_ring_dma() + 1 * kTxFDBytes) >> 16 & 0x7) == 2);  // CmdConfigure
  CHECK((h.mem32(s.tx_ring_dma() + 2 * kTxFDBytes) >> 16 & 0x7) == 3);  // CmdMulticastList
  CHECK((h.mem32(s.tx_ring_dma() + 2 * kTxFDBytes) & 0x8000u) != 0);    // completed
  CHECK(h.counter("cu_resumes") == 2);
  CHECK(s.netif_carrier_ok());
}

TEST_CASE("eepro100 module parameters have the Linux names and defaults and ring sizes stay compile time",
          "[eepro100drv]") {
  const DriverEntry* de = driver("eepro100");
  REQUIRE(de);
  const ParamValues pv(de->params);
  const nicsim::eepro100drv::Options o = options_from(pv);
  CHECK(o.rx_copybreak == 200);
  CHECK(o.max_interrupt_work == 20);
  CHECK(o.txfifo == 8);
  CHECK(o.rxfifo == 8);
  CHECK(o.txdmacount == 128);
  CHECK(o.rxdmacount == 0);
  CHECK(o.multicast_filter_limit == 64);
  CHECK_FALSE(o.use_io);
  for (const auto& p : de->params) {
    CHECK(p.name != "TX_RING_SIZE");
    CHECK(p.name != "RX_RING_SIZE");
  }
  CHECK(de->devices == std::vector<std::string>{"82557", "82558A4", "82558B0", "82559"});
  // CmdIntr on every 16th TxCB (entry & (TX_RING_SIZE/4 - 1) == 0), CmdSuspend on all.
  for (unsigned e = 0; e < TX_RING_SIZE; ++e) {
    INFO("entry " << e);
    CHECK((tx_cmd_status(e) & CmdSuspend) != 0);
    CHECK(((tx_cmd_status(e) & CmdIntr) != 0) == (e % 16 == 0));
  }
}

}  // namespace driver_eepro100_open_test
