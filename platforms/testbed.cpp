// Testbed: builds a validated Scenario's hardware from the registries (platforms/testbed.h).
#include "platforms/testbed.h"
#include "core/result_names.h"
#include "core/sim_context.h"
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
}

Testbed::~Testbed() {
  // Software first (it holds raw pointers into the hardware), newest first.
  while (!keepalive.empty()) keepalive.pop_back();
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

}  // namespace nicsim
