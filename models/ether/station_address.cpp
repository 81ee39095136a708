#include "models/ether/station_address.h"
#include "core/dma_tags.h"
#include "models/ether/frame.h"
#include <stdexcept>

namespace nicsim {

std::array<uint8_t, 6> station_address(const std::string& mac_address, const std::string& inst,
                                       const std::array<uint8_t, 3>& oui) {
  if (!mac_address.empty()) {
    if (std::string why = station_address_problem(mac_address); !why.empty())
      throw std::invalid_argument(inst + ": mac_address " + why);
    return *parse_mac_address(mac_address);
  }
  const uint64_t h = DmaTags::space_of(inst);
  return {oui[0], oui[1], oui[2], uint8_t(h >> 16), uint8_t(h >> 8), uint8_t(h & 0xFE)};
}

}  // namespace nicsim
