#include "models/ether/mac_tx.h"
#include "core/sim_context.h"
#include "models/ether/link.h"
#include <algorithm>

namespace nicsim {

MacTxQueue::MacTxQueue(std::string where, sc_time pipeline) : where_(std::move(where)), pipeline_(pipeline) {
  sc_core::sc_spawn_options o;
  o.spawn_method();
  o.dont_initialize();
  o.set_sensitivity(&ev_);
  sc_core::sc_spawn([this] { run(); }, "mac", &o);
}

void MacTxQueue::queue(EthFrame f, std::function<void()> sent) {
  q_.push_back({std::move(f), now(), std::move(sent), false});
  ev_.notify(SC_ZERO_TIME);
}

void MacTxQueue::queue_control(EthFrame f, std::function<void()> sent) {
  auto it = std::find_if(q_.begin(), q_.end(), [](const Ready& r) { return !r.control; });
  q_.insert(it, Ready{std::move(f), now(), std::move(sent), true});
  ev_.notify(SC_ZERO_TIME);
}

void MacTxQueue::pause(unsigned quanta) {
  pause_until(now() + pause_duration(quanta, link_ ? link_->speed_mbps() : 1000));
}

void MacTxQueue::pause_until(const sc_time& t) {
  pause_until_ = t;
  ev_.notify(SC_ZERO_TIME);  // an earlier end (XON) starts the held frame now; a later one re-plans
}

bool MacTxQueue::paused() const { return pause_until_ > now(); }

void MacTxQueue::hold(bool h) {
  held_ = h;
  if (!h) ev_.notify(SC_ZERO_TIME);
}

void MacTxQueue::run() {
  while (!sent_.empty() && sent_.front().end <= now()) {
    auto s = std::move(sent_.front());
    sent_.pop_front();
    if (s.sent) s.sent();
  }
  if (!sent_.empty()) ev_.notify(sent_.front().end - now());
  if (q_.empty() || !link_ || held_) return;
  Ready& r = q_.front();
  const sc_time earliest = r.ready + pipeline_;
  sc_time start = std::max(earliest, link_->wire_free_at());
  const char* cause = link_->wire_free_at() > earliest ? "wire busy" : "";
  if (!r.control && pause_until_ > start) {  // 802.3 Annex 31B.3: data frames wait out the pause
    start = pause_until_;
    cause = "PAUSE";
  }
  if (start > now()) {
    ev_.notify(start - now());
    return;
  }
  if (cause[0] && r.f.journey) sim().journeys.mark(r.f.journey, earliest, "MAC TX", where_, cause);
  Ready fr = std::move(q_.front());
  q_.pop_front();
  const sc_time end = link_->transmit(fr.f, now());
  sent_.push_back({end, std::move(fr.sent)});
  ev_.notify(std::min(end, link_->wire_free_at()) - now());
}

MacRxPipeline::MacRxPipeline(std::string where, sc_time latency, std::function<void(const EthFrame&)> deliver)
    : where_(std::move(where)), latency_(latency), deliver_(std::move(deliver)) {
  sc_core::sc_spawn_options o;
  o.spawn_method();
  o.dont_initialize();
  o.set_sensitivity(&ev_);
  sc_core::sc_spawn([this] { run(); }, "arrive", &o);
}

void MacRxPipeline::arrived(const EthFrame& f) {
  if (f.journey) sim().journeys.mark(f.journey, now(), "MAC RX", where_, "");
  q_.push_back({now() + latency_, f, false});
  if (q_.size() == 1) ev_.notify(q_.front().at - now());
}

void MacRxPipeline::arrived_bad_fcs(const EthFrame& f) {
  if (f.journey) sim().journeys.mark(f.journey, now(), "MAC RX", where_, "bad FCS");
  q_.push_back({now() + latency_, f, true});
  if (q_.size() == 1) ev_.notify(q_.front().at - now());
}

void MacRxPipeline::run() {
  while (!q_.empty() && q_.front().at <= now()) {
    EthFrame f = std::move(q_.front().f);
    const bool bad = q_.front().bad_fcs;
    q_.pop_front();
    (bad ? deliver_bad_ : deliver_)(f);  // a bad frame without set_bad_fcs: std::bad_function_call, not a silent loss
  }
  if (!q_.empty()) ev_.notify(q_.front().at - now());
}

}  // namespace nicsim
