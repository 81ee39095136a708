// The registry entry types that tie scenario files to models, and the Testbed a run builds.
//
//  - PlatformEntry: a board (CPU/chipset/bridges/slots) that builds a HostHw.
//  - DeviceEntry:   a NIC (or other PCI device) that can sit in a slot.
//  - DriverEntry:   a driver model that runs a device from a host's CPUs.
//  - WorkloadEntry: a benchmark that drives a testbed and reports results.
//  - LinkEntry:     a cable model joining two Ethernet ports ("crossover" is the default type).
// Each registers itself with `static Registrar<XEntry> reg{...}` in its own .cpp.
// The scenario types (Scenario, HostConfig, NicConfig, LinkConfig, ...) live in platforms/scenario.h.
#pragma once
#include "core/params.h"
#include "core/registry.h"
#include "models/bus/irq.h"
#include "models/bus/pci.h"
#include "models/ether/frame.h"
#include "platforms/scenario.h"
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

namespace nicsim {

/// A slot (or onboard device position) on a platform.
struct SlotSpec {
  std::string name;         ///< what a scenario writes in `slot = "..."`
  std::string segment;      ///< e.g. "P64H2 segment A"
  std::string description;  ///< e.g. "onboard 82544GC position (32-bit PCI 66)"
  bool onboard = false;     ///< a soldered-down position: only `onboard_devices` can sit there
  std::vector<std::string> onboard_devices;
  /// Optional: why a device cannot sit in this (add-in) slot, "" when it can (e.g. a 5 V-only card
  /// in a 3.3 V-keyed PCI-X slot). The scenario loader reports the reason as an error.
  std::function<std::string(const PciDeviceInfo& dev)> refuse;
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
  /// Call `observer(addr, len)` for every device (DMA) write to DRAM the chipset snoops: the CPUs'
  /// cached copies of those bytes are invalid from then on (the kernel model charges the cache
  /// misses when software reads them). An empty function removes it. Default: a platform without
  /// a snooping chipset model never calls it (software then sees no DMA cache misses).
  virtual void set_dma_write_observer(std::function<void(uint64_t addr, size_t len)> observer) { (void)observer; }
  /// Parameters the platform actually used (for results).
  virtual nlohmann::json params_json() const = 0;
};

/// A problem across several values that per-parameter types and ranges cannot express, found at
/// load time by a PlatformEntry's or WorkloadEntry's `check` (the loader reports it as a
/// ScenarioError at that key's position, exit 2, instead of a failed run).
struct ParamProblem {
  std::string key;      ///< full dotted scenario key to blame, e.g. "hosts.alpha.irq_dest_cpu", "workload.lower"
  std::string message;  ///< what is wrong, e.g. "CPU 1 does not exist: the host has cpus = 1 (CPUs 0..0)"
  std::string suggestion{};  ///< nearest valid spelling of a misspelt name value ("did you mean"), or ""
};

struct PlatformEntry {
  std::string name, summary;
  ParamSchema params;
  std::vector<SlotSpec> slots;
  /// Build the hardware for one host (SystemC modules named under `host.name`).
  std::function<std::unique_ptr<HostHw>(const HostConfig& host)> build;
  /// The topology as an indented tree (buses, clocks, widths, slots, what sits where).
  std::function<std::string(const ParamValues& params)> describe;
  /// Optional: cross-parameter checks of one host (host.params holds every parameter, defaults
  /// included), e.g. irq_dest_cpu < cpus. Returns the problems (keys "hosts.<name>.<param>"), none
  /// when the host can be built.
  std::function<std::vector<ParamProblem>(const HostConfig& host)> check{};
};

struct DeviceEntry {
  std::string name, summary;
  ParamSchema params;
  PciDeviceInfo info;
  unsigned ports = 1;  ///< Ethernet ports (the 82546EB has 2)
  /// Create one device instance named `inst_name`.
  std::function<std::unique_ptr<PciDevice>(const std::string& inst_name, const ParamValues& params)> create;
  /// A LAN-on-motherboard part (e.g. 82544GC): only an onboard position listing it can hold it.
  bool onboard_only = false;
  /// Optional: load-time checks of one NIC's device parameters (`params` holds every parameter,
  /// defaults included) beyond their types and ranges, e.g. a malformed mac_address. ParamProblem
  /// keys are parameter names; the loader blames "hosts.<host>.nics.<nic>.<key>".
  std::function<std::vector<ParamProblem>(const ParamValues& params)> check{};
};

class Kernel;
class NetDevice;

struct DriverEntry {
  std::string name, summary;
  ParamSchema params;
  std::vector<std::string> devices;  ///< device names this driver binds to
  /// The driver's probe (pci_driver.probe): create one net_device per Ethernet port of `dev` on
  /// kernel `k` and register it (Kernel::register_netdev); does not open it. Port 0 is named
  /// `nic.name` (e.g. "eth1"), port i > 0 `nic.name + ":" + i`. `vectors[fn]` is function fn's
  /// interrupt vector; `dev.bar(fn)` its register BAR. `params` are the module parameters.
  /// Throws std::invalid_argument for a device the driver does not support.
  std::function<std::vector<std::shared_ptr<NetDevice>>(Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors,
                                                        const NicConfig& nic, const ParamValues& params)>
      probe;
  /// Optional: load-time checks of one NIC's module parameters (every parameter, defaults
  /// included) beyond their types and ranges, e.g. values inside the range the driver does not
  /// accept. ParamProblem keys are parameter names, as for DeviceEntry::check.
  std::function<std::vector<ParamProblem>(const ParamValues& params)> check{};
};

/// A cable model. `create` builds the link named `name` (a SystemC object, e.g. models/ether's
/// EthLink) between MAC ports `a` and `b` (each gets its EthLinkEnd through EthPort::attach_link)
/// and returns it; the Testbed owns it. (shared_ptr because sc_object's destructor is protected:
/// `return std::make_unique<EthLink>(...)` converts and deletes through EthLink's destructor.)
/// Scenario `[[links]]` tables pick an entry with `type = "..."` (default "crossover"); keys other
/// than a, b, type, length_m, speed_mbps are validated against `params` and arrive in
/// LinkConfig::params. The "crossover" entry is registered next to the Ethernet link model's
/// platform binding (not in models/, which knows nothing of platforms/).
struct LinkEntry {
  std::string name, summary;
  std::function<std::shared_ptr<sc_core::sc_object>(const std::string& name, const LinkConfig& cfg, EthPort& a,
                                                    EthPort& b)>
      create;
  ParamSchema params;
};

class Testbed;
struct WorkloadEntry {
  std::string name, summary;
  ParamSchema params;
  /// Run the workload on a built testbed. Prints its own output to `out`, fills `results`
  /// ("metrics" etc.). Returns 0 on success, 1 when the run failed.
  /// The workload builds its software on `tb` (keeping it alive in tb.keepalive), runs the
  /// simulation itself (sc_start) and returns. `results` is the run's result envelope
  /// (core/results.h results_envelope): fill results["metrics"]; the CLI adds counters.
  std::function<int(Testbed& tb, std::ostream& out, nlohmann::json& results)> run;
  /// Optional: checks of the whole scenario this workload needs beyond its parameters' ranges
  /// (e.g. NetPIPE lower <= upper, its two ends on different cabled hosts with a ticking kernel).
  /// Called by the loader after everything else validated. Returns the problems, none when the
  /// workload can run.
  std::function<std::vector<ParamProblem>(const Scenario& s)> check{};
};

/// One NIC of a built testbed.
struct TestbedNic {
  const NicConfig* config = nullptr;          ///< its scenario table (params with defaults)
  const DeviceEntry* device_entry = nullptr;  ///< registry entry of config->device
  const DriverEntry* driver_entry = nullptr;  ///< registry entry of config->driver
  std::unique_ptr<PciDevice> device;          ///< the hardware, plugged into config->slot
  std::vector<unsigned> vectors;  ///< interrupt vector of each PCI function (HostHw::attach's answer)
  PciDevice* dev() const { return device.get(); }
};

/// One host of a built testbed.
struct TestbedHost {
  const HostConfig* config = nullptr;
  const PlatformEntry* platform = nullptr;
  std::unique_ptr<HostHw> hw;
  std::vector<TestbedNic> nics;  ///< in the order of config->nics
  const std::string& name() const { return config->name; }
  /// The NIC named `nic`. Throws std::out_of_range naming it when absent.
  TestbedNic& nic(const std::string& nic);
};

/// The counts of one direction of a link, for frame accounting.
struct DirectionCounts {
  std::string link, from, to;  ///< "links.0", sending and receiving endpoints
  FrameTally sender, receiver;
  uint64_t carried = 0, delivered = 0, in_flight = 0;  ///< the link's counts for this direction
};

/// One direction's accounting entry (see Testbed::frame_accounting); appends what does not add up
/// to `problems`, one sentence each, naming the link, the ports and the numbers.
nlohmann::json account_direction(const DirectionCounts& c, std::vector<std::string>& problems);

/// The hardware of a scenario, built and bound, ready for software and sc_start().
///
/// Construction (elaboration; call once per process, before sc_start): seeds sim().rng with the
/// scenario seed; for each host, PlatformEntry::build -> HostHw; for each NIC,
/// DeviceEntry::create (SystemC name "<host>_<nic>") then HostHw::attach(slot, device); for each
/// link, LinkEntry::create("link<i>", cfg, port a, port b). A multi-port device (82546EB) is one
/// device in one slot; links name its ports "host.nic:port".
///
/// Software (drivers, stacks, applications) is built later by workloads on top of this and kept
/// alive by pushing it into `keepalive`; it is destroyed first, before any hardware.
class Testbed {
 public:
  /// Builds everything. Throws std::runtime_error naming the host/NIC/link being built when a
  /// model or platform fails (the scenario itself was validated by load_scenario).
  explicit Testbed(Scenario scenario);
  ~Testbed();
  Testbed(const Testbed&) = delete;
  Testbed& operator=(const Testbed&) = delete;

  const Scenario& scenario() const { return scenario_; }
  std::vector<TestbedHost>& hosts() { return hosts_; }
  /// The host named `name`. Throws std::out_of_range when absent.
  TestbedHost& host(const std::string& name);
  /// NIC `nic` of host `host`. Throws std::out_of_range when absent.
  TestbedNic& nic(const std::string& host, const std::string& nic);
  /// The NIC an endpoint names ("host.nic" or "host.nic:port"; the port is ignored).
  TestbedNic& nic(const std::string& endpoint);
  /// The MAC port an endpoint names ("host.nic" = port 0). Throws std::out_of_range.
  EthPort& port(const std::string& endpoint);
  /// The link objects, in scenario order.
  const std::vector<std::shared_ptr<sc_core::sc_object>>& links() const { return links_; }
  /// {host: HostHw::params_json()} — the platform parameters the hardware actually used — plus, per
  /// host, {"nics": {nic: {"clock_ppm": ppm}}}: the crystal offset each 8254x NIC runs at.
  nlohmann::json hardware_json() const;
  /// Frame accounting of every link direction (result.json "accounting"): the frames the sending
  /// port put on the wire must equal what the link carried, and those the link carried must all
  /// be in flight, accepted by the receiving port, held in it, consumed by its MAC, or dropped
  /// for a counted reason. {"directions": [{link, from, to, sent, carried, in_flight, delivered,
  /// accepted, held{}, consumed{}, dropped{}, unaccounted}], "problems": [text], "balanced": bool}.
  /// A port or link whose model keeps no counts is a problem too: nothing goes unchecked.
  nlohmann::json frame_accounting();

  /// Software built per host by workloads/drivers; released (in reverse order) before hardware.
  std::vector<std::shared_ptr<void>> keepalive;

 private:
  Scenario scenario_;
  std::vector<TestbedHost> hosts_;
  std::vector<std::shared_ptr<sc_core::sc_object>> links_;
};

}  // namespace nicsim
