// End to end: software on a P4DPR-6GM+ reads an 82559's EEPROM and SCB status through I/O space
// with Linux 2.4's inw/outw (drivers-sim/kernel/task.h), over FSB -> E7500 MCH -> Hub-Link 2.0 ->
// P64H2 segment B (PCI 33: the 8255x is a 32-bit 33 MHz part) -> the device's I/O BAR, the way
// eepro100 (Becker v1.09j-t, read_eeprom / do_eeprom_cmd) does at probe time.
#include "core/sim_context.h"
#include "drivers-sim/kernel/kernel.h"
#include "models/nic/i8255x/i8255x.h"
#include "platforms/e7500_host.h"
#include "platforms/supermicro_p4dpr_6gm.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace platform_p4dpr_io_test {
using namespace nicsim;

namespace {
// eepro100.c EEPROM control bits (its own names: EE_SHIFT_CLK, EE_CS, EE_DATA_READ; EE_DATA_WRITE is
// the 0x04 inside EE_WRITE_1).
constexpr uint16_t EE_SHIFT_CLK = 0x01, EE_CS = 0x02, EE_DATA_READ = 0x08;
constexpr uint16_t EE_ENB = 0x4800 | EE_CS, EE_WRITE_0 = 0x4802, EE_WRITE_1 = 0x4806;
constexpr uint16_t SCBStatus = 0, SCBeeprom = 14;  // eepro100.c enum SCBPort_offsets

/// eepro100.c do_eeprom_cmd: `cmd` shifted out MSB first over cmd_len+1 clocks through
/// outw/inw on ioaddr + SCBeeprom (udelay(2) between steps omitted: no timer in this bench).
Task<uint32_t> do_eeprom_cmd(uint16_t ioaddr, uint32_t cmd, int cmd_len, unsigned& ios) {
  uint32_t retval = 0;
  const uint16_t ee_addr = uint16_t(ioaddr + SCBeeprom);
  co_await outw(EE_ENB, ee_addr);
  co_await outw(EE_ENB | EE_SHIFT_CLK, ee_addr);
  ios += 2;
  do {
    uint16_t dataval = (cmd & (1u << cmd_len)) ? EE_WRITE_1 : EE_WRITE_0;
    co_await outw(dataval, ee_addr);
    co_await outw(uint16_t(dataval | EE_SHIFT_CLK), ee_addr);
    uint16_t in = co_await inw(ee_addr);
    retval = (retval << 1) | ((in & EE_DATA_READ) ? 1 : 0);
    ios += 3;
  } while (--cmd_len >= 0);
  co_await outw(EE_ENB, ee_addr);
  co_await outw(uint16_t(EE_ENB & ~EE_CS), ee_addr);
  ios += 2;
  co_return retval;
}
}  // namespace

TEST_CASE("P4DPR-6GM+ software reads an 82559 EEPROM and SCB status through I/O space with inw and outw", "[platform][io][i8255x]") {
  ParamValues pv(p4dpr_param_schema());
  E7500BoardSpec spec = p4dpr_board(pv);
  E7500Host host("alpha", spec, nlohmann::json::object());
  i8255x::I8255x nic("alpha_eth1", i8255x::variant("82559"));
  host.attach("pcix", nic);  // a 32-bit 33 MHz card in the 64-bit PCI-X slot: segment B runs PCI 33
  KernelParams kp;
  kp.host = "alpha";
  kp.cpus = 1;
  kp.cpu_mhz = spec.cpu_mhz;
  kp.hz_tick = false;
  Kernel k(host, kp);
  const uint16_t ioaddr = uint16_t(nic.io_bar(0));
  std::vector<uint16_t> words;
  uint16_t status = 0xFFFF;
  uint8_t status_lo = 0xFF;
  unsigned ios = 0;
  sc_time t0, t1, one_in;
  auto pmain = [&]() -> Task<void> {
    t0 = now();
    for (unsigned i = 0; i < 3; ++i) {
      // eepro100 read_eeprom, 6 address bits (82559 default EEPROM: 64 words).
      uint32_t v = co_await do_eeprom_cmd(ioaddr, ((6u << 6) | i) << 16, 3 + 6 + 16, ios);
      words.push_back(uint16_t(v & 0xFFFF));
    }
    t1 = now();
    sc_time a = now();
    status = co_await inw(uint16_t(ioaddr + SCBStatus));
    one_in = now() - a;
    status_lo = co_await inb(uint16_t(ioaddr + SCBStatus));
  };
  auto task = pmain();
  k.spawn_process("probe", 0, std::move(task));
  sc_core::sc_start(ms(5));

  REQUIRE(words.size() == 3);
  auto mac = nic.mac_address();
  for (int i = 0; i < 3; ++i) CHECK(words[i] == uint16_t(mac[2 * i] | (mac[2 * i + 1] << 8)));
  // After reset the CU and RU are idle: SCB status byte 0 (the STAT/ACK byte is clear too).
  CHECK(status == 0);
  CHECK(status_lo == 0);
  // Every access was an I/O cycle down HI_C to segment B; none was a memory cycle.
  const std::string mch = host.mch().name(), segB = host.bridge().segment(1).counter_prefix();
  CHECK(sim().counters.get(mch + ".io_reads") == uint64_t(3 * 26 + 2));
  CHECK(sim().counters.get(mch + ".io_writes") == uint64_t(ios - 3 * 26));
  CHECK(sim().counters.get(segB + ".io_reads") == uint64_t(3 * 26 + 2));
  CHECK(sim().counters.get(mch + ".mmio_reads") == 0);
  // Each IN stalls the CPU for the chipset round trip (~1 µs class, research §4: "every I/O
  // operation to a NIC takes in the order of 1 µs" [S34]); OUTs are not posted, so the EEPROM
  // reads cost about (ios) round trips.
  CHECK(to_us(one_in) > 0.6);
  CHECK(to_us(one_in) < 1.5);
  CHECK(t1 - t0 >= one_in * (double(ios) * 0.9));
}

TEST_CASE("P4DPR-6GM+ p64h2_mr_fetch_bytes sets what the P64H2 fetches for one inbound Memory Read (default one QWORD)",
          "[platform][bridge]") {
  ParamValues pv(p4dpr_param_schema());
  CHECK(p4dpr_board(pv).bridge.mr_fetch_bytes == 8);
  pv.set("p64h2_mr_fetch_bytes", int64_t(64));
  CHECK(p4dpr_board(pv).bridge.mr_fetch_bytes == 64);
}

}  // namespace platform_p4dpr_io_test
