// Testbed: builds a validated Scenario's hardware from the registries (platforms/testbed.h).
#include "platforms/testbed.h"
#include "core/result_names.h"
#include "core/sim_context.h"
#include "models/ether/link.h"
#include "models/ether/link_faults.h"
#include <algorithm>
#include <fmt/core.h>
#include <stdexcept>

namespace nicsim {

TestbedNic& TestbedHost::nic(const std::string& n) {
  for (auto& x : nics)
    if (x.config->name == n) return x;
  throw std::out_of_range(fmt::format("host {} has no NIC '{}'", name(), n));
}

Testbed::Testbed(Scenario scenario) : scenario_(std::move(scenario)) {
  // Models derive their random streams at construction: seed first.
  sim().rng = Rng(scenario_.seed);
  result_names().clear();

  hosts_.reserve(scenario_.hosts.size());
  for (const HostConfig& hc : scenario_.hosts) {
    TestbedHost h;
    h.config = &hc;
    h.platform = Registry<PlatformEntry>::instance().find(hc.platform);
    if (!h.platform || !h.platform->build)
      throw std::runtime_error(fmt::format("host {}: platform '{}' cannot be built", hc.name, hc.platform));
    try {
      h.hw = h.platform->build(hc);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("building host {} ({}): {}", hc.name, hc.platform, e.what()));
    }
    if (!h.hw) throw std::runtime_error(fmt::format("building host {} ({}): platform returned nothing", hc.name, hc.platform));

    for (const NicConfig& nc : hc.nics) {
      TestbedNic n;
      n.config = &nc;
      n.device_entry = Registry<DeviceEntry>::instance().find(nc.device);
      n.driver_entry = Registry<DriverEntry>::instance().find(nc.driver);
      if (!n.device_entry || !n.device_entry->create)
        throw std::runtime_error(fmt::format("NIC {}.{}: device '{}' cannot be created", hc.name, nc.name, nc.device));
      try {
        const std::string inst = hc.name + "_" + nc.name;
        n.device = n.device_entry->create(inst, nc.device_params);
        if (!n.device) throw std::runtime_error("device model returned nothing");
        // Results name the NIC as the scenario does: "alpha.eth1", port i > 0 "alpha.eth1:i"
        // (DeviceEntry: a multi-port model names port i "<instance>.port<i>").
        const std::string scen = hc.name + "." + nc.name;
        result_names().alias(inst, scen);
        for (unsigned p = 0; p < n.device_entry->ports; ++p)
          result_names().alias(inst + ".port" + std::to_string(p), p == 0 ? scen : scen + ":" + std::to_string(p));
        n.vectors = h.hw->attach(nc.slot, *n.device);
      } catch (const std::exception& e) {
        throw std::runtime_error(
            fmt::format("NIC {}.{} ({} in slot '{}'): {}", hc.name, nc.name, nc.device, nc.slot, e.what()));
      }
      h.nics.push_back(std::move(n));
    }
    hosts_.push_back(std::move(h));
  }

  for (size_t i = 0; i < scenario_.links.size(); ++i) {
    const LinkConfig& lc = scenario_.links[i];
    const LinkEntry* le = Registry<LinkEntry>::instance().find(lc.type);
    if (!le || !le->create)
      throw std::runtime_error(fmt::format("links.{}: link type '{}' cannot be created", i, lc.type));
    try {
      auto link = le->create(fmt::format("link{}", i), lc, port(lc.a), port(lc.b));
      if (!link) throw std::runtime_error("link model returned nothing");
      links_.push_back(std::move(link));
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("links.{} ({} <-> {}): {}", i, lc.a, lc.b, e.what()));
    }
  }
  arm_faults();
}

void Testbed::arm_faults() {
  for (size_t i = 0; i < scenario_.faults.size(); ++i) {
    const FaultConfig& f = scenario_.faults[i];
    auto* link = f.link < links_.size() ? dynamic_cast<EthLink*>(links_[f.link].get()) : nullptr;
    if (!link)
      throw std::runtime_error(fmt::format("faults.{}: links.{} is not an Ethernet cable model that can fail", i, f.link));
    LinkFaults faults(*link);
    faults.set_label(fmt::format("links.{}", f.link));
    const sc_time at = sec(f.at_s);
    try {
      if (f.type == "cable_pull" || f.type == "cable_replug") {
        faults.schedule_cable(at, f.type == "cable_replug");
      } else if (f.type == "partner_link_loss") {
        faults.schedule_partner_loss(at, 1 - f.side, ms(f.silent_ms));  // the far end restarts
      } else if (f.type == "frame_error_rate") {
        // Toward `port`: the direction whose receiving side is f.side (dir 0 a->b delivers to b).
        const unsigned dir = f.side == 1 ? 0 : 1;
        const sc_time until = f.until_s > 0 ? sec(f.until_s) : sc_core::sc_max_time();
        faults.add_error_window(dir, at, until, f.rate, f.errors == "symbol");
      } else {
        throw std::invalid_argument("unknown fault type '" + f.type + "'");
      }
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(fmt::format("faults.{} ({}): {}", i, f.type, e.what()));
    }
  }
}

Testbed::~Testbed() {
  // Software first (it holds raw pointers into the hardware), newest first.
  while (!keepalive.empty()) keepalive.pop_back();
  // Then the hardware, also newest first: links, then hosts from the last one (a vector destroys
  // its elements first to last). SystemC 2.3's port and export registries find an object to
  // remove by scanning from the newest end (sc_port_registry::remove, sc_export_registry::remove),
  // so destroying in reverse order of construction costs O(1) per port, and in construction
  // order O(ports alive): 2,000 empty hosts took 25 s, most of it here.
  while (!equipment_links_.empty()) equipment_links_.pop_back();
  while (!links_.empty()) links_.pop_back();
  while (!hosts_.empty()) {
    TestbedHost& h = hosts_.back();
    while (!h.nics.empty()) h.nics.pop_back();  // created after the host's hardware
    hosts_.pop_back();
  }
}

TestbedHost& Testbed::host(const std::string& name) {
  for (auto& h : hosts_)
    if (h.name() == name) return h;
  throw std::out_of_range(fmt::format("no host '{}' in the testbed", name));
}

TestbedNic& Testbed::nic(const std::string& host_name, const std::string& nic_name) {
  return host(host_name).nic(nic_name);
}

TestbedNic& Testbed::nic(const std::string& endpoint) {
  auto ep = parse_endpoint(endpoint);
  if (!ep) throw std::out_of_range(fmt::format("'{}' is not \"host.nic\" or \"host.nic:port\"", endpoint));
  return nic(ep->host, ep->nic);
}

EthPort& Testbed::port(const std::string& endpoint) {
  auto ep = parse_endpoint(endpoint);
  if (!ep) throw std::out_of_range(fmt::format("'{}' is not \"host.nic\" or \"host.nic:port\"", endpoint));
  TestbedNic& n = nic(ep->host, ep->nic);
  EthPort* p = ep->port < n.device->eth_ports() ? n.device->eth_port(ep->port) : nullptr;
  if (!p)
    throw std::out_of_range(fmt::format("{}.{} ({}) has no Ethernet port {}", ep->host, ep->nic, n.config->device, ep->port));
  return *p;
}

nlohmann::json Testbed::hardware_json() const {
  nlohmann::json j = nlohmann::json::object();
  for (auto& h : hosts_) {
    j[h.name()] = h.hw->params_json();
    // The crystal offset each NIC actually runs at: clock_ppm plus the seeded clock_ppm_spread draw
    // (DESIGN.md "Clocks drift"). Two NICs' offsets set how fast their interrupt timers slide past
    // each other (docs/tcp-stream-itr-beat.md).
    // Each device model reports what it ran at (DeviceEntry::hardware_json).
    for (auto& n : h.nics)
      if (n.device_entry && n.device_entry->hardware_json) {
        const nlohmann::json hw = n.device_entry->hardware_json(*n.dev());  // a local: items() of a temporary dangles
        for (auto& [k, v] : hw.items()) j[h.name()]["nics"][n.config->name][k] = v;
      }
  }
  return j;
}

nlohmann::json account_direction(const DirectionCounts& c, std::vector<std::string>& problems) {
  auto reasons = [](const FrameTally::Reasons& rs, uint64_t& sum) {
    nlohmann::json j = nlohmann::json::object();
    for (auto& [why, n] : rs) {
      j[why] = n;
      sum += n;
    }
    return j;
  };
  uint64_t held = 0, consumed = 0, dropped = 0;
  nlohmann::json d = {{"link", c.link},           {"from", c.from},           {"to", c.to},
                      {"sent", c.sender.sent},    {"carried", c.carried},     {"in_flight", c.in_flight},
                      {"delivered", c.delivered}, {"accepted", c.receiver.accepted}};
  // Frames the link lost on a dead wire (a cable pulled, a partner silent: docs/faults.md).
  if (c.lost) d["lost_on_wire"] = c.lost;
  d["held"] = reasons(c.receiver.held, held);
  d["consumed"] = reasons(c.receiver.consumed, consumed);
  d["dropped"] = reasons(c.receiver.dropped, dropped);
  // Signed: a port that counts more frames than it was given is as wrong as one that loses some.
  int64_t unaccounted = int64_t(c.delivered) - int64_t(c.receiver.accepted + held + consumed + dropped);
  d["unaccounted"] = unaccounted;
  std::string what = fmt::format("{} {} -> {}", c.link, c.from, c.to);
  if (c.sender.sent != c.carried)
    problems.push_back(fmt::format("{}: the port sent {} frames, the link carried {}", what, c.sender.sent, c.carried));
  if (c.carried != c.delivered + c.in_flight + c.lost)
    problems.push_back(fmt::format("{}: the link carried {} frames but delivered {} with {} in flight and {} lost on the wire",
                                   what, c.carried, c.delivered, c.in_flight, c.lost));
  if (unaccounted != 0)
    problems.push_back(fmt::format("{}: {} of the {} frames delivered are not accounted for (accepted {}, held {}, "
                                   "consumed {}, dropped {})",
                                   what, unaccounted, c.delivered, c.receiver.accepted, held, consumed, dropped));
  return d;
}

void Testbed::cable_equipment(const std::string& link_name, std::shared_ptr<sc_core::sc_object> equipment,
                              EthPort& eq_port, const std::string& eq_name, const std::string& endpoint,
                              unsigned speed_mbps, double length_m) {
  EthPort& nic_port = port(endpoint);
  for (auto& lc : scenario_.links)
    if (&port(lc.a) == &nic_port || &port(lc.b) == &nic_port)
      throw std::logic_error(fmt::format("{} is already cabled by the scenario ({} <-> {})", endpoint, lc.a, lc.b));
  for (auto& e : equipment_links_)
    if (!e.far_port && e.endpoint == endpoint) throw std::logic_error(fmt::format("{} is already cabled to {}", endpoint, e.eq_name));
  // SystemC names cannot hold '.': the module is "tester_link0", its results "tester.link0".
  std::string sc_name = link_name;
  std::replace(sc_name.begin(), sc_name.end(), '.', '_');
  auto link = std::make_shared<EthLink>(sc_name.c_str(), speed_mbps, length_m, eq_port, nic_port);
  result_names().alias(sc_name, link_name);
  if (tap_factory_) tap(link_name, link.get(), eq_name, endpoint);
  equipment_links_.push_back({link_name, eq_name, endpoint, std::move(equipment), std::move(link), &eq_port, nullptr, nullptr});
}

void Testbed::cable_equipment_pair(const std::string& link_name, std::shared_ptr<sc_core::sc_object> equipment_a,
                                   EthPort& port_a, const std::string& name_a,
                                   std::shared_ptr<sc_core::sc_object> equipment_b, EthPort& port_b,
                                   const std::string& name_b, unsigned speed_mbps, double length_m) {
  std::string sc_name = link_name;
  std::replace(sc_name.begin(), sc_name.end(), '.', '_');
  auto link = std::make_shared<EthLink>(sc_name.c_str(), speed_mbps, length_m, port_a, port_b);
  result_names().alias(sc_name, link_name);
  if (tap_factory_) tap(link_name, link.get(), name_a, name_b);
  equipment_links_.push_back(
      {link_name, name_a, name_b, std::move(equipment_a), std::move(link), &port_a, &port_b, std::move(equipment_b)});
}

void Testbed::tap(const std::string& link_name, sc_core::sc_object* obj, const std::string& a, const std::string& b) {
  auto* link = dynamic_cast<EthLink*>(obj);
  if (!link) {
    untappable_.push_back(link_name);
    return;
  }
  link->set_tap(tap_factory_(link_name, a, b));
}

std::vector<std::string> Testbed::tap_links(TapFactory make) {
  tap_factory_ = std::move(make);
  untappable_.clear();
  for (size_t i = 0; i < scenario_.links.size() && i < links_.size(); ++i)
    tap(fmt::format("links.{}", i), links_[i].get(), scenario_.links[i].a, scenario_.links[i].b);
  for (auto& e : equipment_links_) tap(e.link_name, e.link.get(), e.eq_name, e.endpoint);
  return untappable_;
}

nlohmann::json Testbed::frame_accounting() {
  nlohmann::json dirs = nlohmann::json::array();
  std::vector<std::string> problems;
  // One direction of a link between ports `a` (side 0) and `b`.
  auto direction = [&](const std::string& link_name, const sc_core::sc_object* obj, const std::string& a_name,
                       EthPort& a, const std::string& b_name, EthPort& b, unsigned dir) {
    const auto* link = dynamic_cast<const EthLink*>(obj);
    DirectionCounts c;
    c.link = link_name;
    c.from = dir == 0 ? a_name : b_name;
    c.to = dir == 0 ? b_name : a_name;
    auto sent = (dir == 0 ? a : b).tally();
    auto got = (dir == 0 ? b : a).tally();
    if (!link || !sent || !got) {
      problems.push_back(fmt::format("{} {} -> {}: the {} model keeps no frame counts", c.link, c.from, c.to,
                                     !link ? "link" : !sent ? "sending port's" : "receiving port's"));
      return;
    }
    c.sender = *sent;
    c.receiver = *got;
    c.carried = link->frames(dir);
    c.delivered = link->delivered(dir);
    c.in_flight = link->in_flight(dir);
    c.lost = LinkFaults::lost(*link, dir);
    dirs.push_back(account_direction(c, problems));
  };
  for (size_t i = 0; i < scenario_.links.size() && i < links_.size(); ++i) {
    const LinkConfig& lc = scenario_.links[i];
    for (unsigned dir = 0; dir < 2; ++dir)
      direction(fmt::format("links.{}", i), links_[i].get(), lc.a, port(lc.a), lc.b, port(lc.b), dir);
  }
  for (auto& e : equipment_links_)
    for (unsigned dir = 0; dir < 2; ++dir)
      direction(e.link_name, e.link.get(), e.eq_name, *e.eq_port, e.endpoint,
                e.far_port ? *e.far_port : port(e.endpoint), dir);
  return {{"directions", dirs}, {"problems", problems}, {"balanced", problems.empty()}};
}

}  // namespace nicsim
