// Faults on an EthLink (a scenario's [[faults]], docs/faults.md), kept apart from link.h so the
// link's class is unchanged for everything that only carries frames.
//
//  * The line goes dead (a cable pulled, or a PHY restarting auto-negotiation and falling silent):
//    both directions lose signal; every frame on the wire at that moment and every frame sent
//    while dead is lost on the wire, counted per direction (lost()); each port that derives from
//    EthLineSide (models/ether/phy.h) hears of it and its PHY declares link down after its own
//    timer (MASTER/SLAVE drawn from the run seed), then link up after auto-negotiation and
//    training once the line is live again.
//  * A frame error rate on one direction over [from, until): each frame starting in the window
//    arrives with a bad FCS (EthLineSide::frame_received_bad_fcs) with that probability, drawn from
//    a stream of the run seed (Rng::derive of the link and direction): deterministic per seed.
// An armed link carries every frame one by one (a periodic train's frames could not be lost one by
// one). EthLink::in_flight() already leaves the lost frames out.
#pragma once
#include "core/units.h"
#include "models/ether/link.h"
#include "models/ether/phy.h"
#include <cstdint>
#include <memory>
#include <string>

namespace nicsim {

struct LinkFaultState;

/// A handle on one link's faults (cheap to make; the state lives with the link).
class LinkFaults {
 public:
  /// Arms `link` on first use: draws which end is the 1000BASE-T MASTER (Rng::derive("<name>.master"))
  /// and makes it carry frames one by one. Call before sc_start.
  explicit LinkFaults(EthLink& link);
  /// The scenario's name of the link ("links.0") for the run's event log (default: its SystemC name).
  void set_label(const std::string& label);
  /// At `at` the cable is pulled (`plugged` false) or plugged back (true).
  void schedule_cable(const sc_time& at, bool plugged);
  /// At `at` the PHY of side `side` (0 a, 1 b) restarts auto-negotiation: its link is down at once
  /// and the line carries no data for `silent` (its break_link_timer); then both ends link up again.
  void schedule_partner_loss(const sc_time& at, unsigned side, const sc_time& silent);
  /// Frames of direction `dir` (0 a->b) that start in [from, until) arrive with a bad FCS with
  /// probability `rate`; with `rx_er` the receiving PHY flags them instead (RX_ER: symbol errors,
  /// EthLineSide::frame_received_rx_er). Throws std::invalid_argument when the receiving port is no
  /// EthLineSide.
  void add_error_window(unsigned dir, const sc_time& from, const sc_time& until, double rate, bool rx_er = false);
  /// Whether side `side`'s PHY is the MASTER.
  bool master(unsigned side) const;
  /// Whether the line carries data now.
  bool live() const;

  /// Frames of direction `dir` lost on the wire (0 for a link never armed or not an EthLink).
  static uint64_t lost(const EthLink& link, unsigned dir);
  /// Frames of direction `dir` given a bad FCS.
  static uint64_t corrupted(const EthLink& link, unsigned dir);

 private:
  EthLink& link_;
  std::shared_ptr<LinkFaultState> st_;
};

}  // namespace nicsim
