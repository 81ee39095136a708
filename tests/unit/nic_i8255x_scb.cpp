// SCB semantics, EEPROM, MDI and the I/O window of the 8255x (tests/unit/nic_i8255x_bench.h).
#include "tests/unit/nic_i8255x_bench.h"

// This file's own names, apart from the other files of a unity batch.
namespace bench8255x::nic_i8255x_scb_test {

namespace {
/// eepro100.c-style bit-banged EEPROM command through the EEPROM control register: `cmd` shifted
/// out MSB first over cmd_len+1 clocks; returns the EEDO bits read after each rising edge.
uint32_t eeprom_cmd(Bench& b, uint32_t cmd, int cmd_len) {
  uint32_t ret = 0;
  b.w16(SCBEeprom, eectl::EECS | eectl::EESK);
  do {
    uint16_t dv = (cmd & (1u << cmd_len)) ? uint16_t(eectl::EECS | eectl::EEDI) : uint16_t(eectl::EECS);
    b.w16(SCBEeprom, dv);
    b.w16(SCBEeprom, uint16_t(dv | eectl::EESK));
    ret = (ret << 1) | ((b.r16(SCBEeprom) & eectl::EEDO) ? 1 : 0);
  } while (--cmd_len >= 0);
  b.w16(SCBEeprom, 0);
  return ret;
}
}  // namespace

TEST_CASE("i8255x EEPROM read through the I/O window gives the MAC and the 0xBABA checksum", "[i8255x][scb]") {
  Bench b("82558B0");
  b.base = Bench::kIoBar;  // eepro100 uses I/O space
  run([&] {
    // eepro100 size probe: all ones through bit 17 means 8 address bits, else 6 (dummy zero earlier).
    uint32_t probe = eeprom_cmd(b, 6u << 24, 27);
    CHECK((probe & 0xffe0000) != 0xffe0000);
    unsigned addr_len = 6;
    uint16_t sum = 0;
    std::vector<uint16_t> w;
    for (unsigned i = 0; i < 64; ++i) {
      uint16_t v = uint16_t(eeprom_cmd(b, ((6u << addr_len) | i) << 16, 3 + int(addr_len) + 16) & 0xffff);
      w.push_back(v);
      sum = uint16_t(sum + v);
    }
    CHECK(sum == 0xBABA);
    auto m = b.nic->mac_address();
    for (int i = 0; i < 3; ++i) CHECK(w[i] == uint16_t(m[2 * i] | (m[2 * i + 1] << 8)));
    CHECK(w[6] == SerialEeprom::kPhyWord);
  }, us(10000));
}

TEST_CASE("i8255x serial EEPROM alone: dummy zero after the last address bit, then data MSB first", "[i8255x][scb]") {
  SerialEeprom e(6);
  e.words()[5] = 0xA5C3;
  auto clk = [&](bool di) {
    e.pins(true, false, di);
    e.pins(true, true, di);
    return e.dout();
  };
  e.pins(true, false, false);
  CHECK(clk(false));  // leading zero ignored
  clk(true);          // start bit
  clk(true);
  clk(false);  // opcode 10 = READ
  for (int i = 5; i >= 1; --i) CHECK(clk((5 >> i) & 1));  // EEDO high while the address shifts in
  CHECK_FALSE(clk(5 & 1));                                // the last address bit: dummy 0
  uint16_t v = 0;
  for (int i = 0; i < 16; ++i) v = uint16_t((v << 1) | clk(false));
  CHECK(v == 0xA5C3);
  e.pins(false, false, false);
  CHECK(e.dout());
  CHECK_THROWS_AS(SerialEeprom(7), std::invalid_argument);
}

TEST_CASE("i8255x MDI read of the PHY: ready after one 64-bit MDC frame, link up at 100FD", "[i8255x][scb]") {
  I8255xParams p;
  Bench b("82559", p);
  run([&] {
    sc_time t0 = now();
    b.w32(SCBCtrlMDI, mdi::OP_READ | (1u << mdi::PHY_SHIFT) | (1u << mdi::REG_SHIFT));
    CHECK_FALSE(b.r32(SCBCtrlMDI) & mdi::READY);
    uint32_t v;
    while (!((v = b.r32(SCBCtrlMDI)) & mdi::READY)) sc_core::wait(ns(100));
    CHECK(now() - t0 >= p.mdi_cycle);
    CHECK(now() - t0 < p.mdi_cycle + ns(200));
    CHECK((v & 0x0004));  // BMSR link status
    CHECK((v & 0x0020));  // auto-negotiation complete
    b.w32(SCBCtrlMDI, mdi::OP_READ | (1u << mdi::PHY_SHIFT) | (0u << mdi::REG_SHIFT) | mdi::IE);
    wait_until(now() + p.mdi_cycle + ns(10));
    v = b.r32(SCBCtrlMDI);
    CHECK((v & 0xFFFF) == 0x3100);  // BMCR: 100 Mb/s, AN, full duplex
    CHECK((b.status() & stat::MDI));
    CHECK(b.irq.level);
    b.w32(SCBCtrlMDI, mdi::OP_READ | (2u << mdi::PHY_SHIFT) | (1u << mdi::REG_SHIFT));  // no PHY at address 2
    wait_until(now() + p.mdi_cycle + ns(10));
    CHECK((b.r32(SCBCtrlMDI) & 0xFFFF) == 0xFFFF);
  }, us(1000));
}

TEST_CASE("i8255x SCB: command byte clears on acceptance, SI raises SWI, ack and M", "[i8255x][scb]") {
  I8255xParams p;
  Bench b("82557", p);
  run([&] {
    sc_time t0 = now();
    b.w32(SCBPointer, 0x1000);
    b.w8(SCBCmd, uint8_t(cuc::LOAD_BASE << 4));
    CHECK(b.r8(SCBCmd) != 0);
    wait_until(t0 + p.scb_accept + ns(1));
    CHECK(b.r8(SCBCmd) == 0);
    CHECK(b.cus() == Cus::Idle);
    CHECK(b.rus() == Rus::Idle);
    b.w8(SCBIntrCtl, intr::SI);
    CHECK((b.status() & stat::SWI));
    CHECK(b.irq.level);
    CHECK((b.r8(SCBIntrCtl) & intr::SI) == 0);
    b.w8(SCBIntrCtl, intr::M);  // masked: the pin drops, the status stays
    CHECK_FALSE(b.irq.level);
    CHECK((b.status() & stat::SWI));
    b.w8(SCBIntrCtl, 0);
    CHECK(b.irq.level);
    b.ack(stat::SWI);
    CHECK_FALSE(b.irq.level);
    CHECK((b.status() & stat::SWI) == 0);
    // The 82557 has no specific masks: the CNA mask bit does not hide CNA.
    b.put_cb(0x1000, uint16_t(cb::NOP | cb::EL), kNullLink);
    b.command(uint8_t(cuc::START << 4), 0x1000, intr::CNA_MASK);
    wait_until(now() + us(5));
    CHECK((b.status() & stat::CNA));
    CHECK(b.irq.level);
  }, us(100));
}

TEST_CASE("i8255x SCB: specific interrupt masks on the 82559, PORT software reset", "[i8255x][scb]") {
  Bench b("82559");
  run([&] {
    // Configure + CU start with the CNA mask: CNA is in the status word but INTA# stays low.
    b.put_cb(0x1000, uint16_t(cb::NOP | cb::EL), kNullLink);
    b.command(uint8_t(cuc::START << 4), 0x1000, intr::CNA_MASK);
    wait_until(now() + us(5));
    CHECK((b.status() & stat::CNA));
    CHECK_FALSE(b.irq.level);
    b.w8(SCBIntrCtl, 0);
    CHECK(b.irq.level);
    b.w32(SCBPort, port::SOFTWARE_RESET);
    CHECK_FALSE(b.irq.level);
    CHECK(b.status() == 0);
    // Unknown addresses and wide accesses are errors on the bus.
    uint64_t v = 0;
    CHECK(b.cpu.access(false, Bench::kMemBar + 0x40, &v, 8) == tlm::TLM_BURST_ERROR_RESPONSE);
    CHECK(b.cpu.access(false, Bench::kIoBar + 64, &v, 1) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  }, us(100));
}

}  // namespace bench8255x::nic_i8255x_scb_test
