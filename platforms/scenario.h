// Scenario files: what a run simulates (hosts, NICs in slots with drivers, links, one workload),
// loaded from TOML, validated against the registries (platforms/testbed.h) and resolved to full
// parameter sets (defaults included). The schema is documented in docs/scenarios.md.
//
//   Scenario s = load_scenario("scenarios/seed000/82546eb.toml", {"workload.upper=1024"}, 7);
//
// Every error is a ScenarioError naming the file, line, column and dotted key path, with the
// nearest valid name for a misspelling.
#pragma once
#include "core/fidelity.h"
#include "core/params.h"
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace nicsim {

/// Where a value came from: a scenario file position (1-based line and column), or
/// file == "--set" (line 0) for a command-line override.
struct SourceLoc {
  std::string file;
  int line = 0;
  int column = 0;
};

struct NicConfig {
  std::string host, name;            ///< e.g. "alpha", "eth1" (the Linux interface name)
  std::string device, slot, driver;  ///< registry names / platform slot name
  ParamValues device_params, driver_params;  ///< full sets: schema defaults overlaid with the file
  SourceLoc loc;
};

/// A bonding device (`[hosts.H.bonds.bond0]`): what `modprobe bonding mode=.. miimon=..` and
/// `ifenslave bond0 eth1 eth2` set up on Linux 2.4.20 (drivers-sim/drivers/bonding).
struct BondConfig {
  std::string host, name;           ///< e.g. "alpha", "bond0"
  std::vector<std::string> slaves;  ///< net_device names in ifenslave order: "eth1", "eth1:1" (port 1)
  ParamValues params;               ///< bonding module parameters (bonding_param_schema), defaults included
  SourceLoc loc;
};

struct HostConfig {
  std::string name, platform;
  ParamValues params;  ///< the platform's parameters (e.g. cpu_mhz), defaults included
  std::vector<NicConfig> nics;  ///< in NIC-name order
  std::vector<BondConfig> bonds;  ///< in bond-name order
  /// `[hosts.H.sysctl]`: net.ipv4.* values (tcp_sysctl_schema), defaults included.
  ParamValues sysctl;
  bool sysctl_given = false;  ///< the file set a sysctl table (to_json shows it only then)
  SourceLoc loc;
};

struct LinkConfig {
  std::string a, b;  ///< "host.nic" or "host.nic:port" for multi-port devices (port 0 default)
  double length_m = 2.0;       ///< cable length in metres
  unsigned speed_mbps = 1000;  ///< 10, 100 or 1000
  SourceLoc loc;
  std::string type = "crossover";  ///< LinkEntry name (platforms/testbed.h)
  ParamValues params;              ///< the link model's own parameters (LinkEntry::params)
};

/// A `[[faults]]` entry (docs/faults.md): what happens to a link at a simulated time.
struct FaultConfig {
  /// "cable_pull", "cable_replug", "partner_link_loss" or "frame_error_rate" (kFaultTypes).
  std::string type;
  double at_s = 0;        ///< when, in simulated seconds from the start of the run
  size_t link = 0;        ///< index into Scenario::links (written as `link = N` or through `port`)
  /// partner_link_loss: the port whose partner PHY restarts auto-negotiation; frame_error_rate:
  /// the receiving port (frames toward it arrive with a bad FCS); cable faults: either end, or "".
  std::string port;
  unsigned side = 0;      ///< the side of links[link] `port` is (0 a, 1 b)
  double rate = 0;        ///< frame_error_rate: probability that a frame arrives with a bad FCS
  double until_s = 0;     ///< frame_error_rate: end of the window; 0 = to the end of the run
  /// frame_error_rate: "fcs" (errors decoded as valid symbols, caught by the FCS) or "symbol"
  /// (invalid symbols the receiving PHY flags with RX_ER)
  std::string errors = "fcs";
  double silent_ms = 1250;  ///< partner_link_loss: how long the partner sends nothing (break_link_timer)
  SourceLoc loc;
};
/// The fault types a scenario may name.
inline const std::vector<std::string> kFaultTypes = {"cable_pull", "cable_replug", "partner_link_loss",
                                                     "frame_error_rate"};

struct WorkloadConfig {
  std::string type;
  ParamValues params;
  SourceLoc loc;
};

/// The calibration a scenario names (`calibration = "NAME"`, platforms/calibration_fit.h) and what it
/// applied.
struct ScenarioCalibration {
  std::string name;
  std::string fit_file;          ///< the calibrations/NAME.fit.toml read
  std::string calibration_hash;  ///< of calibrations/NAME.toml (equal to the fit's)
  std::vector<std::pair<std::string, double>> applied;  ///< full key, fitted value
  std::vector<bool> integer;     ///< per applied value
  std::vector<std::string> given;  ///< keys the scenario or a --set gives itself (left alone)
};

/// A validated scenario: every registry name exists, every parameter has a value of its schema's
/// type within range, every slot/device/driver/link combination is possible.
struct Scenario {
  std::string path, name, description;
  uint64_t seed = 1;
  /// Top-level `fidelity` ("exact" default, "fast": core/fidelity.h); run_workload sets it for the run.
  Fidelity fidelity = Fidelity::Exact;
  std::vector<HostConfig> hosts;  ///< in host-name order
  std::vector<LinkConfig> links;  ///< in file order
  std::vector<FaultConfig> faults;  ///< `[[faults]]`, in file order
  WorkloadConfig workload;
  std::vector<std::string> overrides;  ///< the --set arguments applied, in order
  /// Top-level `calibration = "NAME"` (or --set calibration=NAME): the fit and the values applied.
  std::optional<ScenarioCalibration> calibration;

  /// Every value actually used, defaults included:
  /// {"path","name","description","seed","fidelity","overrides","hosts":{NAME:{"platform","params",
  ///  "nics":{NIC:{"device","slot","driver","device_params","driver_params"}}}},
  ///  "links":[{"a","b","type","length_m","speed_mbps","params"}],"workload":{"type","params"}}, plus
  ///  "faults":[{"type","at_s","link","port",...}] when the scenario has faults, and with a calibration
  ///  "calibration":{"name","fit_file","calibration_hash","applied":{KEY:VALUE},"given":[KEY]}.
  nlohmann::json to_json() const;
  /// The host named `name`, or nullptr.
  const HostConfig* find_host(const std::string& name) const;
  /// NIC `nic` of host `host`, or nullptr.
  const NicConfig* find_nic(const std::string& host, const std::string& nic) const;
  /// Bond `bond` of host `host`, or nullptr.
  const BondConfig* find_bond(const std::string& host, const std::string& bond) const;
  /// The bond of host `host` that has port `port` of NIC `nic` as a slave, or nullptr.
  const BondConfig* bond_of_port(const std::string& host, const std::string& nic, unsigned port) const;
};

/// A scenario (or --set) error. what() is
///   `FILE:LINE:COL: key 'a.b.c': message (did you mean 'x'?)`
/// with the position omitted when unknown (line 0, e.g. a missing file or a --set override, where
/// FILE is "--set"), the key part omitted when there is no key (TOML syntax errors), and the
/// suggestion part omitted when there is no plausible misspelling.
class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string file, int line, int column, std::string key, std::string message,
                std::string suggestion = "");
  std::string file;
  int line = 0, column = 0;
  std::string key;         ///< dotted key path, e.g. "hosts.alpha.nics.eth1.RxIntDelay", "links.0.a"
  std::string message;     ///< e.g. "unknown parameter of driver e1000-4.4.12-k1"
  std::string suggestion;  ///< nearest valid name, or ""
  /// what() without the "--set: " origin when the error is an override's ("key 'k': message (did
  /// you mean 'x'?)"), for a caller that names the option itself (sweep's --vary, explain's
  /// --vs-set); otherwise what().
  std::string without_set_origin() const;
};

/// Load, override and validate the scenario file at `path` (schema: docs/scenarios.md).
///  - `sets`: overrides "PATH=VALUE" applied to the TOML tree before validation, in order. PATH is
///    a dotted key path (array elements by index: "links.0.length_m"); a `*` segment matches every
///    existing key (or element) at that level; intermediate tables must exist, the last key may be
///    new. VALUE is parsed as a TOML value (8, 2.5, true, "x"); what does not parse is a bare string.
///  - `seed_override`: replaces the file's `seed` (the CLI's --seed N; applied after `sets`).
/// Returns the resolved scenario. Throws ScenarioError on a missing/unreadable file, TOML syntax
/// error, malformed --set, or any validation failure (see docs/scenarios.md "Errors").
Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets = {},
                       std::optional<uint64_t> seed_override = std::nullopt);

/// As load_scenario, from TOML text in memory; `source_name` is used as FILE in errors.
Scenario load_scenario_text(const std::string& toml_text, const std::string& source_name,
                            const std::vector<std::string>& sets = {},
                            std::optional<uint64_t> seed_override = std::nullopt);

/// A link end or workload endpoint: "host.nic" or "host.nic:port".
struct NicEndpoint {
  std::string host, nic;
  unsigned port = 0;
};
/// Parse "host.nic" / "host.nic:port"; nullopt when malformed (missing part, bad port number).
std::optional<NicEndpoint> parse_endpoint(std::string_view text);

/// ParamSpec::unit of a String parameter that names a NIC ("host.nic[:port]"), e.g. a workload's
/// `transmitter`: the loader checks that the host and NIC exist.
inline constexpr const char* kUnitNicEndpoint = "host.nic";

}  // namespace nicsim
