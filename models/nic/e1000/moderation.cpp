#include "models/nic/e1000/moderation.h"
#include "models/nic/e1000/regs.h"

namespace nicsim::e1000 {

const char* mod_timer_name(ModTimer t) {
  switch (t) {
    case ModTimer::RDTR: return "RDTR";
    case ModTimer::RADV: return "RADV";
    case ModTimer::TIDV: return "TIDV";
    case ModTimer::TADV: return "TADV";
    case ModTimer::FPD: return "FPD";
  }
  return "?";
}

Moderation::Moderation(ModFeatures f, ClockDomain clk) : f_(f), clk_(std::move(clk)) {}

sc_time Moderation::timer_duration(uint32_t n) const { return clk_.scale(ns(n * kTimerUnitNs)); }
sc_time Moderation::itr_interval() const {
  return (f_.itr && itr_ != 0) ? clk_.scale(ns(itr_ * kItrUnitNs)) : SC_ZERO_TIME;
}

sc_time Moderation::clamp(const sc_time& t) {
  // Callers on the LT path may stamp an event a little before the last one seen; time never runs back.
  if (t > last_t_) last_t_ = t;
  return last_t_;
}

void Moderation::write_rdtr(const sc_time& t0, uint32_t value) {
  sc_time t = clamp(t0);
  rdtr_ = value & rdtr::DELAY_MASK;
  if (value & rdtr::FPD) {
    // SDM p=305: "Writing this register with FPD set initiates an immediate expiration of the timer".
    stop(ModTimer::RDTR);
    stop(ModTimer::RADV);
    deadline_[idx(ModTimer::FPD)] = t;
  }
}
void Moderation::write_radv(uint32_t v) { if (f_.radv) radv_ = v & 0xFFFF; }
void Moderation::write_tidv(uint32_t v) { tidv_ = v & 0xFFFF; }
void Moderation::write_tadv(uint32_t v) { if (f_.tadv) tadv_ = v & 0xFFFF; }
void Moderation::write_itr(const sc_time& t0, uint32_t v) {
  sc_time t = clamp(t0);
  if (!f_.itr) return;
  itr_ = v & 0xFFFF;
  update_line(t);
}

ModOutcome Moderation::rx_packet_stored(const sc_time& t0) {
  sc_time t = clamp(t0);
  if (rdtr_ == 0) return ModOutcome::Immediate;  // p=305: no delay; RDTR=0 also disables RADV (p=319)
  auto& d = deadline_[idx(ModTimer::RDTR)];
  if (f_.rdtr_absolute) {
    if (!d) d = t + timer_duration(rdtr_);     // 82544: first packet starts it, later ones do not
  } else {
    d = t + timer_duration(rdtr_);             // 82540+: every packet restarts it
    auto& a = deadline_[idx(ModTimer::RADV)];
    if (f_.radv && radv_ != 0 && !a) a = t + timer_duration(radv_);  // first packet only
  }
  return ModOutcome::Delayed;
}

ModOutcome Moderation::tx_descriptor_written_back(const sc_time& t0, bool ide) {
  sc_time t = clamp(t0);
  if (!ide || tidv_ == 0) {
    // Immediate TXDW: halts TADV (p=332) and the pending TIDV (its write-backs are reported now).
    stop(ModTimer::TADV);
    stop(ModTimer::TIDV);
    return ModOutcome::Immediate;
  }
  deadline_[idx(ModTimer::TIDV)] = t + timer_duration(tidv_);  // restarts per RS+IDE write-back
  auto& a = deadline_[idx(ModTimer::TADV)];
  if (f_.tadv && tadv_ != 0 && !a) a = t + timer_duration(tadv_);
  return ModOutcome::Delayed;
}

void Moderation::set_cause(const sc_time& t0, uint32_t bits) {
  sc_time t = clamp(t0);
  icr_ |= bits & icr::ALL;
  update_line(t);
}
uint32_t Moderation::read_icr(const sc_time& t0) {
  sc_time t = clamp(t0);
  uint32_t v = icr_;
  icr_ = 0;
  update_line(t);
  return v;
}
void Moderation::clear_causes(const sc_time& t0, uint32_t bits) {
  sc_time t = clamp(t0);
  icr_ &= ~bits;
  update_line(t);
}
void Moderation::write_ims(const sc_time& t0, uint32_t bits) {
  sc_time t = clamp(t0);
  ims_ |= bits & icr::ALL;
  update_line(t);
}
void Moderation::write_imc(const sc_time& t0, uint32_t bits) {
  sc_time t = clamp(t0);
  ims_ &= ~bits;
  update_line(t);
}

void Moderation::update_line(const sc_time& t) {
  bool pending = (icr_ & ims_) != 0;
  if (!pending) {
    line_ = false;
    hold_ = false;
    return;
  }
  if (line_) return;  // level stays asserted while an unmasked cause is pending
  sc_time gap = itr_interval();
  if (gap == SC_ZERO_TIME || !asserted_once_ || t >= last_assert_ + gap) {
    line_ = true;
    hold_ = false;
    asserted_once_ = true;
    last_assert_ = t;
    ++assertions_;
  } else {
    hold_ = true;  // released by advance() at last_assert_ + gap
  }
}

std::optional<sc_time> Moderation::next_deadline() const {
  std::optional<sc_time> best;
  for (const auto& d : deadline_)
    if (d && (!best || *d < *best)) best = d;
  if (hold_) {
    sc_time r = itr_release_at();
    if (!best || r < *best) best = r;
  }
  return best;
}

std::vector<ModExpiry> Moderation::advance(const sc_time& t0) {
  sc_time t = clamp(t0);
  std::vector<ModExpiry> out;
  for (;;) {
    // Earliest due item.
    std::optional<size_t> which;
    sc_time when = t;
    for (size_t i = 0; i < deadline_.size(); ++i)
      if (deadline_[i] && *deadline_[i] <= t && (!which || *deadline_[i] < when)) {
        which = i;
        when = *deadline_[i];
      }
    bool itr_due = hold_ && itr_release_at() <= t && (!which || itr_release_at() <= when);
    if (itr_due) {
      hold_ = false;
      update_line(itr_release_at());
      continue;
    }
    if (!which) break;
    auto tm = static_cast<ModTimer>(*which);
    deadline_[*which].reset();
    ++expiries_[*which];
    switch (tm) {
      case ModTimer::RDTR: stop(ModTimer::RADV); break;  // RADV re-initialised, not started (p=319)
      case ModTimer::RADV: stop(ModTimer::RDTR); break;  // RDTR reloaded but halted (p=305)
      case ModTimer::FPD: break;                         // write_rdtr() already stopped both
      case ModTimer::TIDV: stop(ModTimer::TADV); break;  // p=332
      case ModTimer::TADV: stop(ModTimer::TIDV); break;  // by analogy, see header
    }
    out.push_back({when, tm});
  }
  return out;
}

}  // namespace nicsim::e1000
