// A PHY's link monitor as its MAC sees it: the line signal comes and goes (a cable pulled or
// plugged, the partner PHY silent), and the PHY's link status follows after its own timers.
//
// Timers (research/link-faults-failover.md §A1):
//  * Link down: 1000BASE-T declares link fail when maxwait_timer expires, "750 ms ± 10 ms if
//    config = MASTER or 350 ms ± 5 ms if config = SLAVE" (IEEE 802.3 40.4.5.2, quoted by
//    lostintransit.se and a Linux qca8k comment; Cisco's IE3x00 guide states the same pair for GE
//    copper). 100BASE-TX and 1000BASE-X report link down in about 10 ms (Cisco, same page).
//  * Link up after the signal returns: auto-negotiation (clause 28) then, at 1000 Mb/s, the PMA
//    training both ends must finish (SDM §11.7.1). See phy_timers() for the figures and their
//    arguments; the note found no era measurement ("seconds"; newer Intel PHYs 2-3 s).
// A signal that returns before the link-fail timer expires leaves the link up (the timer is
// stopped); only the frames sent meanwhile are lost, on the wire.
// Which end is MASTER is the link's to say (EthLink draws it from the run seed: between two NICs
// the 802.3 master-slave resolution seed decides, research §A1 "Who is MASTER").
#pragma once
#include "core/units.h"
#include "models/ether/frame.h"
#include <functional>
#include <string>
#include <systemc>

namespace nicsim {

struct PhyTimers {
  sc_time link_fail_master;  ///< signal lost -> link down, 1000BASE-T MASTER
  sc_time link_fail_slave;   ///< same as SLAVE (equal to master below 1000 Mb/s)
  sc_time link_up;           ///< signal back -> link up (auto-negotiation + training)
  /// The link-fail timer of a PHY in that 1000BASE-T role.
  sc_time link_fail(bool master) const { return master ? link_fail_master : link_fail_slave; }
};
/// The timers of a copper PHY linking at `speed_mbps` (10, 100 or 1000).
PhyTimers phy_timers(unsigned speed_mbps);

/// What the line does at one port, from the link (EthPort::line_signal).
struct LineSignal {
  bool present = true;   ///< energy from the partner on the wire
  bool master = false;   ///< this PHY's 1000BASE-T role on this link (MASTER or SLAVE)
  bool restart = false;  ///< this PHY itself restarted auto-negotiation: its link is down at once
};

/// The PHY side of a MAC port (an EthPort that also derives from this): what the line does, and
/// frames whose FCS the MAC must check. A port without it keeps its link up through any fault
/// (what it sends into a dead line is lost there, and the link counts it), and a link refuses a
/// frame error rate toward it.
struct EthLineSide {
  virtual ~EthLineSide() = default;
  /// The line signal at this port changed (called by the link at that time).
  virtual void line_signal(const LineSignal& s) = 0;
  /// As EthPort::frame_received, for a frame that arrives with a bad FCS (bit errors on the wire):
  /// the MAC drops and counts it (8254x CRCERRS).
  virtual void frame_received_bad_fcs(const EthFrame& f) = 0;
  /// As frame_received_bad_fcs, for a frame during which the PHY asserted RX_ER: symbol errors it
  /// could not decode as valid code-groups (GMII RX_ER; research/link-faults-failover.md §A2
  /// RXERRC "copper symbol errors flagged by the PHY"). The 8254x counts it in RXERRC instead of
  /// CRCERRS. Default: a MAC that keeps no separate count sees a bad FCS.
  virtual void frame_received_rx_er(const EthFrame& f) { frame_received_bad_fcs(f); }
};

/// One PHY's link status. Calls `on_change(up)` (in a SystemC method process, at the simulated
/// time the PHY declares it) whenever the status changes. Construct during elaboration.
class EthPhy {
 public:
  EthPhy(const std::string& name, std::function<void(bool up)> on_change);
  /// The link status at the start of the run: up when a cable joins the port to a partner.
  void set_initial(bool up) { up_ = up; }
  /// The line changed (called at the time it changes).
  void line(const LineSignal& s, unsigned speed_mbps);
  bool link_up() const { return up_; }
  /// When the pending change (if any) happens, or SC_ZERO_TIME when none.
  sc_time pending_at() const { return pending_ ? at_ : SC_ZERO_TIME; }

 private:
  void fire();
  std::function<void(bool)> on_change_;
  sc_core::sc_event ev_;
  bool up_ = false, pending_ = false, target_ = false;
  sc_time at_ = SC_ZERO_TIME;
};

}  // namespace nicsim
