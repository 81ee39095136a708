#include "models/ether/traffic_gen.h"
#include "core/sim_context.h"
#include "models/ether/link.h"
#include <cmath>
#include <stdexcept>

namespace nicsim {

TesterPort::TesterPort(sc_core::sc_module_name name, const TrafficGenParams& p)
    : sc_module(name),
      p_(p),
      c_sent_(sim().counters.at(std::string(this->name()) + ".frames_sent")),
      c_received_(sim().counters.at(std::string(this->name()) + ".frames_received")) {
  if (!(p_.load > 0.0 && p_.load <= 1.0)) throw std::invalid_argument(std::string(this->name()) + ": load must be in (0, 1]");
  if (p_.batch == 0) throw std::invalid_argument(std::string(this->name()) + ": batch must be at least 1");
  SC_METHOD(run);
  sensitive << ev_;
  dont_initialize();
}

void TesterPort::start(std::vector<uint8_t> frame) {
  if (frame.size() < 14) throw std::invalid_argument(std::string(name()) + ": frame shorter than an Ethernet header");
  if (!link_) throw std::logic_error(std::string(name()) + ": not cabled");
  if (started_) throw std::logic_error(std::string(name()) + ": already started");
  frame_ = std::move(frame);
  started_ = true;
  t0_ = now();
  ev_.notify(SC_ZERO_TIME);
}

void TesterPort::restart(uint64_t frames) {
  if (!started_) throw std::logic_error(std::string(name()) + ": restart before start");
  if (sending()) throw std::logic_error(std::string(name()) + ": restart while a burst is being sent");
  p_.frames = frames;
  burst_sent_ = 0;
  t0_ = now();
  ev_.notify(SC_ZERO_TIME);
}

sc_time TesterPort::period() const {
  if (!link_) throw std::logic_error(std::string(name()) + ": not cabled");
  return frame_time(static_cast<unsigned>(frame_.size()), link_->speed_mbps()) / p_.load;
}

uint64_t TesterPort::offered_by(const sc_time& t) const {
  if (!started_ || t < t0_) return 0;
  uint64_t n = static_cast<uint64_t>(std::floor((t - t0_) / period())) + 1;
  return (sent_ - burst_sent_) + (p_.frames ? std::min(n, p_.frames) : n);
}

void TesterPort::run() {
  if (!started_) return;
  const sc_time per = period();
  EthFrame f;
  f.bytes = frame_;
  // Hand the link the next `batch` frames at their own start times, then come back when the last
  // of them starts (the link keeps at most one batch queued ahead of the wire).
  const uint64_t n = p_.frames ? std::min<uint64_t>(p_.batch, p_.frames - burst_sent_) : p_.batch;
  if (n == 0) return;
  link_->transmit_train(f, t0_ + per * static_cast<double>(burst_sent_), per, n);
  const sc_time last = t0_ + per * static_cast<double>(burst_sent_ + n - 1);
  sent_ += n;
  burst_sent_ += n;
  c_sent_ += n;
  if (p_.frames == 0 || burst_sent_ < p_.frames) ev_.notify(last > now() ? last - now() : per);
}

std::optional<FrameTally> TesterPort::tally() const {
  FrameTally t;
  t.sent = sent_;
  t.accepted = received_;
  return t;
}

}  // namespace nicsim
