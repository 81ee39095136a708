// The CPU-Saver receive-interrupt bundling microcode, as what it does (no microcode is executed).
//
// The e100 driver loads a per-revision image (e100_ucode.h) with a Load Microcode command after
// patching the low 16 bits of up to three "move immediate" instructions (e100_main.c
// e100_load_microcode): the dead-man timer's initial value (IntDelay), the bundle limit
// (BundleMax) and the minimum-size mask (0xFF80, or 0xFFFF with BundleSmallFr). e100_ucode.h
// documents what they do:
//  * timer (CPUSAVER_DWORD): "This loads the dead-man timer with its initial value. When this timer
//    expires the interrupt is asserted, and the timer is reset each time a new packet is received"
//    (the same comment block in later e100 drivers, e.g. Linux 2.6 drivers/net/e100.c "CPUSaver
//    parameters"): armed by a bundled frame and re-armed by every further bundled one (a frame the
//    min-size mask lets through "does not affect the current bundle", so it does not re-arm it);
//    at expiry the bundled frames are indicated with one FR interrupt.
//  * BundleMax: "the maximum number of frames that will be bundled"; 1 = an interrupt per frame.
//  * min-size mask: a frame whose length ANDed with the mask is zero ("any frame which is x7F (127)
//    bytes or smaller" for 0xFF80) "will not be bundled, but will instead immediately generate an
//    interrupt. This does not affect the current bundle in any way." 0xFFFF turns it off.
// The D101 (82558) images define BUNDLE and MIN_SIZE as UCODE_MAX_DWORDS: they have the timer only.
// Timer tick: estimate ≈0.667 µs (FreeBSD if_fxp.c fxp_load_ucode writes int_delay_us * 1.5, i.e.
// 1.5 ticks per µs; research intel-8254x-e1000-e100.md §3), so 0x600 ticks ≈ 1.02 ms.
// What else was read (none of it contradicts the above; the seed-002 e100 miss stands):
//  * Intel's rcvbundl.h v3.28 (05/30/2000) as shipped in FreeBSD (freebsd/freebsd-src
//    sys/dev/fxp/rcvbundl.h) and the e100 2.x e100_ucode.h (ROCm/ROCK-Kernel-Driver
//    drivers/net/e100/e100_ucode.h): the same parameter comments; the D101M image (v2.10 /
//    v2.10.1) itself carries 0x0600 in its timer word 78, 6 in the bundle word 65 and 0xFF80 in
//    the min-size word 126, i.e. Intel's image default IntDelay is 0x600 whatever a driver patches.
//  * FreeBSD if_fxp.c: "Interrupt delay is expressed in microseconds, a multiplier is used to
//    convert this to the appropriate clock ticks"; its sysctl range 300-3000 µs is Intel's
//    x200-x1000 ticks divided by 1.5. No source states the tick itself.
//  * No source describes a free-running timer, an end of the bundle by a CU (TX) interrupt or by
//    a host command, or a second timer: in a ping-pong, where each direction carries one bundled
//    frame, the documented microcode waits IntDelay once per direction.
#pragma once
#include "core/clock.h"
#include "core/units.h"
#include "models/nic/i8255x/variants.h"
#include <cstdint>
#include <optional>
#include <vector>

namespace nicsim::i8255x {

/// The high half of the patched instructions in the e100 images (e100_ucode.h: D101A/B0 word 72 and
/// D101M word 78 are 0x0008xxxx, D101M words 65 and 126 are 0x000Cxxxx): how the model tells the
/// CPU-Saver image of a revision from any other Load Microcode payload.
inline constexpr uint16_t kTimerOpcode = 0x0008, kImmOpcode = 0x000C;
/// Timer ticks per µs (estimate, FreeBSD fxp scaling; see above).
inline constexpr double kCpuSaverTicksPerUs = 1.5;

struct CpuSaverParams {
  uint16_t int_delay_ticks = 0x600;          ///< dead-man timer initial value (e100 IntDelay)
  std::optional<uint16_t> bundle_max;        ///< nullopt: no limit in this image (82558)
  std::optional<uint16_t> min_size_mask;     ///< nullopt: no min-size rule in this image (82558)
};

/// The parameters a Load Microcode payload of `dwords` sets on a part with `layout`, or nullopt
/// when the payload is not that revision's CPU-Saver image (an instruction word at a parameter
/// position lacks its opcode half) or is shorter than the last parameter position.
std::optional<CpuSaverParams> decode_cpusaver(const CpuSaverLayout& layout, const std::vector<uint32_t>& dwords);

/// The bundling decision. Times are absolute; the owner arms an event at deadline().
class CpuSaver {
 public:
  /// Ticks from `tick_clock` (nominally kCpuSaverTicksPerUs MHz, with the part's crystal offset).
  CpuSaver(const CpuSaverParams& p, const ClockDomain& tick_clock) : p_(p), clk_(tick_clock) {}
  const CpuSaverParams& params() const { return p_; }
  /// The dead-man timer's length.
  sc_time delay() const { return clk_.cycles(p_.int_delay_ticks); }
  /// A frame of `bytes` (RFD actual count) completed at `t`. True: raise FR now (the frame was
  /// small, or it filled the bundle); false: it joined the bundle (the timer is (re-)armed to
  /// t + delay()).
  bool frame(const sc_time& t, unsigned bytes);
  /// When the dead-man timer expires, if armed.
  std::optional<sc_time> deadline() const { return deadline_; }
  /// Advance to `t`: true when the timer expired (at or before t) with frames bundled: raise FR.
  bool expire(const sc_time& t);
  unsigned bundled() const { return bundled_; }
  /// Why the last `true` was returned: "min-size mask", "BundleMax", "dead-man timer".
  const char* last_cause() const { return cause_; }

 private:
  CpuSaverParams p_;
  const ClockDomain& clk_;
  unsigned bundled_ = 0;
  std::optional<sc_time> deadline_;
  const char* cause_ = "";
};

}  // namespace nicsim::i8255x
