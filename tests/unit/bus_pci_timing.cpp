// Phase arithmetic of PCI / PCI-X bursts (research/e7500-p64h2-pcix.md §3).
#include "models/bus/pci_timing.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace bus_pci_timing_test {
using namespace nicsim;


static PciBurstSpec posted_write(uint32_t bytes, unsigned dev_width = 64) {
  PciBurstSpec s;
  s.cmd = PciCommand::MemWrite;
  s.addr = 0x01000000;
  s.bytes = bytes;
  s.device_width_bits = dev_width;
  s.arbitration_clocks = 2;  // §3 worked example
  s.decode_clocks = 1;       // the P64H2 claims with fast DEVSEL
  return s;
}

TEST_CASE("1518-byte posted write on 64-bit PCI 66: arbitration+address+DEVSEL+190 data+turnaround", "[bus][pci]") {
  PciBurstTiming t = pci_burst_clocks(posted_write(1518));
  // Phase list (§3): 2 arbitration + 1 address + 1 DEVSEL + ceil(1518/8)=190 data + 1 turnaround.
  const unsigned data = (1518 + 7) / 8;
  CHECK(data == 190);
  CHECK(t.tenures == 1);
  CHECK(t.data_phases == data);
  CHECK(t.clocks == 2 + 1 + 1 + data + 1);
  CHECK(t.clocks * pci_clock_ns(66) == Approx(2925.0));  // ≈2.9 µs (§3)
}

TEST_CASE("1518-byte posted write on PCI-X 133 adds the attribute phase and the register stage", "[bus][pcix]") {
  PciBurstTiming t = pcix_burst_clocks(posted_write(1518));
  const PciPhaseList& p = t.phases.front();
  CHECK(p.arbitration == 2);
  CHECK(p.address == 1);
  CHECK(p.attribute == 1);
  CHECK(p.decode == 1);
  CHECK(p.register_stage == 1);
  CHECK(p.data == 190);
  CHECK(p.turnaround == 1);
  CHECK(t.clocks == 197);                               // §3 worked example
  CHECK(t.clocks * pci_clock_ns(133) == Approx(1477.5));  // ≈1.5 µs
}

TEST_CASE("a 32-bit device on a 64-bit bus moves 4 bytes per data phase", "[bus][pci]") {
  PciBurstTiming t64 = pci_burst_clocks(posted_write(1518, 64));
  PciBurstTiming t32 = pci_burst_clocks(posted_write(1518, 32));
  CHECK(t32.data_phases == (1518 + 3) / 4);
  CHECK(t32.clocks - t64.clocks == (1518 + 3) / 4 - (1518 + 7) / 8);
  CHECK(pci_data_phases(0x1002, 8, 4) == 3);  // misaligned: touches three DWORDs
  CHECK(pci_data_phases(0x1000, 8, 8) == 1);
}

TEST_CASE("a PCI-X burst the target disconnects at every ADB is one tenure per 128 bytes", "[bus][pcix]") {
  PciBurstSpec s = posted_write(1024);
  s.disconnect_bytes = 128;
  PciBurstTiming t = pcix_burst_clocks(s);
  REQUIRE(t.tenures == 1024 / 128);
  for (auto b : t.tenure_bytes) CHECK(b == 128);
  // each tenure: 2 arb + 1 addr + 1 attr + 1 decode + 1 register + 16 data + 1 turnaround
  CHECK(t.clocks == 8 * (2 + 1 + 1 + 1 + 1 + 128 / 8 + 1));
  // Misaligned start: the first tenure ends at the first ADB.
  s.addr = 0x01000040;
  s.bytes = 256;
  t = pcix_burst_clocks(s);
  REQUIRE(t.tenures == 3);
  CHECK(t.tenure_bytes[0] == 64);
  CHECK(t.tenure_bytes[1] == 128);
  CHECK(t.tenure_bytes[2] == 64);
  // A 512-byte buffer disconnects at the last ADB inside 512 bytes.
  s.addr = 0x01000040;
  s.bytes = 1024;
  s.disconnect_bytes = 512;
  t = pcix_burst_clocks(s);
  CHECK(t.tenure_bytes[0] == 512 - 64);
}

TEST_CASE("conventional PCI disconnects at aligned buffer boundaries", "[bus][pci]") {
  PciBurstSpec s = posted_write(1518);
  s.disconnect_bytes = 512;
  PciBurstTiming t = pci_burst_clocks(s);
  REQUIRE(t.tenures == 3);
  CHECK(t.tenure_bytes[0] == 512);
  CHECK(t.tenure_bytes[2] == 1518 - 1024);
}

TEST_CASE("the latency timer ends a contended burst - MWI finishes its cache line - PCI-X its ADB", "[bus][pci]") {
  PciBurstSpec s = posted_write(4096);
  s.latency_timer_clocks = 64;  // timer starts at FRAME#: 1 address + 1 DEVSEL before data
  PciBurstTiming t = pci_burst_clocks(s);
  CHECK(t.tenure_bytes.front() == (64 - 2) * 8);
  s.cmd = PciCommand::MemWriteInvalidate;
  s.cache_line_bytes = 64;
  t = pci_burst_clocks(s);
  CHECK(t.tenure_bytes.front() == 512);  // 496 rounded up to the end of the line
  s.cmd = PciCommand::MemWrite;
  t = pcix_burst_clocks(s);              // 64 - (addr+attr+decode+register) = 60 phases = 480 B -> ADB 512
  CHECK(t.tenure_bytes.front() == 512);
  CHECK_THROWS_AS(pci_burst_clocks([] { PciBurstSpec x; x.cmd = PciCommand::MemWriteInvalidate; x.addr = 8; x.bytes = 64; return x; }()),
                  std::invalid_argument);
}

TEST_CASE("reads pay an AD turnaround - DAC adds an address clock - Retry and Split Response have no data", "[bus][pci]") {
  PciBurstSpec s = posted_write(64);
  unsigned w = pci_burst_clocks(s).clocks;
  s.cmd = PciCommand::MemReadLine;
  CHECK(pci_burst_clocks(s).clocks == w + 1);
  s.addr = 0x100000000ull;
  CHECK(pci_burst_clocks(s).clocks == w + 2);
  PciTenureSpec r;
  r.read = true;
  r.arbitration_clocks = 2;
  r.term = PciTermination::Retry;
  r.data_phases = 99;  // ignored
  PciPhaseList p = pci_tenure_phases(r);
  CHECK(p.data == 0);
  CHECK(p.total() == 2 + 1 + 1 + 1 + 1 + 1);  // arb, addr, turnaround, DEVSEL, STOP#, idle
}

TEST_CASE("segment mode: one conventional PCI device drops the segment to PCI at the slowest clock", "[bus]") {
  PciDeviceInfo nic{"82546EB", 64, true, 133};
  PciDeviceInfo gbe{"82544GC", 32, false, 66};
  PciDeviceInfo scsi{"AIC-7899", 64, false, 66};
  PciDeviceInfo old{"old", 32, false, 33};
  auto m = resolve_segment_mode({nic}, 100, 66);
  CHECK(m.pcix);
  CHECK(m.mhz == 100);
  m = resolve_segment_mode({gbe, scsi}, 133, 66);
  CHECK_FALSE(m.pcix);
  CHECK(m.mhz == 66);
  m = resolve_segment_mode({nic, old}, 133, 66);
  CHECK_FALSE(m.pcix);
  CHECK(m.mhz == 33);
  CHECK(pci_peak_mb_per_s(64, 66) == Approx(533.33).epsilon(1e-3));
  CHECK(pci_peak_mb_per_s(64, 100) == Approx(800.0));
  CHECK(pci_peak_mb_per_s(64, 133) == Approx(1066.67).epsilon(1e-3));
}

}  // namespace bus_pci_timing_test
