#include "models/nic/i8255x/cpusaver.h"

namespace nicsim::i8255x {

std::optional<CpuSaverParams> decode_cpusaver(const CpuSaverLayout& layout, const std::vector<uint32_t>& dwords) {
  // One parameter's word: `ok` false when the image has the dword but not the expected opcode
  // there (not a CPU-Saver image of this layout); `v` empty when the layout has no such parameter.
  // (A struct, not a nested optional: GCC 12's -Wmaybe-uninitialized misfires on the latter.)
  struct Word {
    bool ok;
    std::optional<uint16_t> v;
  };
  auto word = [&](std::optional<unsigned> at, uint16_t opcode) -> Word {
    if (!at) return {true, std::nullopt};  // the image has no such parameter
    if (*at >= dwords.size() || (dwords[*at] >> 16) != opcode) return {false, std::nullopt};
    return {true, uint16_t(dwords[*at] & 0xFFFF)};
  };
  const Word timer = word(layout.timer_dword, kTimerOpcode);
  const Word bundle = word(layout.bundle_dword, kImmOpcode);
  const Word min_size = word(layout.min_size_dword, kImmOpcode);
  if (!timer.ok || !bundle.ok || !min_size.ok || !timer.v) return std::nullopt;
  CpuSaverParams p;
  p.int_delay_ticks = *timer.v;
  p.bundle_max = bundle.v;
  p.min_size_mask = min_size.v;
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
