// Test host for the e100 driver model against the real 8255x model (models/nic/i8255x). It reuses
// the e1000 driver harness's generic parts (drvtest::TestHost: CPU MMIO to a device BAR with fixed
// delays and a log of every access, flat DRAM behind one bus for DMA, level INTx lines; Peer: a
// fake Ethernet port), which know nothing of the e1000 beyond the header they sit in.
// NOTE: the eepro100 driver tests may grow a similar bench; this one is e100's own.
#pragma once
#include "drivers-sim/drivers/e100/e100.h"
#include "drivers-sim/drivers/e100/e100_ucode.h"
#include "models/nic/i8255x/i8255x.h"
#include "tests/unit/driver_e1000_harness.h"
#include <catch2/catch.hpp>

namespace e100test {

using namespace nicsim;
using drvtest::Peer;
using drvtest::TestHost;

/// One 8255x `part` on a TestHost, probed by e100-2.1.6-k1 with `set` applied to the module
/// parameters, cabled at 100 Mb/s to a Peer; `open()` runs ifup (probe, then dev_open).
struct Rig {
  TestHost hw{"alpha"};
  std::unique_ptr<i8255x::I8255x> nic;
  std::vector<unsigned> vec;
  std::unique_ptr<Kernel> k;
  Peer peer;
  std::unique_ptr<EthLink> link;
  std::shared_ptr<NetDevice> dev;
  e100drv::Adapter* a = nullptr;
  int rc = -99;

  explicit Rig(const char* part, const std::vector<std::pair<std::string, int64_t>>& set = {}) {
    nic = std::make_unique<i8255x::I8255x>("alpha_eth0", i8255x::variant(part));
    vec = hw.attach("pci", *nic);
    k = std::make_unique<Kernel>(hw, drvtest::kernel_params("alpha"));
    const DriverEntry* de = drvtest::driver(e100drv::kDriverName);
    REQUIRE(de);
    ParamValues pv(de->params);
    for (const auto& s : set) pv.set(s.first, s.second);
    auto devs = de->probe(*k, *nic, vec, drvtest::nic_config("alpha", "eth0", part, de->name), pv);
    REQUIRE(devs.size() == 1);
    dev = devs[0];
    a = dynamic_cast<e100drv::Adapter*>(dev.get());
    REQUIRE(a);
    link = std::make_unique<EthLink>("link", 100, 2.0, *nic, peer);
  }
  /// Start ifup (dev_open) now; run the simulation with sc_start afterwards.
  void open() {
    auto ifup = [this]() -> Task<void> { rc = co_await k->dev_open(*dev); };
    ifup_ = ifup;
    k->spawn_process("ifup", ifup_());
  }
  /// Frame `len` bytes from the peer to the NIC's station address.
  EthFrame to_nic(unsigned len, uint8_t seed = 1) const {
    return drvtest::make_frame(dev->dev_addr, {0x00, 0x11, 0x22, 0x33, 0x44, 0x55}, len, seed);
  }

 private:
  std::function<Task<void>()> ifup_;
};

}  // namespace e100test
