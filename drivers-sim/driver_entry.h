// DriverEntry: how a driver model registers itself, and what its probe is told.
//
// A driver's own .cpp registers one entry per driver version with
// `static Registrar<DriverEntry> reg{...}` (core/registry.h); the scenario loader and
// build_software (platforms/) find it by name. Lives in drivers-sim/ so a driver can register
// without reaching into the assembly layer: its probe sees the kernel, the PCI function(s) and
// the names the scenario gave, like Linux's pci_driver.probe sees a pci_dev.
#pragma once
#include "core/param_problem.h"
#include "core/params.h"
#include "core/registry.h"
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace nicsim {

class Kernel;
class NetDevice;
class PciDevice;

/// The NIC a probe binds, as the scenario names it.
struct ProbeTarget {
  std::string ifname;  ///< interface name of port 0, e.g. "eth1" (the scenario's NIC name)
  std::string device;  ///< DeviceEntry name of the part, e.g. "82546EB" (the pci_device_id match)
};

struct DriverEntry {
  std::string name, summary;         ///< name as a scenario writes it in `driver = "..."`
  ParamSchema params;                ///< module parameters (hosts.H.nics.N.<param>)
  std::vector<std::string> devices;  ///< device names this driver binds to
  /// The driver's probe (pci_driver.probe): create one net_device per Ethernet port of `dev` on
  /// kernel `k` and register it (Kernel::register_netdev); does not open it. Port 0 is named
  /// `nic.ifname` (e.g. "eth1"), port i > 0 `nic.ifname + ":" + i`. `vectors[fn]` is function fn's
  /// interrupt vector; `dev.bar(fn)` its register BAR. `params` are the module parameters (every
  /// parameter, defaults included). Throws std::invalid_argument for a device the driver does not
  /// support.
  std::function<std::vector<std::shared_ptr<NetDevice>>(Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors,
                                                        const ProbeTarget& nic, const ParamValues& params)>
      probe;
  /// Optional: load-time checks of one NIC's module parameters (every parameter, defaults
  /// included) beyond their types and ranges, e.g. values inside the range the driver does not
  /// accept. ParamProblem keys are parameter names, as for DeviceEntry::check.
  std::function<std::vector<ParamProblem>(const ParamValues& params)> check{};
  /// A NAPI driver (netif_rx_schedule, dev->poll): the scenario loader refuses it on a host whose
  /// kernel profile has napi = false, naming hosts.H.nics.N.driver (the probe would only fail at run time).
  bool needs_napi = false;
};

}  // namespace nicsim
