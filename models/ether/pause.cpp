#include "models/ether/pause.h"
#include <algorithm>

namespace nicsim {

EthFrame make_pause_frame(const std::array<uint8_t, 6>& sa, uint16_t pause_time) {
  EthFrame f;
  f.bytes.assign(kPauseDestination.begin(), kPauseDestination.end());
  f.bytes.insert(f.bytes.end(), sa.begin(), sa.end());
  f.bytes.insert(f.bytes.end(), {uint8_t(kMacControlType >> 8), uint8_t(kMacControlType), uint8_t(kPauseOpcode >> 8),
                                 uint8_t(kPauseOpcode), uint8_t(pause_time >> 8), uint8_t(pause_time)});
  f.bytes.resize(60, 0);  // 802.3 §4.2.3.3 pad to minFrameSize (less the 4 FCS bytes the link adds)
  return f;
}

bool is_mac_control_frame(const std::vector<uint8_t>& b) {
  return b.size() >= 14 && b[12] == uint8_t(kMacControlType >> 8) && b[13] == uint8_t(kMacControlType);
}

bool is_pause_frame(const std::vector<uint8_t>& b) {
  return b.size() >= 18 && std::equal(kPauseDestination.begin(), kPauseDestination.end(), b.begin()) &&
         is_mac_control_frame(b) && b[14] == uint8_t(kPauseOpcode >> 8) && b[15] == uint8_t(kPauseOpcode);
}

uint16_t pause_time_quanta(const std::vector<uint8_t>& b) { return uint16_t((unsigned(b[16]) << 8) | b[17]); }

}  // namespace nicsim
