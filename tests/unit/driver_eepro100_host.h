// One 8255x host for the eepro100 driver tests: the real 8255x model (models/nic/i8255x) on the
// driver test host (driver_e1000_harness.h, which serves both NIC families), cabled at 100 Mb/s to
// a link peer; eth0 probed by the registered "eepro100" entry and opened at time 0.
#pragma once
#include "driver_e1000_harness.h"
#include "drivers-sim/drivers/eepro100/eepro100.h"
#include "models/nic/i8255x/i8255x.h"

namespace drvtest {

inline const std::array<uint8_t, 6> kEepro100Peer = {0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E};

struct SpeedoHost {
  TestHost hw{"alpha"};
  nicsim::i8255x::I8255x nic{"alpha_eth0", nicsim::i8255x::variant("82559")};
  Peer peer;
  std::vector<unsigned> vec = hw.attach("pcix", nic);
  EthLink cable{"cable", 100, 2.0, nic, peer};
  Kernel k{hw, kernel_params("alpha")};
  std::vector<std::shared_ptr<NetDevice>> devs;
  nicsim::eepro100drv::Speedo* sp = nullptr;
  int open_rc = -99;
  struct Got {
    sc_time t;
    JourneyId j;
    std::vector<uint8_t> bytes;  ///< skb data after eth_type_trans
  };
  std::vector<Got> got;

  /// `set`: module parameters to change from their defaults. Defined in driver_eepro100_host.cpp,
  /// not inline: clang 14 with -g fails on coroutines in inline (comdat) functions of this header
  /// ("Cannot represent a difference across sections", the sanitizer job's build).
  explicit SpeedoHost(std::vector<std::pair<std::string, int64_t>> set = {});
  /// ifconfig eth0 up (a free coroutine: a capturing lambda would die before its frame).
  static Task<void> ifup(SpeedoHost* h);
  uint64_t bar() const { return nic.bar(0); }
  uint32_t mem32(uint64_t a) const {
    uint32_t v = 0;
    hw.mem_read(a, &v, 4);
    return v;
  }
  uint64_t counter(const std::string& what) const { return sim().counters.at("alpha.eth0.driver." + what); }
};

}  // namespace drvtest
