// Test host for the gmac v1.5k4 driver model against the real GMAC model (models/nic/gem), on the
// e1000 driver harness's generic parts (drvtest::TestHost: CPU MMIO with fixed delays and a log of
// every access with its width, flat DRAM behind one bus for DMA, level INTx lines; Peer: a fake
// Ethernet port). The kernel runs the powermac-g4 profiles (linux-2.4.16-ppc on ppc7450: big-endian,
// HZ 100, 32-byte lines, cost table linux-2.4-ppc7450) at 733 MHz.
#pragma once
#include "drivers-sim/drivers/gmac/gmac.h"
#include "drivers-sim/kernel/profiles.h"
#include "models/nic/gem/gem.h"
#include "platforms/powermac_g4.h"
#include "tests/unit/driver_e1000_harness.h"
#include <catch2/catch.hpp>

namespace gmactest {

using namespace nicsim;
using drvtest::Peer;
using drvtest::TestHost;

/// The powermac-g4 kernel's parameters for host `host` at 733 MHz, one CPU.
inline KernelParams g4_kernel_params(const std::string& host) {
  KernelParams p = kernel_params_of(kernel_profile(kPowerMacKernelProfile), cpu_profile(kPowerMacCpuProfile));
  p.host = host;
  p.cpus = 1;
  p.cpu_mhz = 733;
  p.hz_tick = true;
  return p;
}

/// One GMAC on a TestHost (its PCI clock `pci_mhz`), probed by gmac, cabled at 1000 Mb/s to a Peer
/// (unless `cabled` is false); `open()` runs ifup (probe, then dev_open).
struct Rig {
  TestHost hw{"alpha"};
  std::unique_ptr<gem::Gmac> nic;
  std::vector<unsigned> vec;
  std::unique_ptr<Kernel> k;
  Peer peer;
  std::unique_ptr<EthLink> link;
  std::shared_ptr<NetDevice> dev;
  gmacdrv::Gmac* g = nullptr;
  int rc = -99;
  sc_time opened_at = SC_ZERO_TIME;

  /// `set`: driver parameters over the DriverEntry's defaults (the RX_BLANK what-if).
  explicit Rig(double pci_mhz = 200.0 / 3.0, bool cabled = true,
               const std::vector<std::pair<std::string, ParamValue>>& set = {}) {
    gem::GemParams p;
    p.clock_ppm = 0;
    p.pci_mhz = pci_mhz;
    nic = std::make_unique<gem::Gmac>("alpha_eth0", p);
    vec = hw.attach("pci", *nic);
    k = std::make_unique<Kernel>(hw, g4_kernel_params("alpha"));
    const DriverEntry* de = drvtest::driver(gmacdrv::kDriverName);
    REQUIRE(de);
    ParamValues pv(de->params);
    for (const auto& [name, v] : set) pv.set(name, v);
    auto devs = de->probe(*k, *nic, vec, drvtest::nic_config("alpha", "eth0", "GMAC", de->name), pv);
    REQUIRE(devs.size() == 1);
    dev = devs[0];
    g = dynamic_cast<gmacdrv::Gmac*>(dev.get());
    REQUIRE(g);
    if (cabled) link = std::make_unique<EthLink>("link", 1000, 2.0, *nic, peer);
  }
  void open() {
    ifup_ = [this]() -> Task<void> {
      rc = co_await k->dev_open(*dev);
      opened_at = now();
    };
    k->spawn_process("ifup", ifup_());
  }
  EthFrame to_nic(unsigned len, uint8_t seed = 1) const {
    return drvtest::make_frame(dev->dev_addr, {0x00, 0x11, 0x22, 0x33, 0x44, 0x55}, len, seed);
  }
  uint64_t bar() const { return nic->bar(0); }
  /// The MMIO accesses of width `len` to BAR0 offset `off` (writes or reads), in issue order.
  std::vector<drvtest::MmioRec> at(uint32_t off, bool write, unsigned len) const {
    std::vector<drvtest::MmioRec> r;
    for (const auto& m : hw.mmio)
      if (m.addr == bar() + off && m.write == write && m.len == len) r.push_back(m);
    return r;
  }
  /// The values written to GM_RX_KICK (16-bit, 0x4100), in order.
  std::vector<uint32_t> rx_kicks() const {
    std::vector<uint32_t> v;
    for (const auto& m : at(0x4100, true, 2)) v.push_back(m.v);
    return v;
  }
  /// 16 bytes of host memory at `a`.
  std::array<uint8_t, 16> desc(uint64_t a) const {
    std::array<uint8_t, 16> d{};
    hw.mem_read(a, d.data(), d.size());
    return d;
  }

 private:
  std::function<Task<void>()> ifup_;
};

/// The time gmac_open takes here: two gmac_start_dma (4 x mdelay(20) each), the PHY reset GPIO
/// (2 x mdelay(10)), the PHY resets (mdelay(10) each) and the MIF frames; frames are sent after it.
inline constexpr double kOpenDoneMs = 400;

}  // namespace gmactest
