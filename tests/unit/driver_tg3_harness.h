// Test host for the tg3 driver model against the real BCM5701 model (models/nic/tg3), on the e1000
// driver harness's generic parts (drvtest::TestHost: CPU MMIO with fixed delays and a log of every
// access, flat DRAM behind one bus for DMA, level INTx lines; Peer: a fake Ethernet port).
#pragma once
#include "drivers-sim/drivers/tg3/tg3.h"
#include "models/nic/tg3/tg3.h"
#include "tests/unit/driver_e1000_harness.h"
#include <catch2/catch.hpp>

namespace tg3test {

using namespace nicsim;
using drvtest::Peer;
using drvtest::TestHost;

/// One BCM5701 on a TestHost, probed by `driver` (tg3-0.99 by default) with `set` applied to the
/// parameters (ints and bools), on a kernel with `napi`, cabled at 1000 Mb/s to a Peer (unless
/// `cabled` is false: no link, the PHY sees no partner), with the PCI subsystem vendor
/// `subsystem_vendor` (0x1028: a Dell board, whose link tg3 polls by timer); `open()`
/// runs ifup (probe, then dev_open).
struct Rig {
  TestHost hw{"alpha"};
  std::unique_ptr<tg3::Tg3> nic;
  std::vector<unsigned> vec;
  std::unique_ptr<Kernel> k;
  Peer peer;
  std::unique_ptr<EthLink> link;
  std::shared_ptr<NetDevice> dev;
  tg3drv::Tg3* t = nullptr;
  int rc = -99;

  explicit Rig(const std::vector<std::pair<std::string, ParamValue>>& set = {},
               const char* driver = tg3drv::kDriverName, bool napi = false, bool cabled = true,
               uint32_t subsystem_vendor = 0x14e4) {
    tg3::Tg3Params p;
    p.subsystem_vendor_id = subsystem_vendor;
    nic = std::make_unique<tg3::Tg3>("alpha_eth0", p);
    vec = hw.attach("pci", *nic);
    KernelParams kp = drvtest::kernel_params("alpha");
    kp.napi = napi;
    k = std::make_unique<Kernel>(hw, kp);
    const DriverEntry* de = drvtest::driver(driver);
    REQUIRE(de);
    ParamValues pv(de->params);
    for (const auto& s : set) pv.set(s.first, s.second);
    auto devs = de->probe(*k, *nic, vec, drvtest::nic_config("alpha", "eth0", "BCM5701", de->name), pv);
    REQUIRE(devs.size() == 1);
    dev = devs[0];
    t = dynamic_cast<tg3drv::Tg3*>(dev.get());
    REQUIRE(t);
    if (cabled) link = std::make_unique<EthLink>("link", 1000, 2.0, *nic, peer);
  }
  void open() {
    auto ifup = [this]() -> Task<void> { rc = co_await k->dev_open(*dev); };
    ifup_ = ifup;
    k->spawn_process("ifup", ifup_());
  }
  EthFrame to_nic(unsigned len, uint8_t seed = 1) const {
    return drvtest::make_frame(dev->dev_addr, {0x00, 0x11, 0x22, 0x33, 0x44, 0x55}, len, seed);
  }
  uint64_t bar() const { return nic->bar(0); }

 private:
  std::function<Task<void>()> ifup_;
};

}  // namespace tg3test
