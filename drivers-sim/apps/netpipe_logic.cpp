#include "drivers-sim/apps/netpipe_logic.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace nicsim {

namespace {
constexpr double kLongTime = 1e99;  // LONGTIME (netpipe.h)
constexpr int kCharSize = 8;        // CHARSIZE
constexpr size_t kSyncBytes = 6;    // strlen("SyncMe") (TCP.c Sync)
constexpr size_t kIntBytes = 4;     // SendRepeat / SendTime write a 32-bit integer
}  // namespace

int netpipe_nrepeat(double runtm_s, int prev_bufflen, int inc, double tlast_s, int trials) {
  double r = runtm_s / (double(prev_bufflen) / (prev_bufflen - inc + 1.0) * tlast_s);
  double v = std::max(r, double(trials));
  if (v >= double(INT_MAX)) return INT_MAX;
  return int(v);  // C conversion truncates toward zero
}

double netpipe_mbps(int bytes, double t_s) { return double(bytes) * kCharSize / (t_s * 1024 * 1024); }

std::string netpipe_latency_lines(double latency_s) {
  char b[96];
  std::snprintf(b, sizeof b, "Latency: %f\nNow starting main loop\n", latency_s);
  return b;
}

std::string netpipe_progress_line(int n, int bytes, int nrepeat, double mbps, double t_s) {
  char a[96], b[96];
  std::snprintf(a, sizeof a, "%3d: %9d bytes %4d times --> ", n, bytes, nrepeat);
  std::snprintf(b, sizeof b, " %6.2f Mbps in %f sec\n", mbps, t_s);
  return std::string(a) + b;
}

std::string netpipe_out_line(double t_s, double mbps, int bits, int bytes, double variance) {
  char b[160];
  std::snprintf(b, sizeof b, "%f\t%f\t%d\t%d\t%f\n", t_s, mbps, bits, bytes, variance);
  return b;
}

NetpipeSchedule::NetpipeSchedule(const NetpipeOptions& o) : o_(o) {
  if (o.start_bytes < 1) throw std::invalid_argument("NetPIPE: Need a starting value >= 1");
  if (o.start_bytes > o.end_bytes) throw std::invalid_argument("NetPIPE: Start MUST be LESS than end");
  len_ = o.start_bytes;
  detail_ = o.inc_bytes != 0;
  inc_ = detail_ ? o.inc_bytes : (o.start_bytes > 1 ? o.start_bytes / 2 : 1);
}

bool NetpipeSchedule::next(double tlast_s, NetpipeStep* out) {
  const int P = o_.pert;
  if (!in_group_) {
    if (!(n_ < o_.nsamp - 3 && tlast_s < o_.stoptm_s && len_ <= o_.end_bytes)) return false;
    // "This has the effect of exponentially increasing the block size."
    if (nq_ > 2 && !detail_) inc_ = (nq_ % 2) ? inc_ + inc_ : inc_;
    pert_ = (!detail_ && inc_ > P + 1) ? -P : 0;
    in_group_ = true;
  }
  out->n = n_;
  out->nq = nq_;
  out->len = len_;
  out->pert = pert_;
  out->bytes = len_ + pert_;
  out->inc = inc_;
  ++n_;
  pert_ += (!detail_ && inc_ > P + 1) ? P : P + 1;
  if (pert_ > P) {
    in_group_ = false;
    len_ += inc_;
    ++nq_;
  }
  return true;
}

NetpipeProgram::NetpipeProgram(const NetpipeOptions& o, bool transmitter, NetpipeChannel* ch)
    : o_(o), tr_(transmitter), ch_(ch), sched_(o) {
  if (!ch) throw std::invalid_argument("NetpipeProgram needs a channel");
}

uint32_t NetpipeProgram::pop() {
  if (ch_->values.empty()) throw std::logic_error("NetPIPE receiver read a value nobody sent");
  uint32_t v = ch_->values.front();
  ch_->values.pop_front();
  return v;
}

NetpipeOp NetpipeProgram::next(double now) {
  using K = NetpipeOpKind;
  for (;;) {
    switch (pc_) {
      case kBegin:
        sync_ret_ = kLatStart;
        pc_ = kSync0;
        break;
      case kSync0:
        pc_ = kSync1;
        return op(K::Send, kSyncBytes, "sync");
      case kSync1:
        pc_ = sync_ret_;
        return op(K::Recv, kSyncBytes, "sync");
      case kLatStart:
        t0_ = now;
        i_ = 0;
        pc_ = kLatLoop;
        break;
      case kLatLoop:
        if (i_ >= o_.latency_reps) {
          latency_ = (now - t0_) / (2.0 * o_.latency_reps);
          pc_ = kLatTime;
          break;
        }
        pc_ = kLatSecond;
        return op(tr_ ? K::Send : K::Recv, 1, "latency");
      case kLatSecond:
        ++i_;
        pc_ = kLatLoop;
        return op(tr_ ? K::Recv : K::Send, 1, "latency");
      case kLatTime:
        if (tr_) {
          ch_->values.push_back(uint32_t(latency_ * 1e6));
          progress_ += netpipe_latency_lines(latency_);
          tlast_ = latency_;
          pc_ = kSizeStart;
          return op(K::Send, kIntBytes, "time");
        }
        pc_ = kLatTimeGot;
        return op(K::Recv, kIntBytes, "time");
      case kLatTimeGot:
        latency_ = tlast_ = pop() / 1e6;
        pc_ = kSizeStart;
        break;
      case kSizeStart:
        if (!sched_.next(tlast_, &step_)) {
          pc_ = kDone;
          break;
        }
        trial_ = 0;
        t1_ = t2_ = 0;
        tmin_ = kLongTime;
        if (tr_) {
          nrepeat_ = netpipe_nrepeat(o_.runtm_s, prev_bytes_, step_.inc, tlast_, o_.trials);
          prev_bytes_ = step_.bytes;
          ch_->values.push_back(uint32_t(nrepeat_));
          pc_ = kTrialStart;
          return op(K::Send, kIntBytes, "repeat");
        }
        pc_ = kRepeatGot;
        return op(K::Recv, kIntBytes, "repeat");
      case kRepeatGot:
        nrepeat_ = int(pop());
        pc_ = kTrialStart;
        break;
      case kTrialStart:
        if (trial_ >= o_.trials) {
          pc_ = kSizeEnd;
          break;
        }
        sync_ret_ = kTrialTimed;
        pc_ = kSync0;
        break;
      case kTrialTimed:
        t0_ = now;
        j_ = 0;
        pc_ = kRepLoop;
        break;
      case kRepLoop:
        if (j_ >= nrepeat_) {
          double t = (now - t0_) / (2.0 * nrepeat_);
          t2_ += t * t;
          t1_ += t;
          tmin_ = std::min(tmin_, t);
          ++trial_;
          pc_ = kTrialStart;
          break;
        }
        pc_ = kRepSecond;
        return op(tr_ ? K::Send : K::Recv, size_t(step_.bytes), "data");
      case kRepSecond:
        ++j_;
        pc_ = kRepLoop;
        return op(tr_ ? K::Recv : K::Send, size_t(step_.bytes), "data");
      case kSizeEnd:
        if (tr_) {
          NetpipeResult r;
          r.n = step_.n;
          r.bytes = step_.bytes;
          r.nrepeat = nrepeat_;
          r.t_s = tmin_;
          r.mbps = netpipe_mbps(step_.bytes, tmin_);
          r.variance = t2_ / o_.trials - t1_ / o_.trials * t1_ / o_.trials;
          results_.push_back(r);
          tlast_ = tmin_;
          progress_ += netpipe_progress_line(r.n, r.bytes, r.nrepeat, r.mbps, r.t_s);
          out_ += netpipe_out_line(r.t_s, r.mbps, r.bytes * kCharSize, r.bytes, r.variance);
          ch_->values.push_back(uint32_t(tmin_ * 1e6));
          pc_ = kSizeStart;
          return op(K::Send, kIntBytes, "time");
        }
        pc_ = kTimeGot;
        return op(K::Recv, kIntBytes, "time");
      case kTimeGot:
        tlast_ = pop() / 1e6;
        pc_ = kSizeStart;
        break;
      case kDone:
        return op(K::Done, 0, "");
    }
  }
}

}  // namespace nicsim
