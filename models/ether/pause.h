// 802.3x flow control: the MAC Control PAUSE frame (IEEE 802.3 clause 31, Annex 31B), shared by
// the MAC models that send or obey it (models/nic/e1000, models/nic/tg3; the wait itself is
// MacTxQueue::pause in mac_tx.h for the models that use that queue).
#pragma once
#include "models/ether/frame.h"
#include <array>
#include <cstdint>
#include <vector>

namespace nicsim {

/// 802.3 Annex 31B.1: the reserved multicast destination of PAUSE frames, 01-80-C2-00-00-01.
inline constexpr std::array<uint8_t, 6> kPauseDestination = {0x01, 0x80, 0xC2, 0x00, 0x00, 0x01};
inline constexpr uint16_t kMacControlType = 0x8808;  ///< 802.3 §31.4.1.3: Length/Type of MAC Control frames
inline constexpr uint16_t kPauseOpcode = 0x0001;     ///< 802.3 Annex 31A Table 31A-1: PAUSE

/// A PAUSE frame from station address `sa` asking for `pause_time` quanta of 512 bit times
/// (802.3 Annex 31B.2; 0 = XON, resume at once): DA 01-80-C2-00-00-01, SA, type 0x8808, opcode
/// 0x0001, pause_time (big endian), padded to the 60-byte minimum (no FCS, as EthFrame holds).
EthFrame make_pause_frame(const std::array<uint8_t, 6>& sa, uint16_t pause_time);
/// Length/Type 0x8808: a MAC Control frame (802.3 §31.4.1.3), which a MAC consumes, never stores.
bool is_mac_control_frame(const std::vector<uint8_t>& b);
/// A PAUSE frame as the 8254x recognises one (SDM §3.2.7.4 / 802.3 Annex 31B.3): DA the reserved
/// multicast address, type 0x8808, opcode 0x0001, and room for pause_time (18 bytes at least).
bool is_pause_frame(const std::vector<uint8_t>& b);
/// The pause_time field (quanta of 512 bit times) of a frame for which is_pause_frame() holds.
uint16_t pause_time_quanta(const std::vector<uint8_t>& b);

}  // namespace nicsim
