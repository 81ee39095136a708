// What the scenario loader checks about a driver beyond its module parameters, registered beside
// its DriverEntry under the same name (Registry<DriverTraits>): the cost tables that charge its
// paths, the receive buffer a full frame costs a socket, and the link modes its parameters give.
// A driver without traits is checked for none of these.
#pragma once
#include "core/params.h"
#include "core/registry.h"
#include <cstdint>
#include <functional>
#include <string>

namespace nicsim {

/// The link modes a driver's module parameters let its PHY use, for the scenario loader's link
/// resolution (IEEE 802.3 clause 28 / Annex 28B). Mode bits as e1000's AutoNeg: bit0 10/HD,
/// bit1 10/FD, bit2 100/HD, bit3 100/FD, bit4 1000/HD, bit5 1000/FD.
struct LinkModes {
  bool autoneg = true;      ///< false: one forced mode (`modes` has one bit), no autonegotiation
  unsigned modes = 0x3F;    ///< advertised (autoneg) or the forced mode
  std::string how;          ///< the parameters that decided it, e.g. "Speed = 100, Duplex = 2: forced"
  std::string problem;      ///< a parameter the driver ignores, else empty (refused at load)
  std::string key;          ///< the module parameter that decided it; empty: all at their defaults
};

struct DriverTraits {
  std::string name;  ///< the DriverEntry's name, e.g. "e1000-4.4.12-k1"
  /// The driver family whose cost tables charge its paths (DriverCostTable::driver, e.g. "e1000").
  /// The scenario loader refuses a NIC on a host whose cost profile has no table for it (the probe
  /// would only fail at run time), listing the profiles that have one.
  std::string cost_driver;
  /// skb->truesize of the receive buffer a full 1500-byte frame arrives in (the driver's ring
  /// buffer, as dev_alloc_skb/alloc_skb sized it): what a socket is charged per received frame or
  /// fragment. Empty: not declared (load-time checks then assume the smallest buffer a 1514-byte
  /// frame fits).
  std::function<uint32_t(const ParamValues& params)> rx_truesize{};
  /// The link modes the module parameters give the PHY (forced speed/duplex, advertisement).
  /// Empty: autonegotiation advertising every mode of the device.
  std::function<LinkModes(const ParamValues& params)> link_modes{};
};

}  // namespace nicsim
