#include "platforms/workload_switch.h"
#include "models/ether/traffic_gen.h"
#include "platforms/testbed.h"
#include <fmt/format.h>

namespace nicsim {

void add_tester_params(ParamSchema& s, const TesterKeyTexts& t) {
  s.push_back(int_param("frame_bytes", 60, 60, 1514, "bytes",
                        "frame length without FCS (60 = the 64-byte minimum frame; 1514 = full size)",
                        "IEEE 802.3 §4.4.2 minFrameSize 64 bytes incl. FCS" +
                            (t.frame_bytes_source.empty() ? "" : "; " + t.frame_bytes_source)));
  s.push_back(real_param("load", 1.0, 1e-6, 1.0, "fraction of line rate", t.load_doc, t.load_source));
  s.push_back(real_param("start_s", 0.1, 0.001, 1e4, "s", t.start_doc, t.start_source));
}

void add_switch_params(ParamSchema& s) {
  s.push_back(bool_param("switch", false, "a store-and-forward switch between the testers and each router/host port",
                         "seed 003: \"A switch connects the two ports\""));
  s.push_back(int_param("switch_buffer_kb", SwitchParams{}.buffer_kb, 2, 65536, "KB", "the switch's shared packet memory",
                        "models/ether/switch.h SwitchParams::buffer_kb (Netgear FS726T: 256 KB)"));
  s.push_back(int_param("switch_port_queue_kb", SwitchParams{}.port_queue_kb, 0, 65536, "KB",
                        "cap of one output queue in the shared memory; 0: only the shared memory limits it",
                        "models/ether/switch.h SwitchParams::port_queue_kb (estimate: 0); what-if"));
  s.push_back(bool_param("switch_obey_pause", true, "the switch stops a port's output on a PAUSE from the NIC (802.3x)",
                         "seed 003: \"The switch i have in the middle obeys flow control\""));
}

std::shared_ptr<EthSwitch> make_workload_switch(const ParamValues& p, unsigned ports) {
  if (!p.b("switch")) return nullptr;
  SwitchParams sp;
  sp.buffer_kb = static_cast<unsigned>(p.i("switch_buffer_kb"));
  sp.port_queue_kb = static_cast<unsigned>(p.i("switch_port_queue_kb"));
  sp.obey_pause = p.b("switch_obey_pause");
  return std::make_shared<EthSwitch>("switch0", ports, sp);
}

void cable_tester(Testbed& tb, const std::shared_ptr<EthSwitch>& sw, unsigned i, const std::shared_ptr<TesterPort>& gen,
                  const std::string& gen_name, const std::string& endpoint) {
  if (!sw) {
    tb.cable_equipment(fmt::format("generator.link{}", i), gen, *gen, gen_name, endpoint, 1000, 2.0);
    return;
  }
  const unsigned tester_side = 2 * i, nic_side = tester_side + 1;
  tb.cable_equipment_pair(fmt::format("generator.link{}", i), gen, *gen, gen_name, sw, sw->port(tester_side),
                          fmt::format("switch0.port{}", tester_side), 1000, 2.0);
  tb.cable_equipment(fmt::format("switch0.link{}", nic_side), sw, sw->port(nic_side),
                     fmt::format("switch0.port{}", nic_side), endpoint, 1000, 2.0);
}

}  // namespace nicsim
