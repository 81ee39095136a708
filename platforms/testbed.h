// The registry entry types that tie scenario files to models, and the Testbed a run builds.
//
//  - PlatformEntry: a board (CPU/chipset/bridges/slots) that builds a HostHw.
//  - DeviceEntry:   a NIC (or other PCI device) that can sit in a slot.
//  - DriverEntry:   a driver model that runs a device from a host's CPUs.
//  - WorkloadEntry: a benchmark that drives a testbed and reports results.
// Each registers itself with `static Registrar<XEntry> reg{...}` in its own .cpp.
#pragma once
#include "core/params.h"
#include "core/registry.h"
#include "models/bus/irq.h"
#include "models/bus/pci.h"
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

namespace nicsim {

struct SourceLoc {
  std::string file;
  int line = 0;
  int column = 0;
};

struct NicConfig {
  std::string host, name;            ///< e.g. "alpha", "eth1"
  std::string device, slot, driver;  ///< registry names / platform slot name
  ParamValues device_params, driver_params;
  SourceLoc loc;
};

struct HostConfig {
  std::string name, platform;
  ParamValues params;  ///< the platform's parameters (e.g. cpu_mhz)
  std::vector<NicConfig> nics;
  SourceLoc loc;
};

struct LinkConfig {
  std::string a, b;  ///< "host.nic" or "host.nic:port" for multi-port devices
  double length_m = 2.0;
  unsigned speed_mbps = 1000;
  SourceLoc loc;
};

struct WorkloadConfig {
  std::string type;
  ParamValues params;
  SourceLoc loc;
};

/// A validated scenario.
struct Scenario {
  std::string path, name, description;
  uint64_t seed = 1;
  std::vector<HostConfig> hosts;
  std::vector<LinkConfig> links;
  WorkloadConfig workload;
  nlohmann::json to_json() const;  ///< every value actually used, defaults included
};

/// A slot (or onboard device position) on a platform.
struct SlotSpec {
  std::string name;         ///< what a scenario writes in `slot = "..."`
  std::string segment;      ///< e.g. "P64H2 segment A"
  std::string description;  ///< e.g. "onboard 82544GC position (32-bit PCI 66)"
  bool onboard = false;     ///< a soldered-down position: only `onboard_devices` can sit there
  std::vector<std::string> onboard_devices;
};

/// The hardware of one host, built by a platform. CPUs attach on the front-side bus; devices attach
/// in slots. All binding happens before sc_start().
class HostHw {
 public:
  virtual ~HostHw() = default;
  virtual const std::string& name() const = 0;
  /// Plug `dev` into slot `slot` (binds sockets, assigns BARs, routes INTx to the segment's
  /// I/OxAPIC). Returns the interrupt vector assigned to each function. Throws std::invalid_argument
  /// when the slot does not exist or is taken.
  virtual std::vector<unsigned> attach(const std::string& slot, PciDevice& dev) = 0;
  /// The MCH's front-side-bus target: CPU MMIO and memory accesses go here.
  virtual tlm::tlm_target_socket<>& fsb_target() = 0;
  /// Interrupt messages to CPUs leave here; bind to the CPU complex's local APICs.
  virtual sc_core::sc_port<apic_msg_if>& apic_out() = 0;
  /// Local APIC EOIs come in here.
  virtual eoi_if& eoi_in() = 0;
  /// Functional (zero-time) access to host DRAM for software models: descriptor rings and packet
  /// buffers are written and read by the driver through this; timing is charged by the caller.
  virtual void mem_write(uint64_t addr, const void* src, size_t len) = 0;
  virtual void mem_read(uint64_t addr, void* dst, size_t len) const = 0;
  /// Bytes of DRAM (addresses [0, dram_bytes) are memory; MMIO lives above).
  virtual uint64_t dram_bytes() const = 0;
  /// Parameters the platform actually used (for results).
  virtual nlohmann::json params_json() const = 0;
};

struct PlatformEntry {
  std::string name, summary;
  ParamSchema params;
  std::vector<SlotSpec> slots;
  /// Build the hardware for one host (SystemC modules named under `host.name`).
  std::function<std::unique_ptr<HostHw>(const HostConfig& host)> build;
  /// The topology as an indented tree (buses, clocks, widths, slots, what sits where).
  std::function<std::string(const ParamValues& params)> describe;
};

struct DeviceEntry {
  std::string name, summary;
  ParamSchema params;
  PciDeviceInfo info;
  unsigned ports = 1;  ///< Ethernet ports (the 82546EB has 2)
  /// Create one device instance named `inst_name`.
  std::function<std::unique_ptr<PciDevice>(const std::string& inst_name, const ParamValues& params)> create;
};

struct DriverEntry {
  std::string name, summary;
  ParamSchema params;
  std::vector<std::string> devices;  ///< device names this driver binds to
};

class Testbed;
struct WorkloadEntry {
  std::string name, summary;
  ParamSchema params;
  /// Run the workload on a built testbed. Prints its own output to `out`, fills `results`
  /// ("metrics" etc.). Returns 0 on success, 1 when the run failed.
  std::function<int(Testbed& tb, std::ostream& out, nlohmann::json& results)> run;
};

}  // namespace nicsim
