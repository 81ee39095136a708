// The testers' keys and the switch between the testers and the host, for the workloads that offer
// them (rx_flood, forwarding): seed 003's "A switch connects the two ports" / "The switch i have in the middle obeys
// flow control". The same three workload keys in each, one switch instance "switch0"
// (models/ether/switch.h).
#pragma once
#include "core/params.h"
#include "models/ether/switch.h"
#include <memory>
#include <string>

namespace nicsim {

/// What a workload's sources say of its tester keys (add_tester_params).
struct TesterKeyTexts {
  std::string frame_bytes_source;  ///< appended to IEEE 802.3's minFrameSize
  std::string load_doc, load_source;
  std::string start_doc, start_source;
};
/// Append the keys of the testers a workload cables to the host (rx_flood, forwarding):
/// `frame_bytes` (60..1514, default 60), `load` (a fraction of line rate, default 1) and `start_s`
/// (0.001..1e4 s, default 0.1), with the workload's own texts `t`.
void add_tester_params(ParamSchema& s, const TesterKeyTexts& t);

/// Append the workload keys `switch` (bool, default false), `switch_buffer_kb` (KB, 2..65536,
/// SwitchParams's default) and `switch_obey_pause` (bool, default true) to `s`.
void add_switch_params(ParamSchema& s);
/// The switch the keys ask for, with `ports` ports (nullptr when `switch` is false). Call during
/// elaboration.
std::shared_ptr<EthSwitch> make_workload_switch(const ParamValues& p, unsigned ports);

class Testbed;
class TesterPort;
/// Cable tester `i` (`gen`, named `gen_name` in the frame accounting) to `endpoint` (a NIC port,
/// "host.nic[:port]") at 1000 Mb/s over 2 m: straight when `sw` is null, else through it, tester
/// <-> sw port 2i ("generator.link<i>") and sw port 2i+1 <-> the NIC port ("switch0.link<2i+1>").
/// Call before sc_start; throws what Testbed::cable_equipment / cable_equipment_pair throw.
void cable_tester(Testbed& tb, const std::shared_ptr<EthSwitch>& sw, unsigned i, const std::shared_ptr<TesterPort>& gen,
                  const std::string& gen_name, const std::string& endpoint);

}  // namespace nicsim
