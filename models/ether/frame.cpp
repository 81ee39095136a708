// MAC address parsing and station-address validity (models/ether/frame.h).
#include "models/ether/frame.h"
#include <cctype>

namespace nicsim {

std::optional<std::array<uint8_t, 6>> parse_mac_address(const std::string& s) {
  std::array<uint8_t, 6> m{};
  size_t i = 0;
  for (int g = 0; g < 6; ++g) {
    if (g > 0) {
      if (i >= s.size() || s[i] != ':') return std::nullopt;
      ++i;
    }
    unsigned v = 0, digits = 0;
    while (i < s.size() && std::isxdigit(static_cast<unsigned char>(s[i])) && digits < 2) {
      char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
      v = v * 16 + static_cast<unsigned>(c <= '9' ? c - '0' : c - 'a' + 10);
      ++digits;
      ++i;
    }
    if (digits == 0) return std::nullopt;
    m[g] = static_cast<uint8_t>(v);
  }
  if (i != s.size()) return std::nullopt;
  return m;
}

std::string station_address_problem(const std::string& s) {
  auto m = parse_mac_address(s);
  if (!m) return "'" + s + "' is not a MAC address of the form 00:02:b3:12:34:56";
  bool zero = true;
  for (uint8_t b : *m) zero &= b == 0;
  if (zero) return s + " is the all-zero address, not a valid station address";
  bool bcast = true;
  for (uint8_t b : *m) bcast &= b == 0xff;
  if (bcast) return s + " is the broadcast address, not a station address";
  if ((*m)[0] & 1)
    return s + " is a multicast address (bit 0 of the first octet, the I/G bit, is set): a station address must be "
               "unicast";
  return "";
}

}  // namespace nicsim
