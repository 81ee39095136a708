#include "models/cpu/cpu.h"
#include "models/bus/payload.h"
#include "core/sim_context.h"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace nicsim {

using State = ExecContext::State;

const char* level_name(ExecLevel l) {
  switch (l) {
    case ExecLevel::Process: return "process";
    case ExecLevel::Softirq: return "softirq";
    case ExecLevel::Hardirq: return "hardirq";
  }
  return "?";
}

Cpu* Cpu::current_ = nullptr;

namespace {
/// The payload of every CPU's FSB access (mmio, line_read), reused: constructing a
/// tlm_generic_payload allocates its extension array and destroying it frees it, once per cache
/// miss and register access otherwise. Accesses never nest (a target does not call back into a
/// CPU), so one per thread serves them all; each access sets every field it uses (reset_payload)
/// and leaves no extension behind.
tlm::tlm_generic_payload& fsb_payload() {
  static thread_local tlm::tlm_generic_payload gp;
  return gp;
}
}  // namespace

Cpu::Cpu(sc_core::sc_module_name name, unsigned index, const Params& p)
    : sc_module(name), fsb_initiator("fsb_initiator"), eoi_out("eoi_out"), index_(index), p_(p) {
  for (auto& a : acc_) a = SC_ZERO_TIME;
  SC_METHOD(dispatch);
  sensitive << ev_;  // also runs once at time 0 to start whatever was installed at elaboration
  SC_METHOD(arrival_method);
  sensitive << arrival_ev_;
  dont_initialize();
  SC_METHOD(tick_method);
  sensitive << tick_ev_;
  dont_initialize();
}

void Cpu::add_periodic(unsigned vector, const sc_time& first, const sc_time& period) {
  if (period == SC_ZERO_TIME) throw std::invalid_argument("add_periodic: zero period");
  if (first < now()) throw std::invalid_argument("add_periodic: first time in the past");
  tmr_edge_.set(vector);
  periodic_.push_back({vector, first, period});
  tick_ev_.notify(first - now());
}

void Cpu::tick_method() {
  sc_time next = sc_core::SC_ZERO_TIME;
  bool any = false;
  for (auto& p : periodic_) {
    if (p.next <= now()) {
      add_arrival(p.vector, SC_ZERO_TIME, true);
      p.next += p.period;
    }
    if (!any || p.next < next) next = p.next, any = true;
  }
  if (any) tick_ev_.notify(next - now());
}

void Cpu::set_counter_prefix(const std::string& prefix) {
  track_ = prefix;
  ctr_[0] = &sim().counters.at(prefix + ".busy_process_ns");
  ctr_[1] = &sim().counters.at(prefix + ".busy_softirq_ns");
  ctr_[2] = &sim().counters.at(prefix + ".busy_hardirq_ns");
  ctr_[3] = &sim().counters.at(prefix + ".idle_ns");
}

Cpu& Cpu::running_cpu() {
  if (!current_) throw std::logic_error("CPU awaitable used outside software running on a Cpu");
  return *current_;
}

// ---------------------------------------------------------------------------------------------
// local APIC

void Cpu::add_arrival(unsigned vector, const sc_time& delay, bool local) {
  if (vector >= 256) throw std::invalid_argument("interrupt vector out of range: " + std::to_string(vector));
  if (local) tmr_edge_.set(vector);
  arrivals_.emplace(now() + delay, vector);
  arrival_ev_.notify(delay);
}

void Cpu::apic_message(unsigned vector, const sc_time& delay) { add_arrival(vector, delay, false); }
void Cpu::raise_local(unsigned vector, const sc_time& delay) { add_arrival(vector, delay, true); }

void Cpu::arrival_method() {
  while (!arrivals_.empty() && arrivals_.begin()->first <= now()) {
    unsigned v = arrivals_.begin()->second;
    arrivals_.erase(arrivals_.begin());
    if (!irr_[v]) {  // IRR holds one request per vector: a second message merges with the first
      irr_.set(v);
      ++irr_count_;
      irr_since_[v] = now();
      irr_cause_[v].clear();
    }
  }
  if (!arrivals_.empty()) arrival_ev_.notify(arrivals_.begin()->first - now());
  dispatch();
}

void Cpu::eoi(unsigned vector) {
  const int hi = isr_.highest();
  if (hi != static_cast<int>(vector))
    throw std::logic_error(std::string(name()) + ": EOI for vector " + std::to_string(vector) +
                           " but the highest in-service vector is " + std::to_string(hi));
  isr_.set(vector, false);
  if (!tmr_edge_[vector] && eoi_out.size() > 0) eoi_out->eoi(vector, SC_ZERO_TIME);
}

int Cpu::deliverable() const {
  if (irr_count_ == 0) return -1;
  const int hi_irr = irr_.highest();
  const int hi_isr = isr_.highest();
  const int isr_class = hi_isr < 0 ? -1 : hi_isr >> 4;
  return (hi_irr >= 0 && (hi_irr >> 4) > isr_class) ? hi_irr : -1;
}

// ---------------------------------------------------------------------------------------------
// running software

void Cpu::burn(std::coroutine_handle<> h, const sc_time& d, uint16_t what) {
  ExecContext* c = running_;
  c->resume_at = h;
  start_burn(c, d, what);
}

void Cpu::start_burn(ExecContext* c, const sc_time& d, uint16_t what) {
  c->prof_what = what;
  c->state = State::Burning;
  c->rate = speed_;
  c->until = now() + (speed_ == 1.0 ? d : d / speed_);
  c->preemptible = c->irqs_enabled;
}

bool Cpu::burn_chain(std::coroutine_handle<> h, const BurnSegment* segs, size_t n) {
  size_t i = 0;
  while (i < n && segs[i].d == SC_ZERO_TIME) ++i;
  if (i == n) return false;
  ExecContext* c = running_;
  c->chain.clear();  // keeps its capacity: no allocation per chain once warm
  c->chain_next = 0;
  for (size_t j = i + 1; j < n; ++j)
    if (segs[j].d != SC_ZERO_TIME) c->chain.push_back(segs[j]);
  burn(h, segs[i].d, segs[i].what);
  return true;
}

// ---------------------------------------------------------------------------------------------
// run-ahead over burn chains
//
// At a chain boundary the per-burn path would run this CPU's dispatch: account the burn that
// ended, find the context Ready (an instruction boundary), take a deliverable interrupt if the
// window is open, else start the next burn. Nothing else happens there, and what it decides
// depends only on this CPU's state: IRR (changed only by arrival_method, a SystemC process), ISR
// and IF (changed only by the context's own code, and none runs inside a chain), the sibling's
// speed (changed only in the sibling's dispatch, a process), the stack (the software on this
// CPU). So when no SystemC process can run before the chain's merged end, every boundary up to
// it decides "no interrupt, next burn" (an interrupt deliverable with the window open would
// already have been taken when the burn under way started), and the boundaries can be passed
// without an event. The rule (run_ahead):
//   - nothing else is runnable now (sc_pending_activity_at_current_time() false, with this
//     CPU's own wake-up cancelled first: it is the event being replaced), and
//   - the merged end is strictly before the next pending timed activity of any process
//     (now + sc_time_to_pending_activity(), which includes this CPU's interrupt arrivals and
//     local timer, the other CPUs' wake-ups, every DMA and device event; strictly: at a tie the
//     order of two processes at the same time is the scheduler's, which the merge must not
//     change), and
//   - the merged end is strictly before the run's end (set_run_horizon: a run that stops
//     mid-chain would leave the busy counters as of the last boundary), and
//   - tracing is off (the trace has one span per burn).
// Then no process runs before the merged end, so nobody can observe (or change) the state in
// between, and at the end the dispatch sees what the per-burn path sees. The profile is charged
// burn by burn (account() splits the stretch at the recorded ends), so cells, busy times and
// counters are the same to the picosecond. Should a dispatch or a sibling change happen inside
// a merged stretch anyway (it cannot under the rule), unmerge() returns to per-burn boundaries
// from that moment on.

sc_time Cpu::horizon_ = SC_ZERO_TIME;
uint64_t Cpu::ra_boundaries_ = 0;

bool Cpu::runahead_default() {
  static const bool on = [] {
    const char* e = std::getenv("NICSIM_RUNAHEAD");
    return !(e && std::string(e) == "0");
  }();
  return on;
}

void Cpu::run_for(const sc_time& d) {
  set_run_horizon(sc_core::sc_time_stamp() + d);
  sc_core::sc_start(d);
}

void Cpu::run_ahead(ExecContext* t) {
  if (ra_skip_) {
    --ra_skip_;
    return;
  }
  if (ra_ctx_ || sim().trace.enabled()) return;
  ev_.cancel();  // this CPU's own wake-up is the event being replaced, not other activity
  const bool merged = run_ahead_now(t);
  ra_backoff_ = merged ? 0 : std::min(2 * ra_backoff_ + 1, 15u);
  ra_skip_ = ra_backoff_;
}

bool Cpu::run_ahead_now(ExecContext* t) {
  if (sc_core::sc_pending_activity_at_current_time()) return false;
  sc_time limit = now() + sc_core::sc_time_to_pending_activity();
  if (horizon_ < limit) limit = horizon_;
  sc_time end = t->until;
  size_t k = t->chain_next;
  while (k < t->chain.size()) {
    const BurnSegment& s = t->chain[k];
    const sc_time e = end + (speed_ == 1.0 ? s.d : s.d / speed_);  // as start_burn would at `end`
    if (!(e < limit)) break;
    if (ra_.empty()) ra_.push_back({t->until, t->prof_what});
    ra_.push_back({e, s.what});
    end = e;
    ++k;
  }
  if (ra_.empty()) return false;
  ra_boundaries_ += k - t->chain_next;
  ra_ctx_ = t;
  ra_pos_ = 0;
  t->chain_next = k;
  t->until = end;
  t->prof_what = ra_.back().what;
  return true;
}

void Cpu::unmerge() {
  account();             // charges every burn of the stretch that ended by now
  if (!ra_ctx_) return;  // the stretch ended exactly now: nothing merged is left
  ExecContext* t = ra_ctx_;
  // The burn under way: the one that ends exactly now if one does (its boundary is still to be
  // passed, as in the per-burn path), else the first that ends later; those after it are started
  // at their boundaries again.
  size_t i = ra_pos_;
  if (i > 0 && ra_[i - 1].end == now()) --i;
  const size_t unstarted = ra_.size() - 1 - i;
  ra_boundaries_ -= unstarted;
  t->chain_next -= unstarted;
  t->until = ra_[i].end;
  t->prof_what = ra_[i].what;
  cur_what_ = ra_[i].what;
  ra_.clear();
  ra_pos_ = 0;
  ra_ctx_ = nullptr;
}

void Cpu::set_sibling(Cpu* s) {
  sibling_ = s;
  speed_ = s && !s->halted_ ? p_.smt_shared_speed : 1.0;
}

void Cpu::set_halted(bool h) {
  if (halted_ == h) return;
  halted_ = h;
  if (sibling_) sibling_->sibling_changed();
}

void Cpu::sibling_changed() {
  const double s = sibling_ && !sibling_->halted_ ? p_.smt_shared_speed : 1.0;
  if (s == speed_) return;
  if (ra_ctx_) unmerge();
  ExecContext* t = top();
  if (t && t->state == State::Burning && t->until > now()) {
    // The work left (at full speed) is unchanged; the wall time it takes follows the new share.
    const double left_full = (t->until - now()).to_double() * t->rate;  // ps
    t->until = now() + sc_time(left_full / s, sc_core::SC_PS);
    t->rate = s;
    if (!in_dispatch_) schedule_at(t->until);
  }
  speed_ = s;
}

bool Cpu::mmio(std::coroutine_handle<> h, bool write, uint64_t addr, uint32_t& data, unsigned bytes, PciSpace space) {
  if (bytes != 1 && bytes != 2 && bytes != 4)
    throw std::invalid_argument(std::string(name()) + ": uncached access of " + std::to_string(bytes) +
                                " bytes (1, 2 or 4)");
  const bool io = space == PciSpace::Io;
  tlm::tlm_generic_payload& gp = fsb_payload();
  unsigned char buf[4];
  for (int i = 0; i < 4; ++i) buf[i] = static_cast<unsigned char>(data >> (8 * i));  // little endian
  reset_payload(gp, write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, addr, buf, bytes);
  PciSpaceExt ext;
  if (io) gp.set_extension(&ext);
  sc_time delay = SC_ZERO_TIME;
  struct ClearExt {  // also when b_transport throws: the payload outlives `ext`
    tlm::tlm_generic_payload& gp;
    PciSpaceExt* ext;
    ~ClearExt() {
      if (ext) gp.clear_extension(ext);
    }
  } clear_ext{gp, io ? &ext : nullptr};
  fsb_initiator->b_transport(gp, delay);
  if (gp.is_response_error())
    throw std::runtime_error(std::string(name()) + ": " + (io ? "I/O " : "MMIO ") + (write ? "write" : "read") +
                             " at 0x" +
                             [&] { char s[32]; std::snprintf(s, sizeof s, "%llx", (unsigned long long)addr); return std::string(s); }() +
                             " failed: " + gp.get_response_string());
  if (!write) {
    data = 0;
    for (unsigned i = 0; i < bytes; ++i) data |= uint32_t(buf[i]) << (8 * i);
  }
  if (delay == SC_ZERO_TIME) return false;
  ExecContext* c = running_;
  c->resume_at = h;
  c->state = State::Stalled;
  c->stall_kind = io ? "I/O stall" : "MMIO stall";
  c->prof_what = sw_ ? sw_->stall_what(*this, write, addr, space) : 0;
  c->until = now() + delay;
  c->preemptible = false;
  return true;
}

sc_time Cpu::line_read(uint64_t addr, unsigned bytes) {
  unsigned char buf[256];
  if (bytes == 0 || bytes > sizeof buf) throw std::invalid_argument("line_fill: line size must be 1..256 bytes");
  tlm::tlm_generic_payload& gp = fsb_payload();
  reset_payload(gp, tlm::TLM_READ_COMMAND, addr, buf, bytes);
  sc_time delay = SC_ZERO_TIME;
  fsb_initiator->b_transport(gp, delay);
  if (gp.is_response_error()) {
    char s[32];
    std::snprintf(s, sizeof s, "%llx", (unsigned long long)addr);
    throw std::runtime_error(std::string(name()) + ": line fill at 0x" + s + " failed: " + gp.get_response_string());
  }
  return delay;
}

bool Cpu::line_fill(std::coroutine_handle<> h, uint64_t addr, unsigned bytes, sc_time* stall, uint16_t what,
                    const sc_time& extra) {
  const sc_time delay = (bytes ? line_read(addr, bytes) : SC_ZERO_TIME) + extra;
  if (stall) *stall = delay;
  if (delay == SC_ZERO_TIME) return false;
  ExecContext* c = running_;
  c->resume_at = h;
  c->state = State::Stalled;
  c->stall_kind = "cache miss";
  c->prof_what = what;
  c->until = now() + delay;
  c->preemptible = false;
  return true;
}

void Cpu::block(std::coroutine_handle<> h) {
  ExecContext* c = running_;
  if (c != process_) throw std::logic_error("only a process context can sleep (" + c->name + " is " + level_name(c->level) + ")");
  c->resume_at = h;
  c->state = State::Blocked;
}

void Cpu::run_child(std::coroutine_handle<> h, ExecContext* child) {
  ExecContext* c = running_;
  c->resume_at = h;
  c->state = State::WaitChild;
  child->parent = c;
  child->state = State::Ready;
  stack_.push_back(child);
}

void Cpu::set_process(ExecContext* p) { process_ = p; }

void Cpu::resume(ExecContext* c) {
  if (!c->resume_at) c->resume_at = c->root;
  running_ = c;
  current_ = this;
  c->state = State::Running;
  auto h = c->resume_at;
  h.resume();
  current_ = nullptr;
  running_ = nullptr;
  if (c->state == State::Running) {
    if (!c->root.done())
      throw std::logic_error(c->name + ": coroutine suspended on an awaitable that is not a CPU awaitable");
    c->state = State::Done;
  }
}

void Cpu::split(ExecContext* c, const std::string& cause) {
  sc_time rem = c->until - now();
  if (rem == SC_ZERO_TIME) {  // the burn ends exactly now: nothing to split
    c->state = State::Ready;
    return;
  }
  c->state = State::Preempted;
  c->remaining = c->rate == 1.0 ? rem : rem * c->rate;
  if (c->journey) sim().journeys.mark(c->journey, now(), "CPU wait", name(), cause);
}

void Cpu::schedule_at(const sc_time& t) {
  ev_.cancel();
  ev_.notify(t - now());
}

bool Cpu::irq_window(ExecContext* t) const {
  if (!t) return true;  // the idle loop runs with IF=1
  if (!t->irqs_enabled) return false;
  switch (t->state) {
    case State::Ready:
    case State::Preempted: return true;
    case State::Burning: return t->preemptible;
    default: return false;  // Stalled: instruction not retired; Done/Blocked: being removed
  }
}

void Cpu::dispatch() {
  if (in_dispatch_) throw std::logic_error("Cpu::dispatch re-entered");
  in_dispatch_ = true;
  account();
  if (ra_ctx_) unmerge();  // inside a merged stretch (cannot happen under the rule; at its end account() closed it)
  if (kicked_) {
    kicked_ = false;
    if (halted_) set_halted(false);  // elaboration/test-bench start: no HLT exit latency
  }
  for (;;) {
    if (halted_) {
      if (deliverable() < 0) break;
      note_pending_cause("CPU halted");
      set_halted(false);
      waking_ = true;
      wake_at_ = now() + p_.halt_exit_latency;
    }
    if (waking_) {
      if (now() < wake_at_) {
        schedule_at(wake_at_);
        break;
      }
      waking_ = false;
    }
    ExecContext* t = top();
    if (irq_window(t)) {
      int v = deliverable();
      if (v >= 0) {
        irr_.set(v, false);
        --irr_count_;
        isr_.set(v);
        IrqStamp st{static_cast<unsigned>(v), irr_since_[v], now(), irr_cause_[v]};
        ExecContext* h = sw_->interrupt(*this, st);
        if (t && t->state == State::Burning) split(t, std::string("CPU busy: ") + level_name(h->level) + " " + h->name);
        h->parent = nullptr;
        h->state = State::Ready;
        stack_.push_back(h);
        continue;
      }
    }
    if (!t) {
      sw_->idle(*this);
      if (!process_) {
        set_halted(true);
        if (deliverable() < 0) break;
      }
      continue;
    }
    switch (t->state) {
      case State::Burning:
      case State::Stalled:
        if (now() < t->until) {
          if (p_.runahead && t->state == State::Burning && t->chain_next < t->chain.size()) run_ahead(t);
          schedule_at(t->until);
          goto out;
        }
        t->state = State::Ready;  // instruction boundary: pending interrupts are taken first
        continue;
      case State::Preempted:
        t->state = State::Burning;
        t->rate = speed_;
        t->until = now() + (speed_ == 1.0 ? t->remaining : t->remaining / speed_);
        t->remaining = SC_ZERO_TIME;
        if (t->journey) sim().journeys.mark(t->journey, now(), t->stage, name());
        continue;
      case State::Ready:
        if (t->chain_next < t->chain.size()) {  // a chain's next burn, as if the software awaited it now
          const BurnSegment seg = t->chain[t->chain_next++];
          start_burn(t, seg.d, seg.what);
          continue;
        }
        resume(t);
        continue;
      case State::Blocked:
        process_ = nullptr;
        sw_->blocked(*this, t);
        continue;
      case State::Done:
        if (t == process_) {
          process_ = nullptr;
        } else {
          stack_.pop_back();
          if (t->parent) {
            t->parent->state = State::Ready;
            t->parent = nullptr;
          }
        }
        sw_->finished(*this, t);
        continue;
      case State::WaitChild:
      case State::Running:
        throw std::logic_error(t->name + ": context on top of the CPU in an impossible state");
    }
  }
out:
  set_bucket();
  if (irr_count_) {  // why pending interrupts wait (the text is built only when a vector lacks one)
    bool missing = false;
    irr_.for_each([&](unsigned v) { missing = missing || irr_cause_[v].empty(); });
    if (missing) note_pending_cause(busy_cause());
  }
  in_dispatch_ = false;
}

void Cpu::note_pending_cause(const std::string& cause) {
  if (!irr_count_) return;
  irr_.for_each([&](unsigned v) {
    if (irr_cause_[v].empty()) irr_cause_[v] = cause;
  });
}

// ---------------------------------------------------------------------------------------------
// accounting

inline void Cpu::charge(const sc_time& dt, uint16_t what) {  // inline: on every dispatch's path
  acc_[bucket_] += dt;
  auto& rows = prof_[bucket_];  // the profile cell: two array indexes, grown on a tag's first use
  if (cur_ctx_ >= rows.size()) rows.resize(cur_ctx_ + 1u);
  auto& row = rows[cur_ctx_];
  if (what >= row.size()) row.resize(what + 1u, SC_ZERO_TIME);
  row[what] += dt;
}

void Cpu::account() {
  sc_time t = now();
  if (ra_ctx_ && t > last_acc_) {
    // A merged chain stretch (run_ahead): each burn that ended by now is charged its own piece,
    // as the dispatch at its end would have; what is left is the burn under way.
    while (ra_pos_ < ra_.size() && ra_[ra_pos_].end <= t) {
      if (ra_[ra_pos_].end > last_acc_) charge(ra_[ra_pos_].end - last_acc_, ra_[ra_pos_].what);
      last_acc_ = ra_[ra_pos_].end;
      ++ra_pos_;
    }
    if (ra_pos_ == ra_.size()) {
      ra_.clear();
      ra_pos_ = 0;
      ra_ctx_ = nullptr;
    } else {
      cur_what_ = ra_[ra_pos_].what;
    }
    if (ctr_[bucket_]) *ctr_[bucket_] = static_cast<uint64_t>(acc_[bucket_].value() / 1000);
  }
  if (t > last_acc_) {
    const sc_time dt = t - last_acc_;
    if (bucket_ < 3) {
      charge(dt, cur_what_);
    } else {
      acc_[bucket_] += dt;
      if (cur_waking_) waking_acc_ += dt;
    }
    // One span per stretch of work in one context, on this CPU's track (--trace).
    if (bucket_ < 3 && sim().trace.enabled()) sim().trace.span(track_, span_, last_acc_, t);
    last_acc_ = t;
    if (ctr_[bucket_]) *ctr_[bucket_] = static_cast<uint64_t>(acc_[bucket_].value() / 1000);  // ps -> ns
  }
}

void Cpu::set_bucket() {
  ExecContext* t = top();
  if (halted_ || waking_ || !t) bucket_ = 3;
  else if (t->state == State::Burning || t->state == State::Stalled) bucket_ = static_cast<int>(t->level);
  else bucket_ = 3;
  cur_waking_ = waking_;
  if (bucket_ < 3) cur_ctx_ = t->prof_ctx, cur_what_ = t->prof_what;
  if (bucket_ < 3 && sim().trace.enabled())
    span_ = std::string(level_name(t->level)) + " " + t->name +
            (t->state == State::Stalled ? std::string(" (") + t->stall_kind + ")" : std::string());
}

sc_time Cpu::busy(ExecLevel l) const {
  sc_time a = acc_[static_cast<int>(l)];
  if (bucket_ == static_cast<int>(l) && now() > last_acc_) a += now() - last_acc_;
  return a;
}

sc_time Cpu::idle_time() const {
  sc_time a = acc_[3];
  if (bucket_ == 3 && now() > last_acc_) a += now() - last_acc_;
  return a;
}

std::vector<CpuProfileCell> Cpu::profile() const {
  std::vector<CpuProfileCell> out;
  const bool open = bucket_ < 3 && now() > last_acc_;  // the stretch since the last dispatch
  for (int l = 0; l < 3; ++l) {
    const auto& rows = prof_[l];
    for (size_t c = 0; c < rows.size(); ++c)
      for (size_t w = 0; w < rows[c].size(); ++w)
        if (rows[c][w] > SC_ZERO_TIME || (open && l == bucket_ && c == cur_ctx_ && w == cur_what_))
          out.push_back({static_cast<ExecLevel>(l), static_cast<uint16_t>(c), static_cast<uint16_t>(w), rows[c][w]});
  }
  if (open) {
    bool found = false;
    for (auto& cell : out)
      if (static_cast<int>(cell.level) == bucket_ && cell.ctx == cur_ctx_ && cell.what == cur_what_)
        cell.time += now() - last_acc_, found = true;
    if (!found) out.push_back({static_cast<ExecLevel>(bucket_), cur_ctx_, cur_what_, now() - last_acc_});
  }
  return out;
}

sc_time Cpu::waking_time() const {
  sc_time a = waking_acc_;
  if (bucket_ == 3 && cur_waking_ && now() > last_acc_) a += now() - last_acc_;
  return a;
}

sc_time Cpu::halted_time() const { return idle_time() - waking_time(); }

double Cpu::utilisation(ExecLevel l) const {
  return now() == SC_ZERO_TIME ? 0.0 : busy(l).to_seconds() / now().to_seconds();
}

std::string Cpu::busy_cause() const {
  if (halted_) return "CPU halted";
  if (waking_) return "CPU waking from halt";
  ExecContext* t = top();
  if (!t) return "";
  if (t->state == State::Stalled) return std::string(t->stall_kind) + ": " + level_name(t->level) + " " + t->name;
  if (!t->irqs_enabled) return std::string("IRQs disabled: ") + level_name(t->level) + " " + t->name;
  return std::string("CPU busy: ") + level_name(t->level) + " " + t->name;
}

// ---------------------------------------------------------------------------------------------
// CPU complex

CpuComplex::CpuComplex(sc_core::sc_module_name name, unsigned n, const Cpu::Params& p)
    : sc_module(name), fsb_initiator("fsb_initiator"), eoi_out("eoi_out"), cpu_side_("cpu_side") {
  if (n == 0) throw std::invalid_argument("CpuComplex: at least one CPU");
  cpu_side_.register_b_transport(this, &CpuComplex::cpu_b_transport);
  for (unsigned i = 0; i < n; ++i) {
    cpus_.push_back(std::make_unique<Cpu>(("cpu" + std::to_string(i)).c_str(), i, p));
    cpus_.back()->fsb_initiator.bind(cpu_side_);
    cpus_.back()->eoi_out.bind(eoi_out);
  }
}

CpuComplex::~CpuComplex() = default;

unsigned CpuComplex::route(unsigned vector) const {
  auto it = routes_.find(vector);
  unsigned c = it == routes_.end() ? route_default_ : it->second;
  return c < cpus_.size() ? c : 0;
}

void CpuComplex::apic_message(unsigned vector, const sc_time& delay) { cpus_[route(vector)]->apic_message(vector, delay); }

void CpuComplex::cpu_b_transport(int, tlm::tlm_generic_payload& gp, sc_time& delay) {
  fsb_initiator->b_transport(gp, delay);
}

}  // namespace nicsim
