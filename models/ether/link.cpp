#include "models/ether/link.h"
#include "core/sim_context.h"
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

/// One direction of the cable: the transmit end of `from`, delivering to `to`. Frames sent one by
/// one (transmit) wait in q_; a periodic train (transmit_train) is kept as its template frame and
/// counts, delivered one event per frame, or held as a count while the receiver asks (EthRxFeed).
/// Train frames always arrive before any queued single frame (a single frame starts only when the
/// wire is free, after the train; a train is refused while single frames are queued).
class EthLink::Direction : public EthLinkEnd, public EthRxFeed {
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
    sc_time arrive = last_bit_out + link_.prop_;
    q_.push_back({arrive, std::move(copy)});
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
    if (n == 0 || f.journey != 0 || sim().trace.enabled() || link_.tap_ || period < frame_time(len, link_.p_.speed_mbps) ||
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
  uint64_t in_flight() const { return seq_ - delivered(); }

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
      q_.pop_front();
      ++delivered_;
      to_.frame_received(f);
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

}  // namespace nicsim
