#include "models/bus/dma_engine.h"
#include "models/bus/payload.h"
#include "core/fidelity.h"
#include "core/sim_context.h"
#include "core/units.h"
#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace nicsim {

namespace {
/// Completed requests kept for request() (spare_), at most this many; more are freed. A device
/// that allocates its own requests instead of calling request() must not make them grow with the
/// run (each holds its buffer), and no device has more requests in flight than its rings hold.
constexpr size_t kMaxSpare = 1024;
}  // namespace

DmaEngine::DmaEngine(tlm::tlm_initiator_socket<>& initiator, std::string owner, std::string report_id, Planner plan)
    : initiator_(initiator), owner_(std::move(owner)), report_id_(std::move(report_id)), plan_(std::move(plan)),
      ev_("dma_ev"),
      fast_(run_fidelity() == Fidelity::Fast) {
  if (!plan_) throw std::invalid_argument(owner_ + ": DmaEngine needs a burst planner");
  sc_core::sc_spawn_options o;
  o.spawn_method();
  o.dont_initialize();
  o.set_sensitivity(&ev_);
  sc_core::sc_spawn([this] { run(); }, "dma_engine", &o);
}

DmaEngine::~DmaEngine() { trans_.clear_extension(&ext_); }

std::unique_ptr<DmaRequest> DmaEngine::request() {
  if (spare_.empty()) return std::make_unique<DmaRequest>();
  std::unique_ptr<DmaRequest> r = std::move(spare_.back());
  spare_.pop_back();
  std::vector<uint8_t> buf = std::move(r->buf);  // the containers keep their capacity
  std::vector<JourneyId> journeys = std::move(r->journeys);
  std::string where = std::move(r->where);
  buf.clear();
  journeys.clear();
  where.clear();
  *r = DmaRequest{};
  r->buf = std::move(buf);
  r->journeys = std::move(journeys);
  r->where = std::move(where);
  return r;
}

void DmaEngine::submit(std::unique_ptr<DmaRequest> r) {
  bool busy = cur_ || !q_.empty();
  for (auto j : r->journeys) sim().journeys.mark(j, now(), r->stage, r->where, busy ? "bus interface busy" : "");
  q_.push_back(std::move(r));
  if (!busy) ev_.notify(SC_ZERO_TIME);
}

void DmaEngine::run() {
  if (cur_ && cur_->off >= cur_->buf.size()) {  // the last burst of cur_ has completed now
    auto r = std::move(cur_);
    if (r->done) r->done(*r);
    r->done = nullptr;  // what it holds goes now, as when the request was destroyed here
    if (spare_.size() < kMaxSpare) spare_.push_back(std::move(r));
  }
  if (!cur_) {
    if (q_.empty()) return;
    cur_ = std::move(q_.front());
    q_.pop_front();
    for (auto j : cur_->journeys) sim().journeys.mark(j, now(), cur_->stage, cur_->where, "");
    if (cur_->buf.empty()) {  // nothing to move: complete at once
      ev_.cancel();
      ev_.notify(SC_ZERO_TIME);
      return;
    }
  }
  issue_burst();
}

void DmaEngine::issue_burst() {
  DmaRequest& r = *cur_;
  uint64_t a = r.addr + r.off;
  size_t left = r.buf.size() - r.off;
  DmaBurst b = plan_(r.write, a, left);
  size_t n = std::clamp<size_t>(b.bytes, 1, left);
  ext_.cmd = b.cmd;
  ext_.journey = r.journeys.empty() ? 0 : r.journeys.front();
  ext_.what = r.what;
  reset_payload(trans_, r.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, a, r.buf.data() + r.off,
                static_cast<unsigned>(n));
  if (!trans_.get_extension<PciTxnExt>()) trans_.set_extension(&ext_);
  sc_time delay = SC_ZERO_TIME;
  initiator_->b_transport(trans_, delay);
  ++bursts_;
  if (trans_.is_response_error()) {
    std::string m = fmt::format("{} DMA {} of {} B at {:#x} failed: {}", owner_, r.what, n, a,
                                trans_.get_response_string());
    SC_REPORT_ERROR(report_id_.c_str(), m.c_str());
  }
  const bool first = r.off == 0;
  r.off += n;
  if (fast_ && first && r.off < r.buf.size()) {
    // Fast mode (see dma_engine.h): the bursts the planner cuts the rest into; those up to the last
    // move by debug transport and take the first burst's time scaled by bytes; the last burst, when
    // it differs from the first (a partial tail), is issued through the bus models afterwards. A
    // one-off cost in the first burst's time is repeated for each middle burst: its arbitration
    // when the bus was parked on another agent (exact mode issues the middle bursts parked; the
    // unit test bus_dma_fast.cpp measures it), or a wait behind another master's tenure.
    size_t pos = r.off, last = 0;
    for (size_t left = r.buf.size() - pos; left > 0;) {
      last = std::clamp<size_t>(plan_(r.write, r.addr + pos, left).bytes, 1, left);
      pos += last;
      left -= last;
    }
    const size_t mid = r.buf.size() - r.off - (last == n ? 0 : last);
    if (mid > 0) {
      reset_payload(dbg_, r.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, r.addr + r.off,
                    r.buf.data() + r.off, static_cast<unsigned>(mid));
      if (initiator_->transport_dbg(dbg_) == mid) {
        delay = delay * (double(n + mid) / double(n));
        r.off += mid;
        extrapolated_bytes_ += mid;
      }
    }
  }
  ev_.cancel();  // a submit() from a completion callback may have left a delta notification
  ev_.notify(delay);
}

}  // namespace nicsim
