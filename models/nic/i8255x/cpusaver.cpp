#include "models/nic/i8255x/cpusaver.h"

namespace nicsim::i8255x {

std::optional<CpuSaverParams> decode_cpusaver(const CpuSaverLayout& layout, const std::vector<uint32_t>& dwords) {
  auto word = [&](std::optional<unsigned> at, uint16_t opcode) -> std::optional<std::optional<uint16_t>> {
    if (!at) return std::optional<uint16_t>{};  // the image has no such parameter
    if (*at >= dwords.size() || (dwords[*at] >> 16) != opcode) return std::nullopt;
    return std::optional<uint16_t>{uint16_t(dwords[*at] & 0xFFFF)};
  };
  auto timer = word(layout.timer_dword, kTimerOpcode);
  auto bundle = word(layout.bundle_dword, kImmOpcode);
  auto min_size = word(layout.min_size_dword, kImmOpcode);
  if (!timer || !bundle || !min_size || !*timer) return std::nullopt;
  CpuSaverParams p;
  p.int_delay_ticks = **timer;
  p.bundle_max = *bundle;
  p.min_size_mask = *min_size;
  return p;
}

bool CpuSaver::frame(const sc_time& t, unsigned bytes) {
  bool fired = expire(t);  // a timer due at t fires before the frame is considered
  if (p_.min_size_mask && (bytes & *p_.min_size_mask) == 0) {
    cause_ = "min-size mask";
    return true;  // "does not affect the current bundle in any way"
  }
  ++bundled_;
  deadline_ = t + delay();  // "the timer is reset each time a new packet is received"
  if (p_.bundle_max && bundled_ >= *p_.bundle_max) {
    bundled_ = 0;
    deadline_.reset();
    cause_ = "BundleMax";
    return true;
  }
  return fired;
}

bool CpuSaver::expire(const sc_time& t) {
  if (!deadline_ || *deadline_ > t) return false;
  deadline_.reset();
  bool any = bundled_ > 0;
  bundled_ = 0;
  if (any) cause_ = "dead-man timer";
  return any;
}

}  // namespace nicsim::i8255x
