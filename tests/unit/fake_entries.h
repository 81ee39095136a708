// Test-only registry entries (names prefixed "test-"), registered by tests/unit/fake_entries.cpp in
// the test binary only, so the scenario loader and Testbed can be tested without the real models.
//
//   platform test-p4dpr-6gm+  slots: pcix (add-in; refuses 32-bit devices), pci66 (add-in),
//                             lan (onboard position of test-lom); params cpu_mhz, memory_mb
//   devices  test-nic (1 port), test-dual (2 ports, 2 functions), test-nic32 (32-bit),
//            test-lom (onboard only), test-broken (create throws)
//   drivers  test-drv (binds all test devices), test-drv-other (binds only "test-other")
//   links    test-cable
//   workloads test-pingpong (prints a line, counts test.runs), test-fail (returns 1),
//            test-throws (SC_REPORT_ERROR)
#pragma once
#include "platforms/testbed.h"
#include <string>
#include <vector>

namespace nicsim::testing {

/// What the fake platform saw: one line per HostHw::attach, "host:slot:device-instance".
std::vector<std::string>& attach_log();

/// The order the fake hosts, NICs and links were destroyed in: "host:<name>", "nic:<instance>",
/// "link:<name>".
std::vector<std::string>& destroy_log();

/// The fake link object: records the ports it joined and the config it got.
struct FakeLink : sc_core::sc_object {
  FakeLink(const std::string& name, const LinkConfig& cfg, EthPort& a, EthPort& b)
      : sc_core::sc_object(name.c_str()), cfg(cfg), a(&a), b(&b) {}
  ~FakeLink() override { destroy_log().push_back("link:" + std::string(basename())); }
  LinkConfig cfg;
  EthPort *a, *b;
};

}  // namespace nicsim::testing
