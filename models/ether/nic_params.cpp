#include "models/ether/nic_params.h"
#include "core/sim_context.h"
#include "models/ether/frame.h"
#include <algorithm>
#include <fmt/format.h>

namespace nicsim {

ParamSchema NicTimingParams::clock_schema(std::string clock_doc, std::string clock_source) const {
  return {
      real_param("clock_ppm", clock_ppm, -100.0, 100.0, "ppm", std::move(clock_doc), std::move(clock_source)),
      real_param("clock_ppm_spread", clock_ppm_spread, 0.0, 100.0, "ppm",
                 "standard deviation of a per-device random offset drawn from the run seed and added to clock_ppm "
                 "(0: exactly clock_ppm); the result is clipped to ±100 ppm",
                 "estimate: commodity crystals sit within a few tens of ppm of nominal at room temperature, inside "
                 "802.3's ±100 ppm; DESIGN.md 'Default offsets come from the scenario seed'"),
  };
}

ParamSchema NicTimingParams::latency_schema(std::string source) const {
  return {
      real_param("mac_tx_latency_ns", to_ns(mac_tx_latency), 0.0, 100000.0, "ns", "MAC transmit pipeline", source),
      real_param("phy_tx_latency_ns", to_ns(phy_tx_latency), 0.0, 100000.0, "ns", "PHY transmit path", source),
      real_param("phy_rx_latency_ns", to_ns(phy_rx_latency), 0.0, 100000.0, "ns", "PHY receive path", source),
      real_param("mac_rx_latency_ns", to_ns(mac_rx_latency), 0.0, 100000.0, "ns", "MAC receive pipeline", source),
  };
}

void NicTimingParams::read_timing(const ParamValues& v) {
  clock_ppm = v.r("clock_ppm");
  clock_ppm_spread = v.r("clock_ppm_spread");
  mac_tx_latency = ns(v.r("mac_tx_latency_ns"));
  phy_tx_latency = ns(v.r("phy_tx_latency_ns"));
  phy_rx_latency = ns(v.r("phy_rx_latency_ns"));
  mac_rx_latency = ns(v.r("mac_rx_latency_ns"));
}

void NicTimingParams::draw_clock_offset(const std::string& inst) {
  if (clock_ppm_spread <= 0) return;
  Rng r = sim().rng.derive(inst + ".clock_ppm");
  clock_ppm = std::clamp(clock_ppm + r.normal(0.0, clock_ppm_spread), -100.0, 100.0);
}

std::vector<ParamProblem> nic_param_problems(const ParamValues& pv) {
  std::vector<ParamProblem> out;
  // The station address (from the EEPROM / NVRAM) must be a unicast, non-zero MAC.
  if (!pv.s("mac_address").empty())
    if (std::string why = station_address_problem(pv.s("mac_address")); !why.empty())
      out.push_back({"mac_address", why});
  // PCI 2.2 §6.2.4: the Cache Line Size register holds a power-of-two count of DWORDs; a value
  // the device does not support is treated as 0 (no MRL/MRM/MWI). The models need a real line.
  const int64_t cl = pv.i("cache_line_bytes");
  if (cl <= 0 || (cl & (cl - 1)))
    out.push_back({"cache_line_bytes", fmt::format("{} bytes is not a power of two (PCI 2.2 §6.2.4: the Cache Line "
                                                   "Size register holds 4, 8, 16, 32 or 64 DWORDs: 16..256 bytes)",
                                                   cl)});
  return out;
}

ParamSchema concat_schemas(std::initializer_list<ParamSchema> parts) {
  ParamSchema out;
  for (const ParamSchema& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

}  // namespace nicsim
