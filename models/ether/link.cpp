#include "models/ether/link.h"
#include "models/ether/link_faults.h"
#include "core/events.h"
#include "core/rng.h"
#include "core/sim_context.h"
#include <fmt/format.h>
#include <algorithm>
#include <stdexcept>

namespace nicsim {

unsigned serialized_bytes(unsigned frame_len) {
  return kEthPreambleSfdBytes + std::max(frame_len + kEthFcsBytes, kEthMinFrameBytes);
}
unsigned wire_bytes(unsigned frame_len) { return serialized_bytes(frame_len) + kEthIfgBytes; }
sc_time byte_time(unsigned speed_mbps) { return sc_time(8000.0 / speed_mbps, sc_core::SC_NS); }
sc_time serialization_time(unsigned frame_len, unsigned speed_mbps) {
  return sc_time(serialized_bytes(frame_len) * 8000.0 / speed_mbps, sc_core::SC_NS);
}
sc_time frame_time(unsigned frame_len, unsigned speed_mbps) {
  return sc_time(wire_bytes(frame_len) * 8000.0 / speed_mbps, sc_core::SC_NS);
}
double max_frame_rate(unsigned frame_len, unsigned speed_mbps) {
  return speed_mbps * 1e6 / (wire_bytes(frame_len) * 8.0);
}
sc_time pause_duration(unsigned quanta, unsigned speed_mbps) {
  return sc_time(double(quanta) * kEthPauseQuantumBits * 1000.0 / speed_mbps, sc_core::SC_NS);
}
sc_time propagation_delay(double length_m, double ns_per_m) { return ns(length_m * ns_per_m); }

/// One link's fault state (link_faults.h), shared by its two directions once armed.
struct LinkFaultState {
  EthLink* link = nullptr;
  EthPort *a = nullptr, *b = nullptr;
  bool dead = false, master_a = false;
  bool pulled = false;  ///< the cable is out (a partner-loss silence ending does not revive it)
  int silent = 0;       ///< partner-loss silences in progress
  std::string label;
};

/// The fault side of one direction: what LinkFaults reaches of EthLink::Direction (a private type)
/// through EthLink::end(dir).
struct DirectionFaultPart {
  virtual ~DirectionFaultPart() = default;
  std::shared_ptr<LinkFaultState> st;  ///< null until the link is armed
  struct Window {
    sc_time from, until;
    double rate;
    bool rx_er;  ///< the receiving PHY flags the errors (RX_ER) instead of passing them to the FCS check
  };
  std::vector<Window> windows;  ///< frame error rate windows
  Rng rng{1};
  uint64_t lost = 0, corrupted = 0;
  EthLineSide* bad_fcs_sink = nullptr;  ///< the receiving port's PHY side (error windows need one)
  virtual void kill_in_flight() = 0;
  virtual EthPort& receiver() = 0;
};

/// One direction of the cable: the transmit end of `from`, delivering to `to`. Frames sent one by
/// one (transmit) wait in q_; a periodic train (transmit_train) is kept as its template frame and
/// counts, delivered one event per frame, or held as a count while the receiver asks (EthRxFeed).
/// Train frames always arrive before any queued single frame (a single frame starts only when the
/// wire is free, after the train; a train is refused while single frames are queued).
class EthLink::Direction : public EthLinkEnd, public EthRxFeed, public DirectionFaultPart {
 public:
  Direction(EthLink& link, unsigned dir, EthPort& from, EthPort& to, const char* tag)
      : link_(link), dir_(dir), from_(from), to_(to), ev_((std::string(tag) + "_arrive").c_str()) {
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.dont_initialize();
    o.set_sensitivity(&ev_);
    sc_core::sc_spawn([this] { deliver(); }, (std::string(tag) + "_deliver").c_str(), &o);
  }
  sc_time transmit(const EthFrame& f, const sc_time& start) override {
    // A frame behind a train starts after the train's last frame (free_at_), so it arrives after
    // all of them: deliver() hands it over once the train is delivered or taken (rx_feed_settle).
    sc_time s = std::max({start, free_at_, now()});
    unsigned len = static_cast<unsigned>(f.bytes.size());
    sc_time last_bit_out = s + serialization_time(len, link_.p_.speed_mbps);
    free_at_ = last_bit_out + byte_time(link_.p_.speed_mbps) * double(kEthIfgBytes);
    EthFrame copy = f;
    copy.seq = ++seq_;
    sim().journeys.mark(f.journey, s, "wire", std::string(link_.name()), "");
    sim().trace.span(std::string(link_.name()) + "/" + from_.port_name(), "frame " + std::to_string(len) + " B", s,
                     last_bit_out);
    if (link_.tap_) link_.tap_->on_frame(dir_, f, s, last_bit_out);
    bool bad = false, rx_er = false;
    if (st) {
      if (st->dead) {  // no signal: the frame never reaches the far PHY
        ++lost;
        sim().journeys.mark(f.journey, s, "dropped", std::string(link_.name()), "line dead (no signal)");
        return last_bit_out;
      }
      for (const Window& w : windows)
        if (s >= w.from && s < w.until && rng.uniform() < w.rate) {
          bad = true;
          rx_er = w.rx_er;
          ++corrupted;
          break;
        }
    }
    sc_time arrive = last_bit_out + link_.prop_;
    q_.push_back({arrive, std::move(copy), bad, rx_er});
    if (q_.size() == 1) ev_.notify(arrive - now());
    return last_bit_out;
  }
  sc_time transmit_train(const EthFrame& f, const sc_time& first_start, const sc_time& period, uint64_t n) override {
    const unsigned len = static_cast<unsigned>(f.bytes.size());
    const sc_time ser = serialization_time(len, link_.p_.speed_mbps);
    // One train per direction, of one frame, without journeys, trace spans or a tap (those are per frame),
    // spaced at least a wire time apart so no start waits for the wire: otherwise one by one.
    const bool extends = train_ && train_total_ > train_next_ && q_.empty() && f.bytes == train_f_.bytes &&
                         period == train_period_ &&
                         first_start.value() == train_start0_.value() + train_total_ * train_period_.value();
    const bool fresh = !train_pending() && q_.empty() && first_start >= free_at_ && first_start >= now();
    if (n == 0 || f.journey != 0 || sim().trace.enabled() || link_.tap_ || st ||
        period < frame_time(len, link_.p_.speed_mbps) ||
        !(extends || fresh))
      return EthLinkEnd::transmit_train(f, first_start, period, n);
    if (!extends) {
      train_ = true;
      train_f_ = f;
      train_period_ = period;
      train_start0_ = first_start;
      train_arrive0_ = first_start + ser + link_.prop_;
      train_total_ = train_next_ = 0;
      train_seq0_ = seq_ + 1;
      train_free_before_ = free_at_;
      if (!held_) ev_.notify(train_arrive0_ - now());
    }
    train_total_ += n;
    seq_ += n;
    const sc_time last_start = sc_time::from_value(train_start0_.value() + (train_total_ - 1) * period.value());
    free_at_ = last_start + ser + byte_time(link_.p_.speed_mbps) * double(kEthIfgBytes);
    return last_start + ser;
  }
  uint64_t retract_train(const sc_time& after) override {
    if (!train_pending()) return 0;
    if (after < now()) throw std::logic_error("EthLink " + std::string(link_.name()) + ": retract_train before now");
    // Frame i starts at train_start0_ + i × period: keep those starting at or before `after` (and
    // every frame already delivered or taken: those started long ago).
    uint64_t keep = after < train_start0_ ? 0 : (after.value() - train_start0_.value()) / train_period_.value() + 1;
    keep = std::max(keep, train_next_);
    if (keep >= train_total_) return 0;
    const uint64_t n = train_total_ - keep;
    train_total_ = keep;
    seq_ -= n;
    if (keep == 0) {
      free_at_ = train_free_before_;
    } else {
      const sc_time last_start = sc_time::from_value(train_start0_.value() + (keep - 1) * train_period_.value());
      free_at_ = last_start + serialization_time(static_cast<unsigned>(train_f_.bytes.size()), link_.p_.speed_mbps) +
                 byte_time(link_.p_.speed_mbps) * double(kEthIfgBytes);
    }
    if (train_next_ == train_total_) train_ = false;
    return n;
  }
  sc_time wire_free_at() const override { return free_at_; }
  unsigned speed_mbps() const override { return link_.p_.speed_mbps; }
  uint64_t frames() const { return seq_; }
  /// Frames handed to the far port, held frames already arrived included (they are delivered as a
  /// count when the port takes them).
  uint64_t delivered() const { return delivered_ + (held_ ? arrived_by(now()) : 0); }
  uint64_t in_flight() const { return seq_ - delivered() - lost; }
  /// The line died now: frames on the wire (not yet arrived) are lost.
  void kill_in_flight() override {
    while (!q_.empty() && q_.back().at > now()) {
      q_.pop_back();
      ++lost;
    }
  }
  EthPort& receiver() override { return to_; }

  // EthRxFeed
  bool hold(const EthFrame& like) override {
    if (held_) return true;
    if (!train_pending() || like.bytes != train_f_.bytes) return false;
    held_ = true;
    return true;
  }
  EthFrameTrain take(const sc_time& t) override {
    EthFrameTrain r;
    if (!held_) return r;
    r.f = &train_f_;
    r.first = train_at(train_next_);
    r.period = train_period_;
    r.n = arrived_by(t);
    train_next_ += r.n;
    delivered_ += r.n;
    if (train_next_ == train_total_) train_ = false;
    return r;
  }
  EthFrameTrain peek() const override {
    EthFrameTrain r;
    if (!held_ || !train_pending()) return r;
    r.f = &train_f_;
    r.first = train_at(train_next_);
    r.period = train_period_;
    r.n = train_total_ - train_next_;
    return r;
  }
  void release() override {
    if (!held_) return;
    held_ = false;
    if (train_pending())
      ev_.notify(std::max(train_at(train_next_), now()) - now());
    else if (!q_.empty())
      ev_.notify(std::max(q_.front().at, now()) - now());
  }

 private:
  struct InFlight {
    sc_time at;
    EthFrame f;
    bool bad_fcs = false;  ///< arrives with a bad FCS (an error window drew it)
    bool rx_er = false;    ///< ... flagged by the receiving PHY (RX_ER) instead
  };
  bool train_pending() const { return train_ && train_next_ < train_total_; }
  sc_time train_at(uint64_t i) const {
    return sc_time::from_value(train_arrive0_.value() + i * train_period_.value());
  }
  /// Held train frames whose last bit has arrived by `t`.
  uint64_t arrived_by(const sc_time& t) const {
    if (!train_pending() || t < train_at(train_next_)) return 0;
    const uint64_t k = (t.value() - train_at(train_next_).value()) / train_period_.value() + 1;
    return std::min(k, train_total_ - train_next_);
  }
  void deliver() {
    for (;;) {
      if (train_pending() && held_ && !q_.empty() && q_.front().at <= now()) {
        // A single frame behind the held train is due: every train frame has arrived; the port
        // takes them first.
        to_.rx_feed_settle();
        if (held_ && train_pending())
          throw std::logic_error("EthLink " + std::string(link_.name()) + ": " + to_.port_name() +
                                 " holds a train that a single frame follows and did not take it");
      }
      if (train_pending()) {
        if (held_ || train_at(train_next_) > now()) break;
        train_f_.seq = train_seq0_ + train_next_;
        ++train_next_;
        ++delivered_;
        if (train_next_ == train_total_) train_ = false;
        to_.frame_received(train_f_);  // may hold() the rest
        continue;
      }
      if (q_.empty() || q_.front().at > now()) break;
      EthFrame f = std::move(q_.front().f);
      const bool bad = q_.front().bad_fcs, rx_er = q_.front().rx_er;
      q_.pop_front();
      ++delivered_;
      if (bad && rx_er) bad_fcs_sink->frame_received_rx_er(f);
      else if (bad) bad_fcs_sink->frame_received_bad_fcs(f);
      else to_.frame_received(f);
    }
    if (train_pending() && !held_)
      ev_.notify(train_at(train_next_) - now());
    else if (!q_.empty())
      ev_.notify(q_.front().at - now());  // behind a held train too: it comes at its own time
  }
  EthLink& link_;
  unsigned dir_;  // 0 a->b, 1 b->a (EthTap::on_frame)
  EthPort& from_;
  EthPort& to_;
  sc_core::sc_event ev_;
  std::deque<InFlight> q_;  // arrival times are monotonic: one wire, FIFO
  sc_time free_at_ = SC_ZERO_TIME;
  uint64_t seq_ = 0;
  uint64_t delivered_ = 0;
  // The train (transmit_train): frame i (0 <= i < train_total_) starts at train_start0_ + i × period
  // and arrives at train_arrive0_ + i × period; train_next_ is the first not delivered or taken.
  bool train_ = false, held_ = false;
  EthFrame train_f_;
  sc_time train_period_ = SC_ZERO_TIME, train_start0_ = SC_ZERO_TIME, train_arrive0_ = SC_ZERO_TIME;
  uint64_t train_total_ = 0, train_next_ = 0, train_seq0_ = 0;
  sc_time train_free_before_ = SC_ZERO_TIME;  ///< free_at_ before the train (retract_train of all)
};

EthLink::EthLink(sc_core::sc_module_name name, unsigned speed_mbps, double length_m, EthPort& a, EthPort& b)
    : EthLink(name, EthLinkParams{speed_mbps, length_m}, a, b) {}

EthLink::EthLink(sc_core::sc_module_name name, const EthLinkParams& p, EthPort& a, EthPort& b)
    : sc_module(name), p_(p) {
  if (p.speed_mbps != 10 && p.speed_mbps != 100 && p.speed_mbps != 1000)
    throw std::invalid_argument("EthLink " + std::string(this->name()) + ": speed " + std::to_string(p.speed_mbps) +
                                " Mb/s is not 10, 100 or 1000");
  if (p.length_m < 0) throw std::invalid_argument("EthLink " + std::string(this->name()) + ": negative length");
  prop_ = propagation_delay(p.length_m, p.ns_per_m);
  ab_ = std::make_unique<Direction>(*this, 0, a, b, "ab");
  ba_ = std::make_unique<Direction>(*this, 1, b, a, "ba");
  a.attach_link(ab_.get());
  b.attach_link(ba_.get());
  b.attach_rx(ab_.get());
  a.attach_rx(ba_.get());
}

EthLink::~EthLink() = default;

uint64_t EthLink::frames(unsigned dir) const { return dir == 0 ? ab_->frames() : ba_->frames(); }
uint64_t EthLink::delivered(unsigned dir) const { return dir == 0 ? ab_->delivered() : ba_->delivered(); }
uint64_t EthLink::in_flight(unsigned dir) const { return dir == 0 ? ab_->in_flight() : ba_->in_flight(); }
EthLinkEnd& EthLink::end(unsigned side) { return side == 0 ? *ab_ : *ba_; }
// ---- faults (link_faults.h) ----

namespace {
DirectionFaultPart& part(EthLink& link, unsigned dir) {
  auto* p = dynamic_cast<DirectionFaultPart*>(&link.end(dir));
  if (!p) throw std::logic_error("EthLink: a direction without its fault part");
  return *p;
}
/// The line died (or came back): kill what is on the wire, note it, tell both ports.
void set_dead(LinkFaultState& st, bool dead, int restart_side) {
  if (dead == st.dead && restart_side < 0) return;
  const bool was = st.dead;
  st.dead = dead;
  if (dead && !was) {
    part(*st.link, 0).kill_in_flight();
    part(*st.link, 1).kill_in_flight();
  }
  if (dead != was)
    run_events().note(now(), st.label, dead ? "signal lost" : "signal restored",
                      dead ? fmt::format("side {} is MASTER", st.master_a ? "a" : "b") : "");
  for (unsigned side = 0; side < 2; ++side) {
    auto* phy = dynamic_cast<EthLineSide*>(side == 0 ? st.a : st.b);
    if (!phy) continue;
    LineSignal ls;
    ls.present = !dead;
    ls.master = side == 0 ? st.master_a : !st.master_a;
    ls.restart = static_cast<int>(side) == restart_side;
    phy->line_signal(ls);
  }
}
}  // namespace

LinkFaults::LinkFaults(EthLink& link) : link_(link) {
  DirectionFaultPart& ab = part(link, 0);
  if (!ab.st) {
    auto st = std::make_shared<LinkFaultState>();
    st->link = &link;
    st->a = &part(link, 1).receiver();
    st->b = &ab.receiver();
    st->label = link.name();
    // Between two NICs the 802.3 master-slave resolution seed decides who is MASTER (research
    // link-faults-failover.md §A1): one fair draw per link from its own stream of the run seed.
    Rng r = sim().rng.derive(std::string(link.name()) + ".master");
    st->master_a = r.uniform() < 0.5;
    ab.st = st;
    part(link, 1).st = st;
  }
  st_ = ab.st;
}

void LinkFaults::set_label(const std::string& label) { st_->label = label; }
bool LinkFaults::master(unsigned side) const { return side == 0 ? st_->master_a : !st_->master_a; }
bool LinkFaults::live() const { return !st_->dead; }

void LinkFaults::schedule_cable(const sc_time& at, bool plugged) {
  auto st = st_;
  sc_core::sc_spawn([st, at, plugged] {
    if (at > now()) sc_core::wait(at - now());
    st->pulled = !plugged;
    run_events().note(now(), st->label, plugged ? "cable plugged" : "cable pulled");
    set_dead(*st, st->pulled || st->silent > 0, -1);
  });
}

void LinkFaults::schedule_partner_loss(const sc_time& at, unsigned side, const sc_time& silent) {
  auto st = st_;
  sc_core::sc_spawn([st, at, side, silent] {
    if (at > now()) sc_core::wait(at - now());
    run_events().note(now(), st->label, "partner restarts auto-negotiation",
                      fmt::format("side {} silent for {:.0f} ms", side == 0 ? "a" : "b", to_s(silent) * 1e3));
    ++st->silent;
    set_dead(*st, true, static_cast<int>(side));
    sc_core::wait(silent);
    --st->silent;
    set_dead(*st, st->pulled || st->silent > 0, -1);
  });
}

void LinkFaults::add_error_window(unsigned dir, const sc_time& from, const sc_time& until, double rate, bool rx_er) {
  DirectionFaultPart& d = part(link_, dir);
  auto* sink = dynamic_cast<EthLineSide*>(&d.receiver());
  if (!sink)
    throw std::invalid_argument(fmt::format("{}: the receiving port {} does not model FCS checking, so it cannot "
                                            "receive frames with a bad FCS (a frame error rate needs an 8254x, a BCM5701 or a GMAC there)",
                                            st_->label, d.receiver().port_name()));
  d.bad_fcs_sink = sink;
  // One stream per direction, however many windows.
  if (d.windows.empty()) d.rng = sim().rng.derive(std::string(link_.name()) + (dir == 0 ? ".fer.ab" : ".fer.ba"));
  d.windows.push_back({from, until, rate, rx_er});
}

uint64_t LinkFaults::lost(const EthLink& link, unsigned dir) {
  return part(const_cast<EthLink&>(link), dir).lost;
}
uint64_t LinkFaults::corrupted(const EthLink& link, unsigned dir) {
  return part(const_cast<EthLink&>(link), dir).corrupted;
}

}  // namespace nicsim
