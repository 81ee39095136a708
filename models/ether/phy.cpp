#include "models/ether/phy.h"

namespace nicsim {

PhyTimers phy_timers(unsigned speed_mbps) {
  // Auto-negotiation (clause 28): each page is sent in FLP bursts ~16 ms apart (measured on an
  // oscilloscope, claymation/daemons.net auto-negotiation.md; "16.8 ms ± 8 ms" itwissen.info).
  // estimate: a page takes ~10 bursts (3 identical bursts for ability_match, then 6-8 with the
  // Acknowledge bit for complete_acknowledge: clause 28.3.4, not read here, only as commonly
  // summarised), so 160 ms a page.
  const sc_time page = ms(16.0 * 10);
  PhyTimers t;
  if (speed_mbps >= 1000) {
    t.link_fail_master = ms(750);  // 802.3 40.4.5.2 maxwait_timer, MASTER (research §A1)
    t.link_fail_slave = ms(350);   // same, SLAVE
    // estimate: 1000BASE-T exchanges the base page and two next pages (its message page and an
    // unformatted page follow the base page: clause 40.5.1.2, as commonly summarised) = 3 pages,
    // then trains its receivers (SDM §11.7.1); training is taken as one MASTER maxwait_timer
    // (750 ms: the time the link monitor grants loc_rcvr_status to become OK). Together 1.23 s,
    // below the 2-3 s measured on newer Intel PHYs (research §A1 table, no era figure found).
    t.link_up = page * 3.0 + ms(750);
  } else {
    t.link_fail_master = t.link_fail_slave = ms(10);  // FE link-down detection, Cisco IE3x00 (research §A1)
    // estimate: one base page of auto-negotiation, then link_fail_inhibit_timer's lower bound
    // 750 ms (clause 28 Table 28-9, 750-1000 ms; unverified in the note) before link_status OK.
    t.link_up = page + ms(750);
  }
  return t;
}

EthPhy::EthPhy(const std::string& name, std::function<void(bool up)> on_change) : on_change_(std::move(on_change)) {
  sc_core::sc_spawn_options o;
  o.spawn_method();
  o.dont_initialize();
  o.set_sensitivity(&ev_);
  sc_core::sc_spawn([this] { fire(); }, (name + "_phy").c_str(), &o);
}

void EthPhy::line(const LineSignal& s, unsigned speed_mbps) {
  const PhyTimers t = phy_timers(speed_mbps);
  const sc_time now = sc_core::sc_time_stamp();
  if (!s.present) {
    if (s.restart && up_) {  // the PHY restarted auto-negotiation itself: link down now
      pending_ = true;
      target_ = false;
      at_ = now;
      ev_.cancel();
      ev_.notify(SC_ZERO_TIME);
      return;
    }
    if (up_ && !(pending_ && !target_)) {  // start the link-fail timer
      pending_ = true;
      target_ = false;
      at_ = now + t.link_fail(s.master);
      ev_.cancel();
      ev_.notify(at_ - now);
    } else if (!up_ && pending_ && target_) {  // a link-up in progress is abandoned
      pending_ = false;
      ev_.cancel();
    }
    return;
  }
  if (up_) {  // signal back before the link-fail timer expired: the link stays up
    if (pending_ && !target_) {
      pending_ = false;
      ev_.cancel();
    }
    return;
  }
  if (!(pending_ && target_)) {  // auto-negotiation and training
    pending_ = true;
    target_ = true;
    at_ = now + t.link_up;
    ev_.cancel();
    ev_.notify(at_ - now);
  }
}

void EthPhy::fire() {
  if (!pending_) return;
  pending_ = false;
  if (up_ == target_) return;
  up_ = target_;
  if (on_change_) on_change_(up_);
}

}  // namespace nicsim
