#define SC_INCLUDE_DYNAMIC_PROCESSES  // sc_spawn
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

/// One direction of the cable: the transmit end of `from`, delivering to `to`.
class EthLink::Direction : public EthLinkEnd {
 public:
  Direction(EthLink& link, EthPort& from, EthPort& to, const char* tag)
      : link_(link), from_(from), to_(to), ev_((std::string(tag) + "_arrive").c_str()) {
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.dont_initialize();
    o.set_sensitivity(&ev_);
    sc_core::sc_spawn([this] { deliver(); }, (std::string(tag) + "_deliver").c_str(), &o);
  }
  sc_time transmit(const EthFrame& f, const sc_time& start) override {
    sc_time s = std::max({start, free_at_, now()});
    unsigned len = static_cast<unsigned>(f.bytes.size());
    sc_time last_bit_out = s + serialization_time(len, link_.p_.speed_mbps);
    free_at_ = last_bit_out + byte_time(link_.p_.speed_mbps) * double(kEthIfgBytes);
    EthFrame copy = f;
    copy.seq = ++seq_;
    sim().journeys.mark(f.journey, s, "wire", std::string(link_.name()), "");
    sim().trace.span(std::string(link_.name()) + "/" + from_.port_name(), "frame " + std::to_string(len) + " B", s,
                     last_bit_out);
    sc_time arrive = last_bit_out + link_.prop_;
    q_.push_back({arrive, std::move(copy)});
    if (q_.size() == 1) ev_.notify(arrive - now());
    return last_bit_out;
  }
  sc_time wire_free_at() const override { return free_at_; }
  unsigned speed_mbps() const override { return link_.p_.speed_mbps; }
  uint64_t frames() const { return seq_; }
  uint64_t delivered() const { return delivered_; }
  uint64_t in_flight() const { return q_.size(); }

 private:
  struct InFlight {
    sc_time at;
    EthFrame f;
  };
  void deliver() {
    while (!q_.empty() && q_.front().at <= now()) {
      EthFrame f = std::move(q_.front().f);
      q_.pop_front();
      ++delivered_;
      to_.frame_received(f);
    }
    if (!q_.empty()) ev_.notify(q_.front().at - now());
  }
  EthLink& link_;
  EthPort& from_;
  EthPort& to_;
  sc_core::sc_event ev_;
  std::deque<InFlight> q_;  // arrival times are monotonic: one wire, FIFO
  sc_time free_at_ = SC_ZERO_TIME;
  uint64_t seq_ = 0;
  uint64_t delivered_ = 0;
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
  ab_ = std::make_unique<Direction>(*this, a, b, "ab");
  ba_ = std::make_unique<Direction>(*this, b, a, "ba");
  a.attach_link(ab_.get());
  b.attach_link(ba_.get());
}

EthLink::~EthLink() = default;

uint64_t EthLink::frames(unsigned dir) const { return dir == 0 ? ab_->frames() : ba_->frames(); }
uint64_t EthLink::delivered(unsigned dir) const { return dir == 0 ? ab_->delivered() : ba_->delivered(); }
uint64_t EthLink::in_flight(unsigned dir) const { return dir == 0 ? ab_->in_flight() : ba_->in_flight(); }
EthLinkEnd& EthLink::end(unsigned side) { return side == 0 ? *ab_ : *ba_; }

}  // namespace nicsim
