// The station address a NIC model starts with: the scenario's mac_address, or one derived from the
// vendor's OUI and the instance name.
#pragma once
#include <array>
#include <cstdint>
#include <string>

namespace nicsim {

/// `mac_address` ("00:02:b3:12:34:56") when it is set; throws std::invalid_argument
/// "<inst>: mac_address <why>" when it is not a unicast, non-zero station address
/// (station_address_problem, models/ether/frame.h). When it is empty: `oui` followed by 24 bits of
/// DmaTags::space_of(inst) (a stable hash of the instance name), the last bit cleared, so each
/// instance gets its own address and every run the same one.
std::array<uint8_t, 6> station_address(const std::string& mac_address, const std::string& inst,
                                       const std::array<uint8_t, 3>& oui);

}  // namespace nicsim
