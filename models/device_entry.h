// DeviceEntry: how a device model (a NIC or other PCI device) registers itself.
//
// A model's own .cpp registers one entry per part it models with
// `static Registrar<DeviceEntry> reg{...}` (core/registry.h); the scenario loader and Testbed
// (platforms/) find it by name. Lives in models/ so a model can register without knowing how it
// is assembled.
#pragma once
#include "core/param_problem.h"
#include "core/params.h"
#include "core/registry.h"
#include "models/bus/pci.h"
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace nicsim {

struct DeviceEntry {
  std::string name, summary;  ///< name as a scenario writes it in `device = "..."`, e.g. "82546EB"
  ParamSchema params;         ///< the device parameters a scenario may set (hosts.H.nics.N.<param>)
  PciDeviceInfo info;
  /// Ethernet ports (the 82546EB has 2). A multi-port model names port i's counters, journey marks
  /// and trace tracks "<instance>.port<i>"; results report them as "<host>.<nic>" (port 0) and
  /// "<host>.<nic>:<i>" (core/result_names.h, declared by the Testbed).
  unsigned ports = 1;
  /// Create one device instance named `inst_name` (its SystemC name, e.g. "alpha_eth1") with
  /// `params` (every parameter, defaults included).
  std::function<std::unique_ptr<PciDevice>(const std::string& inst_name, const ParamValues& params)> create;
  /// A LAN-on-motherboard part (e.g. 82544GC): only an onboard position listing it can hold it.
  bool onboard_only = false;
  /// Optional: load-time checks of one NIC's device parameters (`params` holds every parameter,
  /// defaults included) beyond their types and ranges, e.g. a malformed mac_address. ParamProblem
  /// keys are parameter names; the loader blames "hosts.<host>.nics.<nic>.<key>".
  std::function<std::vector<ParamProblem>(const ParamValues& params)> check{};
  /// Optional: what one built instance (made by `create`) actually runs at, for result.json's
  /// `hardware.<host>.nics.<nic>` (e.g. {"clock_ppm": -12.3}, the 8254x crystal offset after the
  /// seeded spread). Empty: nothing is reported for the device.
  std::function<nlohmann::json(const PciDevice& dev)> hardware_json{};
  /// Ethernet speeds its PHY/MAC can link at (Mb/s), ascending. A [[links]] entry without
  /// speed_mbps runs at the highest speed both ends have (auto-negotiation, IEEE 802.3 clause 28);
  /// an explicit speed a port lacks is refused at load.
  std::vector<unsigned> link_speeds_mbps{10, 100, 1000};
};

}  // namespace nicsim
