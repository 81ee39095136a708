// NicTimingParams: the clock offset and MAC/PHY pipeline latencies every NIC model has.
//
// Each NIC's parameter struct (E1000Params, I8255xParams, Tg3Params, GemParams) derives from it
// and gives its own defaults, each with its source; its schema() declares the six entries through
// clock_schema() / latency_schema() (one text for all NICs) and its from() reads them back with
// read_timing(). Its DeviceEntry::check starts from nic_param_problems(); its DeviceEntry::create applies the seeded crystal spread with
// draw_clock_offset() before building the device.
#pragma once
#include "core/param_problem.h"
#include "core/params.h"
#include "core/units.h"
#include <initializer_list>
#include <string>
#include <vector>

namespace nicsim {

struct NicTimingParams {
  /// Offset of the NIC's reference clock from nominal, ppm: its timers tick from it. IEEE 802.3
  /// allows ±100 ppm (DESIGN.md "Clocks drift").
  double clock_ppm = 0.0;
  /// σ (ppm) of the per-instance random offset draw_clock_offset() adds to clock_ppm from the run
  /// seed (0: exactly clock_ppm). estimate: commodity crystals sit within a few tens of ppm of
  /// nominal at room temperature.
  double clock_ppm_spread = 15.0;
  sc_time mac_tx_latency{};  ///< MAC transmit pipeline (packet buffer/FIFO → GMII/MII); each NIC's default
  sc_time phy_tx_latency{};  ///< PHY transmit path (GMII/MII → MDI); each NIC's default
  sc_time phy_rx_latency{};  ///< PHY receive path (MDI → GMII/MII); each NIC's default
  sc_time mac_rx_latency{};  ///< MAC receive pipeline (GMII/MII → packet buffer, filters); each NIC's default

  /// Schema entries clock_ppm and clock_ppm_spread (ppm, ranges [-100, 100] and [0, 100]) with this
  /// object's values as defaults. `clock_doc` says which clock the offset is of and what ticks from
  /// it; `clock_source` is clock_ppm's source.
  ParamSchema clock_schema(std::string clock_doc,
                           std::string clock_source = "IEEE 802.3 ±100 ppm; DESIGN.md 'Clocks drift'") const;
  /// Schema entries mac_tx_latency_ns, phy_tx_latency_ns, phy_rx_latency_ns, mac_rx_latency_ns
  /// (ns, range [0, 100000]) with this object's values as defaults; `source` for all four.
  ParamSchema latency_schema(std::string source = "estimate") const;
  /// Sets the six fields from validated values of a schema holding clock_schema() and
  /// latency_schema(). Throws std::out_of_range naming a missing entry.
  void read_timing(const ParamValues& v);
  /// When clock_ppm_spread > 0: adds one normal(0, clock_ppm_spread) draw from the run seed's
  /// stream "<inst>.clock_ppm" to clock_ppm, clipped to ±100 ppm (DESIGN.md "Default offsets come
  /// from the scenario seed"). One call per device instance, before the device is built.
  void draw_clock_offset(const std::string& inst);
};

/// The load-time checks every PCI NIC's DeviceEntry::check starts with, on `pv` (all its device
/// parameters): a mac_address that is set must be a unicast, non-zero station address
/// (station_address_problem, models/ether/frame.h); cache_line_bytes must be a power of two
/// (PCI 2.2 §6.2.4). Keys are the parameter names.
std::vector<ParamProblem> nic_param_problems(const ParamValues& pv);

/// The schemas in `parts`, one after the other (a NIC's schema() splices in the shared entries).
ParamSchema concat_schemas(std::initializer_list<ParamSchema> parts);

}  // namespace nicsim
