// The registry entry types that tie scenario files to models, and the Testbed a run builds.
//
//  - PlatformEntry: a board (CPU/chipset/bridges/slots) that builds a HostHw.
//  - DeviceEntry:   a NIC (or other PCI device) that can sit in a slot (models/device_entry.h).
//  - DriverEntry:   a driver model that runs a device from a host's CPUs (drivers-sim/driver_entry.h).
//  - WorkloadEntry: a benchmark that drives a testbed and reports results.
//  - LinkEntry:     a cable model joining two Ethernet ports ("crossover" is the default type).
// Each registers itself with `static Registrar<XEntry> reg{...}` in its own .cpp.
// The scenario types (Scenario, HostConfig, NicConfig, LinkConfig, ...) live in platforms/scenario.h.
#pragma once
#include "core/param_problem.h"
#include "core/params.h"
#include "core/registry.h"
#include "drivers-sim/driver_entry.h"
#include "models/bus/irq.h"
#include "models/bus/pci.h"
#include "models/device_entry.h"
#include "models/ether/frame.h"
#include "models/ether/link.h"
#include "models/host/host_face.h"
#include "platforms/scenario.h"
#include <functional>
#include <map>
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
  /// Device parameters the board gives what sits here, under the scenario's own keys (which win):
  /// e.g. the PCI subsystem vendor an onboard NIC's EEPROM holds. Names the device lacks are skipped.
  std::map<std::string, ParamValue> device_params;
  /// Optional: why a device cannot sit in this (add-in) slot, "" when it can (e.g. a 5 V-only card
  /// in a 3.3 V-keyed PCI-X slot). The scenario loader reports the reason as an error.
  std::function<std::string(const PciDeviceInfo& dev)> refuse;
};

/// The hardware of one host, built by a platform: the face software sees (models/host/host_face.h)
/// plus what assembly needs. CPUs attach on the front-side bus; devices attach in slots. All binding
/// happens before sc_start().
class HostHw : public HostFace {
 public:
  /// Plug `dev` into slot `slot` (binds sockets, assigns BARs, routes INTx to the segment's
  /// I/OxAPIC). Returns the interrupt vector assigned to each function. Throws std::invalid_argument
  /// when the slot does not exist or is taken.
  virtual std::vector<unsigned> attach(const std::string& slot, PciDevice& dev) = 0;
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
  /// Optional: cross-parameter checks of one host (host.params holds every parameter, defaults
  /// included), e.g. irq_dest_cpu < cpus. Returns the problems (keys "hosts.<name>.<param>"), none
  /// when the host can be built.
  std::function<std::vector<ParamProblem>(const HostConfig& host)> check{};
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
  uint64_t lost = 0;  ///< frames the link lost on a dead wire (faults); carried = delivered + in_flight + lost
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
  /// accepted, held{}, consumed{}, dropped{}, unaccounted, lost_on_wire (only when a fault lost frames on
  /// the dead line)}], "problems": [text], "balanced": bool}.
  /// A port or link whose model keeps no counts is a problem too: nothing goes unchecked.
  nlohmann::json frame_accounting();
  /// Cable a workload's own equipment to the NIC port `endpoint`: a crossover EthLink named
  /// `link_name` between `eq_port` (reported as `eq_name`, e.g. "tester.port0") and that port, at
  /// the NIC's link speed `speed_mbps` over `length_m` metres. Used for what a scenario does not
  /// describe as a host, e.g. the traffic generator of the rx_flood bench workload
  /// (models/ether/traffic_gen.h). `equipment` (the module owning `eq_port`) and the link live as
  /// long as the hardware, and both directions are in frame_accounting() under `link_name`.
  /// Call before sc_start. Throws std::logic_error when the scenario already cabled `endpoint`,
  /// std::out_of_range for an endpoint that does not exist, std::invalid_argument from EthLink.
  void cable_equipment(const std::string& link_name, std::shared_ptr<sc_core::sc_object> equipment, EthPort& eq_port,
                       const std::string& eq_name, const std::string& endpoint, unsigned speed_mbps, double length_m);

  /// Cable two pieces of test equipment to each other (a tester port to a switch port,
  /// models/ether/switch.h), as cable_equipment does a piece of equipment to a NIC port: both
  /// directions are in frame_accounting() under `link_name`; `equipment_a`/`_b` own the ports and
  /// live as long as the hardware. Call before sc_start. Throws std::invalid_argument from EthLink.
  void cable_equipment_pair(const std::string& link_name, std::shared_ptr<sc_core::sc_object> equipment_a,
                            EthPort& port_a, const std::string& name_a, std::shared_ptr<sc_core::sc_object> equipment_b,
                            EthPort& port_b, const std::string& name_b, unsigned speed_mbps, double length_m);

  /// Creates the EthTap of one link (name as in frame_accounting: "links.<i>" or the equipment
  /// link's name; its side-0 and side-1 endpoint names), or nullptr to leave it untapped (this
  /// detaches a tap attached before).
  using TapFactory = std::function<EthTap*(const std::string& link, const std::string& a, const std::string& b)>;
  /// Attach a tap made by `make` to every link now built and to every link cable_equipment builds
  /// later (a workload cables its equipment during run). Returns the names of the links whose model
  /// cannot be tapped (not an EthLink), empty when every link is. The taps must outlive the links'
  /// traffic (the caller owns them).
  std::vector<std::string> tap_links(TapFactory make);

  /// Software built per host by workloads/drivers; released (in reverse order) before hardware.
  std::vector<std::shared_ptr<void>> keepalive;

 private:
  /// Schedule the scenario's [[faults]] on their links (EthLink::schedule_cable, ...).
  void arm_faults();
  Scenario scenario_;
  std::vector<TestbedHost> hosts_;
  std::vector<std::shared_ptr<sc_core::sc_object>> links_;
  struct EquipmentLink {
    std::string link_name, eq_name, endpoint;
    std::shared_ptr<sc_core::sc_object> equipment, link;
    EthPort* eq_port = nullptr;
    EthPort* far_port = nullptr;  ///< equipment at the far end (cable_equipment_pair; endpoint is its name), or null
    std::shared_ptr<sc_core::sc_object> far_equipment;
  };
  std::vector<EquipmentLink> equipment_links_;
  TapFactory tap_factory_;
  std::vector<std::string> untappable_;
  void tap(const std::string& link_name, sc_core::sc_object* link, const std::string& a, const std::string& b);
};

}  // namespace nicsim
