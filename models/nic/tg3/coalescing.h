// The BCM570x host coalescing engine's decision (research/tg3-bonding-tcp-gmac-formats.md §1.1),
// as plain logic without SystemC processes: when to make a status block update. The module
// (tg3.cpp) applies it to time, performs the status block DMA and drives INTA.
//
// Rules (Broadcom BCM5718 programmer's guide pp. 414-418 and BCM5722 PG p. 298, cited in §1.1):
//  * Tick timers (HOSTCC_RXCOL_TICKS, HOSTCC_TXCOL_TICKS; units of 1 µs of the chip's clock) reload
//    on EVERY status block update, whatever caused it; they do not reload per packet. When one
//    expires and a frame of its direction has been completed (RX: return BD written; TX: send BD
//    consumer index advanced, i.e. the frame's data has been DMA'd, not sent) since the last
//    update, the chip makes an update. A value of 0 disables the timer. estimate: a timer that
//    expires with nothing to report reloads and runs again (the guides do not say; a free-running
//    reload is the reading that keeps "reload on update" the only other reload).
//  * Max-BD counters (HOSTCC_RXMAX_FRAMES, HOSTCC_TXMAX_FRAMES) count BDs, not frames; an update
//    is made when one reaches its threshold; both are zeroed by every update; 0 disables.
//  * While Interrupt Mailbox 0 holds a non-zero value the "during-interrupt" set
//    (HOSTCC_RXCOAL_TICK_INT, HOSTCC_TXCOAL_TICK_INT, HOSTCC_RXCOAL_MAXF_INT, HOSTCC_TXCOAL_MAXF_INT)
//    replaces the four values above (the module also suppresses INTA then).
//  * One update refreshes every index of the status block (RX and TX together), so it zeroes both
//    directions' counters and reloads both timers.
//  * HOSTCC_MODE_CLRTICK_RXBD / _TXBD (bits 9 / 10; tg3 0.96-0.99 set both with tagged status on
//    non-5700 chips, 2.4.19 drivers/net/tg3.c tg3_get_invariants, MaximeChretien/linux-history tag
//    2.4.19): BCM5718 PG p.259 ("Clear Ticks On Rx Bd Events Mode (0x3c00[9])"): when enabled, the
//    counters initialise to the idle state after an update and begin counting only when a receive
//    BD event is detected. So the direction's tick timer starts at its FIRST BD after an update and
//    is not reloaded by later BDs: it measures the time since the first frame not yet reported.
//    (Before this correction the model reloaded it at every BD, a reading of the bit's name that made the
//    timer measure the quiet time after the last frame.) The TX bit by analogy (the guide describes
//    the RX one); the BCM5701 is assumed to behave as the later part documented.
#pragma once
#include "core/units.h"
#include <cstdint>
#include <optional>

namespace nicsim::tg3 {

/// The eight coalescing registers (values as written: ticks in µs, frames in BDs).
struct CoalRegs {
  uint32_t rx_ticks = 0, tx_ticks = 0, rx_max_frames = 0, tx_max_frames = 0;              ///< normal set
  uint32_t rx_ticks_int = 0, tx_ticks_int = 0, rx_max_frames_int = 0, tx_max_frames_int = 0;  ///< during-interrupt set
};

/// What triggered an update (counted per cause by the module: `<inst>.hostcc.<name>`).
enum class UpdateCause { None, RxMaxFrames, TxMaxFrames, RxTicks, TxTicks, Now };
const char* update_cause_name(UpdateCause c);  ///< "RXMAX_FRAMES", "TXMAX_FRAMES", "RXCOL_TICKS", ...

class HostCoalescing {
 public:
  /// `tick`: the real duration of one 1 µs tick of the chip's clock (ClockDomain::cycles(1)).
  explicit HostCoalescing(sc_time tick = us(1)) : tick_(tick) {}

  void set_regs(const CoalRegs& r) { regs_ = r; }
  const CoalRegs& regs() const { return regs_; }
  /// Interrupt Mailbox 0 became non-zero (true) or zero (false).
  void set_during_int(bool on) { during_int_ = on; }
  /// HOSTCC_MODE_CLRTICK_RXBD / HOSTCC_MODE_CLRTICK_TXBD.
  void set_clrtick(bool rx, bool tx) { clrtick_rx_ = rx, clrtick_tx_ = tx; }
  bool during_int() const { return during_int_; }

  /// A status block update is made at `t`: counters zeroed, both tick timers reload from `t`.
  void on_update(const sc_time& t);
  /// `n` RX return BDs completed at `t`. Returns RxMaxFrames when the max-BD threshold now trips.
  UpdateCause rx_bds(const sc_time& t, unsigned n = 1);
  /// `n` send BDs consumed (their data DMA'd) at `t`. Returns TxMaxFrames when the threshold trips.
  UpdateCause tx_bds(const sc_time& t, unsigned n = 1);
  /// Re-check the max-BD thresholds with the current register set (after set_during_int or
  /// set_regs): the cause when already reached, else None.
  UpdateCause check_max() const;
  /// The earliest absolute time at which a tick timer expires with something to report, and
  /// which timer; nullopt when neither has pending work or both are disabled.
  std::optional<std::pair<sc_time, UpdateCause>> deadline() const;

  unsigned rx_pending() const { return rx_bds_; }
  unsigned tx_pending() const { return tx_bds_; }
  uint32_t rx_ticks_now() const { return during_int_ ? regs_.rx_ticks_int : regs_.rx_ticks; }
  uint32_t tx_ticks_now() const { return during_int_ ? regs_.tx_ticks_int : regs_.tx_ticks; }
  uint32_t rx_max_now() const { return during_int_ ? regs_.rx_max_frames_int : regs_.rx_max_frames; }
  uint32_t tx_max_now() const { return during_int_ ? regs_.tx_max_frames_int : regs_.tx_max_frames; }

  /// First expiry of a timer of period `ticks` reloaded at `reload` that is at or after `first`
  /// (the first pending event): reload + k·period, k ≥ 1 the least with that time ≥ first.
  static sc_time expiry(const sc_time& reload, const sc_time& first, uint32_t ticks, const sc_time& tick);

 private:
  sc_time tick_;
  CoalRegs regs_;
  bool during_int_ = false;
  bool clrtick_rx_ = false, clrtick_tx_ = false;
  sc_time rx_reload_ = SC_ZERO_TIME, tx_reload_ = SC_ZERO_TIME;  ///< last reload of each tick timer
  unsigned rx_bds_ = 0, tx_bds_ = 0;
  sc_time rx_first_ = SC_ZERO_TIME, tx_first_ = SC_ZERO_TIME;  ///< first pending BD since the update
};

}  // namespace nicsim::tg3
