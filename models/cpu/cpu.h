// Processor cores with their local APICs, and the CPU complex a platform binds to its chipset.
//
// A Cpu is the *mechanism* that runs software; the policy (what Linux does on an interrupt, which
// process runs next) lives in the software layer (drivers-sim/kernel) behind the CpuSoftware
// interface, so models/ knows nothing of drivers-sim/ (DESIGN.md "Dependency rules").
//
// Software is C++20 coroutines. Each flow of control the CPU can run (a process, a softirq run, an
// interrupt handler) is an ExecContext. The running context executes instantly between
// awaits; it spends time only by awaiting:
//  - a *burn* (computation): preemptible when the context has interrupts enabled. An interrupt
//    splits it; the remainder runs when the context is on top again. Nothing happens inside a
//    burn, so the split is exact and CPU time is conserved to the picosecond.
//  - a *stall* (uncached MMIO access, or a cache-line fill from DRAM, on the front-side bus):
//    never preemptible (x86 takes interrupts at instruction boundaries; the load retires only
//    when its data arrives).
//  - blocking (process contexts only) or waiting for a child context it pushed (hardirq ->
//    do_softirq, process -> local_bh_enable/ksoftirqd).
// Contexts form a stack per CPU: the current process (or none = the idle task) at the bottom,
// then softirq and hardirq contexts. Only the top one executes.
//
// Local APIC (Intel SDM vol. 3 §10.8): IRR/ISR bit per vector; a pending vector is delivered when
// the running context has IF=1 and its priority class (vector >> 4) is above the highest
// in-service class. EOI clears the highest in-service vector and, for a level-triggered vector,
// is broadcast to the I/OxAPICs (through eoi_out), which re-send if the line is still asserted.
//
// Speed: one SC_METHOD per CPU (plus one for APIC arrivals and one for the local timer);
// each burn, stall or resume costs at most one SystemC event (DESIGN.md "Speed").
#pragma once
#include "core/journey.h"
#include "core/units.h"
#include "models/bus/irq.h"
#include <bitset>
#include <coroutine>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include "models/bus/pci.h"
#include <tlm_utils/simple_initiator_socket.h>
#include <vector>

namespace nicsim {

/// Software execution levels, lowest priority first (Linux 2.4: process < softirq < hard IRQ).
enum class ExecLevel : uint8_t { Process = 0, Softirq = 1, Hardirq = 2 };
const char* level_name(ExecLevel l);  ///< "process", "softirq", "hardirq"

/// Duration of `cycles` CPU cycles at `mhz` MHz, rounded to the 1 ps time resolution.
inline sc_time cpu_cycles(double cycles, double mhz) { return sc_time(cycles * 1e6 / mhz, sc_core::SC_PS); }

/// One burn of a chain (Cpu::burn_chain): `d` of computation at the core's full speed, charged in
/// the CPU's profile to `what` (ExecContext::prof_what).
struct BurnSegment {
  sc_time d = SC_ZERO_TIME;
  uint16_t what = 0;
};

/// One flow of control on a CPU (a process, a softirq run, an interrupt handler).
/// The software layer derives from it and owns it; the Cpu only schedules it.
struct ExecContext {
  enum class State : uint8_t {
    Ready,      ///< can run (resume `resume_at`) when on top
    Running,    ///< its coroutine is executing right now (zero simulated time)
    Burning,    ///< computing until `until`
    Preempted,  ///< a burn was split; `remaining` is left
    Stalled,    ///< uncached access in flight until `until` (not preemptible)
    Blocked,    ///< a process sleeping (on a wait queue); not on any CPU
    WaitChild,  ///< waiting for the child context it pushed to finish
    Done        ///< its root coroutine has returned
  };
  ExecContext(ExecLevel l, std::string n) : level(l), name(std::move(n)) {}
  virtual ~ExecContext() = default;

  ExecLevel level;
  std::string name;               ///< e.g. "netpipe", "softirq", "hardirq eth1"
  std::coroutine_handle<> root;   ///< the top-level coroutine (done() when the context ends)
  std::coroutine_handle<> resume_at;  ///< where execution continues (innermost suspended frame)
  State state = State::Ready;
  sc_time until = SC_ZERO_TIME;      ///< Burning/Stalled: absolute end time
  /// Preempted: burn still to do, in time at the core's full speed (a hyper-threading sibling that
  /// is busy slows it when it runs again: Cpu::Params::smt_shared_speed).
  sc_time remaining = SC_ZERO_TIME;
  double rate = 1.0;  ///< Burning: the share of the core's speed the burn runs at now (1: all of it)
  bool preemptible = true;           ///< the current burn may be split (IF=1 when it started)
  bool irqs_enabled = true;          ///< x86 IF while this context runs (software toggles it)
  const char* stall_kind = "MMIO stall";  ///< Stalled: what it waits for ("MMIO stall", "cache miss")
  /// CPU-time profile tags (Cpu::profile), opaque to the CPU: `prof_ctx` names the class of work
  /// this context does now (the software sets and may change it between awaits, e.g. per softirq
  /// vector), `prof_what` what its current burn or stall is spent on (set by burn/mmio/line_fill).
  /// 0 = untagged.
  uint16_t prof_ctx = 0;
  uint16_t prof_what = 0;
  ExecContext* parent = nullptr;     ///< set while a parent waits for this context (WaitChild)
  /// Journey this context is working for and its current stage: when the context must wait for
  /// the CPU (its burn is split by an interrupt) the CPU marks the wait and, on resuming, the
  /// stage again (core/journey.h). Set by the software (Kernel::mark).
  JourneyId journey = 0;
  std::string stage;
  /// A burn chain under way (Cpu::burn_chain): the burns still to start after the current one,
  /// chain[chain_next] first. The CPU starts each where the software would have awaited it.
  std::vector<BurnSegment> chain;
  size_t chain_next = 0;
};

/// When an interrupt was raised at the local APIC and when the CPU accepted it, with the reason
/// for any wait (recorded by the CPU at the time; the handler copies it into journeys).
struct IrqStamp {
  unsigned vector = 0;
  sc_time arrived = SC_ZERO_TIME;   ///< IRR bit set
  sc_time accepted = SC_ZERO_TIME;  ///< interrupt entry began (ISR bit set)
  std::string wait_cause;           ///< e.g. "CPU busy: hardirq eth1", "MMIO stall", "CPU halted"
};

class Cpu;

/// 256 interrupt-vector bits (one local APIC IRR, ISR or TMR register set, SDM vol. 3 §10.8.4),
/// four 64-bit words with a highest-set-bit query: the delivery check runs on every dispatch, and
/// a bit-by-bit scan of 256 vectors was the largest cost of a CPU under interrupt load.
struct VectorBits {
  uint64_t w[4] = {0, 0, 0, 0};
  bool operator[](unsigned v) const { return (w[v >> 6] >> (v & 63)) & 1; }
  void set(unsigned v, bool on = true) {
    const uint64_t m = uint64_t(1) << (v & 63);
    w[v >> 6] = on ? (w[v >> 6] | m) : (w[v >> 6] & ~m);
  }
  /// The highest vector whose bit is set, -1 when none is.
  int highest() const {
    for (int i = 3; i >= 0; --i)
      if (w[i]) return i * 64 + 63 - __builtin_clzll(w[i]);
    return -1;
  }
  /// Call f(v) for every set vector, lowest first.
  template <typename F>
  void for_each(F&& f) const {
    for (unsigned i = 0; i < 4; ++i)
      for (uint64_t b = w[i]; b; b &= b - 1) f(i * 64 + static_cast<unsigned>(__builtin_ctzll(b)));
  }
};

/// The software the CPU runs (implemented by the Kernel). Called from inside Cpu::dispatch at the
/// current simulated time; implementations change contexts only through the Cpu's methods.
struct CpuSoftware {
  virtual ~CpuSoftware() = default;
  /// The local APIC delivered `st.vector` (its ISR bit is now set). Return the hardirq context
  /// that handles it (Ready, root set); the CPU pushes it on top and runs it.
  virtual ExecContext* interrupt(Cpu& cpu, const IrqStamp& st) = 0;
  /// `ctx` finished and was popped off `cpu`'s stack (for a child, its parent is Ready again).
  /// The software frees it or does its bookkeeping; it may install another process.
  virtual void finished(Cpu& cpu, ExecContext* ctx) = 0;
  /// The process context `ctx` blocked and was taken off `cpu` (cpu.process() is now null).
  virtual void blocked(Cpu& cpu, ExecContext* ctx) = 0;
  /// `cpu` has nothing to run (no process, no interrupt context): the idle task's schedule().
  /// The software may call cpu.set_process(); if it does not, the CPU halts (HLT) until an
  /// interrupt arrives.
  virtual void idle(Cpu& cpu) = 0;
  /// The profile tag (ExecContext::prof_what) of an uncached access that stalls the running
  /// context: `write`, bus address (or I/O port) `addr`, `space`. Called only when it stalls.
  /// Default 0 (untagged).
  virtual uint16_t stall_what(Cpu& cpu, bool write, uint64_t addr, PciSpace space) {
    (void)cpu, (void)write, (void)addr, (void)space;
    return 0;
  }
};

/// One cell of a CPU's time profile (Cpu::profile): time spent at `level` by contexts tagged
/// `ctx` on burns/stalls tagged `what` (both tags opaque: the software names them).
struct CpuProfileCell {
  ExecLevel level;
  uint16_t ctx;
  uint16_t what;
  sc_time time;
};

/// One processor core with its local APIC.
class Cpu : public sc_core::sc_module, public apic_msg_if {
 public:
  struct Params {
    double mhz = 2400.0;  ///< core clock (platform param cpu_mhz)
    /// Time from an interrupt reaching a halted (HLT, C1) core until it executes again.
    /// estimate: no P4 Xeon figure found; C1 exit is documented as "low latency" — order 1 µs.
    sc_time halt_exit_latency = us(1.0);
    /// Hyper-threading (set_sibling): the share of the core's speed a burn runs at while the other
    /// logical processor of the same core is executing (not halted); 1 = no slowdown, the value
    /// without a sibling. A halted sibling gives all of the core back (single-task mode: "resources
    /// that were partitioned in MT-mode are re-combined to give the single active logical processor
    /// use of all of the resources", Marr et al., "Hyper-Threading Technology Architecture and
    /// Microarchitecture", Intel Technology Journal 6(1), Feb 2002, on HALT). Stalls (MMIO, cache
    /// misses) are not slowed: they wait on the bus.
    double smt_shared_speed = 1.0;
    /// Run-ahead over burn chains (Cpu::burn_chain, rule at Cpu::run_ahead): boundaries nothing
    /// can observe cost no SystemC event. Results are the same either way (the switch is for
    /// tests comparing the two); default on unless the environment has NICSIM_RUNAHEAD=0.
    bool runahead = runahead_default();
  };
  /// NICSIM_RUNAHEAD from the environment, read once: "0" turns run-ahead off, else on.
  static bool runahead_default();
  /// The simulated time the current sc_start() ends at (sc_start(d): now + d), which run-ahead
  /// never crosses (a run that stops mid-chain must leave the counters as the per-burn path
  /// would). Each workload sets it before sc_start (Cpu::run_for); 0 (the default): no run-ahead.
  static void set_run_horizon(const sc_time& t) { horizon_ = t; }
  /// set_run_horizon(now + d), then sc_core::sc_start(d).
  static void run_for(const sc_time& d);
  /// Chain boundaries passed without a SystemC event since the start of the process (all CPUs).
  static uint64_t runahead_boundaries() { return ra_boundaries_; }

  tlm_utils::simple_initiator_socket<Cpu> fsb_initiator;  ///< uncached (MMIO) accesses
  /// EOI broadcast to the I/OxAPICs (may stay unbound in a bench without level interrupts).
  sc_core::sc_port<eoi_if, 1, sc_core::SC_ZERO_OR_MORE_BOUND> eoi_out;

  SC_HAS_PROCESS(Cpu);
  Cpu(sc_core::sc_module_name name, unsigned index, const Params& p);

  void set_software(CpuSoftware* sw) { sw_ = sw; }
  /// Make `s` this logical processor's hyper-threading sibling (the other logical processor of the
  /// same core; both directions must be set): while `s` is not halted, this CPU's burns run at
  /// Params::smt_shared_speed, and a burn under way is re-timed the moment `s` halts or wakes.
  /// nullptr: no sibling (the default).
  void set_sibling(Cpu* s);
  Cpu* sibling() const { return sibling_; }
  /// The share of the core's speed a burn started now runs at (1 without a busy sibling).
  double speed() const { return speed_; }
  unsigned index() const { return index_; }
  double mhz() const { return p_.mhz; }
  /// Duration of `cycles` cycles on this core.
  sc_time cycles(double c) const { return cpu_cycles(c, p_.mhz); }

  // --- local APIC ---------------------------------------------------------------------------
  /// An interrupt message from the I/OxAPIC (via the CPU complex) arriving `delay` after now.
  /// External vectors are level-triggered unless set_edge() said otherwise.
  void apic_message(unsigned vector, const sc_time& delay) override;
  /// A locally generated interrupt (local APIC timer, IPI) at now + `delay`. Edge: its EOI is
  /// not broadcast.
  void raise_local(unsigned vector, const sc_time& delay);
  /// Mark `vector` edge-triggered (TMR bit clear): its EOI clears ISR but is not broadcast.
  void set_edge(unsigned vector, bool edge = true) { tmr_edge_.set(vector, edge); }
  /// Write the local APIC EOI register: clears the highest in-service vector (which must be
  /// `vector`, else std::logic_error) and broadcasts the EOI for a level-triggered vector.
  void eoi(unsigned vector);
  /// Periodic local source (the local APIC timer, or the PIT modelled at the timekeeping CPU):
  /// raise_local(vector) at `first`, first + period, first + 2·period, ... (absolute times).
  void add_periodic(unsigned vector, const sc_time& first, const sc_time& period);
  bool edge(unsigned vector) const { return tmr_edge_[vector]; }
  bool in_service(unsigned vector) const { return isr_[vector]; }
  bool pending(unsigned vector) const { return irr_[vector]; }

  // --- running software (called by awaitables and by the software layer) -------------------
  /// The CPU whose software is executing right now; throws std::logic_error when none is (a CPU
  /// awaitable used outside a CPU context).
  static Cpu& running_cpu();
  static Cpu* running_cpu_or_null() { return current_; }
  /// The context executing now (nullptr outside dispatch).
  ExecContext* running() const { return running_; }
  /// The running context computes for `d`; it continues at `h`. `what`: its profile tag
  /// (ExecContext::prof_what; 0 untagged).
  void burn(std::coroutine_handle<> h, const sc_time& d, uint16_t what = 0);
  /// The running context computes `n` burns in a row (a burn chain), exactly as if it awaited
  /// burn(segs[i].d, segs[i].what) for each in turn with no code in between: each starts when
  /// the previous ends, at the speed the core has then; at every boundary pending interrupts are
  /// taken first (an instruction boundary, as after a burn); each is charged to its own profile
  /// tag. Zero-length segments are skipped (a zero CpuBurn does not suspend). It continues at `h`
  /// after the last. Returns false (no suspension) when every segment is zero.
  bool burn_chain(std::coroutine_handle<> h, const BurnSegment* segs, size_t n);
  /// Uncached access of `bytes` (1, 2 or 4) on the FSB (b_transport at annotated delay 0), in
  /// memory space (MMIO: readb/readw/readl, writeb/...) or, with `space` PciSpace::Io, in I/O
  /// space (x86 IN/OUT of 8/16/32 bits: the payload carries a PciSpaceExt and the I/O port as
  /// its address). Little endian: a write sends the low `bytes` of `data`, a read fills `data`
  /// zero-extended. The context stalls, not preemptible, for the returned delay: for an MMIO
  /// write the chipset's posting time, for a read or any I/O access (OUT is not posted, Intel SDM
  /// vol. 1 "Ordering I/O") the whole round trip; busy_cause "MMIO stall" / "I/O stall". Returns
  /// true when it stalls, false when the delay was 0. Throws std::invalid_argument for another
  /// width, std::runtime_error when the target answers with an error response (a master abort).
  bool mmio(std::coroutine_handle<> h, bool write, uint64_t addr, uint32_t& data, unsigned bytes = 4,
            PciSpace space = PciSpace::Memory);
  /// Cacheable read of the `bytes`-byte line at `addr` (a cache miss: one line fill on the FSB,
  /// b_transport at annotated delay 0; the data is discarded, software reads memory functionally).
  /// The running context stalls, not preemptible, for the returned delay ("cache miss" in
  /// busy_cause). Returns true when it stalls, false when the delay was 0; `*stall` (if given) gets
  /// the delay. Throws std::runtime_error when the target answers with an error response,
  /// std::invalid_argument when `bytes` is above 256. `bytes` 0: no read; the context stalls for
  /// `extra` alone (the rest of a fill already under way, started by line_read: a prefetch).
  /// `what`: the stall's profile tag (ExecContext::prof_what).
  /// `extra`: time added to the target's delay (a snoop stall: the line is modified in another
  /// CPU's cache and comes by its implicit writeback).
  bool line_fill(std::coroutine_handle<> h, uint64_t addr, unsigned bytes, sc_time* stall = nullptr,
                 uint16_t what = 0, const sc_time& extra = SC_ZERO_TIME);
  /// The delay of the same FSB line read, without stalling anyone (for software that folds a
  /// fill into other work, e.g. the lines a context switch pulls in, or starts it early: a
  /// prefetch, whose data arrives at now + the delay). Throws std::runtime_error as line_fill,
  /// std::invalid_argument when `bytes` is 0 or above 256.
  sc_time line_read(uint64_t addr, unsigned bytes);
  /// The running process context sleeps; it continues at `h` once the software makes it
  /// Ready and installs it with set_process().
  void block(std::coroutine_handle<> h);
  /// The running context waits for `child` (pushed on top, Ready, root set) to finish.
  void run_child(std::coroutine_handle<> h, ExecContext* child);
  /// Install `p` as this CPU's process context (nullptr: the idle task). The previous one is
  /// simply dropped from the CPU (the software keeps it in its run queue).
  void set_process(ExecContext* p);
  ExecContext* process() const { return process_; }
  /// Contexts above the process level, bottom first.
  const std::vector<ExecContext*>& irq_stack() const { return stack_; }
  /// The context that would execute now (top of the stack, else the process; may be nullptr).
  ExecContext* top() const { return stack_.empty() ? process_ : stack_.back(); }
  /// Re-run the dispatcher in a delta cycle (for code outside any CPU that changed state, e.g.
  /// a test bench or elaboration-time spawn).
  void kick() {
    kicked_ = true;
    ev_.notify(SC_ZERO_TIME);
  }
  bool halted() const { return halted_; }
  /// Counter names start with this (e.g. "alpha.cpu0"): busy_hardirq_ns, busy_softirq_ns,
  /// busy_process_ns, idle_ns are kept current in sim().counters.
  void set_counter_prefix(const std::string& prefix);

  // --- accounting -----------------------------------------------------------------------------
  /// Time spent executing at `l` so far (burns and stalls of contexts at that level).
  sc_time busy(ExecLevel l) const;
  /// Time halted or waking from halt.
  sc_time idle_time() const;
  /// busy(l) / elapsed simulated time.
  double utilisation(ExecLevel l) const;
  /// The busy time so far split by (level, context tag, burn/stall tag), cells with time only,
  /// in no particular order. Exact: per level the cells sum to busy(level) to the picosecond.
  std::vector<CpuProfileCell> profile() const;
  /// Idle time so far split: halted (HLT, waiting for an interrupt) and waking from halt
  /// (halt_exit_latency); they sum to idle_time() exactly.
  sc_time halted_time() const;
  sc_time waking_time() const;
  /// A description of what occupies the CPU now, e.g. "CPU busy: softirq", "CPU busy: process
  /// netpipe", "MMIO stall", "cache miss", "IRQs disabled", "CPU halted"; "" when idle and awake.
  std::string busy_cause() const;

 private:
  void dispatch();          // SC_METHOD on ev_
  void arrival_method();    // SC_METHOD on arrival_ev_
  void tick_method();       // SC_METHOD on tick_ev_
  void add_arrival(unsigned vector, const sc_time& delay, bool local);
  void account();
  void set_bucket();
  int deliverable() const;  // highest IRR vector acceptable by priority class, -1 if none
  bool irq_window(ExecContext* t) const;
  void resume(ExecContext* c);
  void split(ExecContext* c, const std::string& cause);
  void schedule_at(const sc_time& t);
  void note_pending_cause(const std::string& cause);
  void start_burn(ExecContext* c, const sc_time& d, uint16_t what);
  void run_ahead(ExecContext* t);  // merge chain boundaries nothing can observe (rule in cpu.cpp)
  bool run_ahead_now(ExecContext* t);  // the look-ahead and the merge; false: nothing merged
  void unmerge();                  // back to per-burn boundaries from now on
  void charge(const sc_time& dt, uint16_t what);  // dt of the current bucket to cell `what`
  void set_halted(bool h);      // halted_ = h, telling the sibling
  void sibling_changed();       // the sibling halted or woke: re-time the burn under way

  unsigned index_;
  Params p_;
  CpuSoftware* sw_ = nullptr;
  std::vector<ExecContext*> stack_;
  ExecContext* process_ = nullptr;
  ExecContext* running_ = nullptr;
  static Cpu* current_;

  VectorBits irr_, isr_, tmr_edge_;
  std::vector<sc_time> irr_since_ = std::vector<sc_time>(256);
  std::vector<std::string> irr_cause_ = std::vector<std::string>(256);
  std::multimap<sc_time, unsigned> arrivals_;
  bool halted_ = false;
  bool waking_ = false;
  Cpu* sibling_ = nullptr;
  double speed_ = 1.0;  // share of the core's speed now (Params::smt_shared_speed while the sibling runs)
  sc_time wake_at_ = SC_ZERO_TIME;

  struct Periodic {
    unsigned vector;
    sc_time next, period;
  };
  std::vector<Periodic> periodic_;
  sc_core::sc_event ev_, arrival_ev_, tick_ev_;
  bool in_dispatch_ = false;

  // accounting buckets: 0..2 = ExecLevel, 3 = idle
  sc_time acc_[4];
  // profile: prof_[level][ctx tag][what tag] (grown on first use); waking part of bucket 3
  std::vector<std::vector<sc_time>> prof_[3];
  uint16_t cur_ctx_ = 0, cur_what_ = 0;
  bool cur_waking_ = false;
  sc_time waking_acc_ = SC_ZERO_TIME;
  sc_time last_acc_ = SC_ZERO_TIME;
  int bucket_ = 3;
  std::string track_ = "cpu";  ///< trace track ("<host>.cpu<n>")
  std::string span_;           ///< what the CPU is doing in the current bucket (trace span name)
  uint64_t* ctr_[4] = {nullptr, nullptr, nullptr, nullptr};
  bool kicked_ = false;
  unsigned irr_count_ = 0;
  /// A merged stretch of a chain (run_ahead): the context, and each burn's end and tag from the
  /// one under way at the merge on; account() charges each its piece. ra_pos_: the first not
  /// yet accounted.
  struct RaSeg {
    sc_time end;
    uint16_t what;
  };
  ExecContext* ra_ctx_ = nullptr;
  std::vector<RaSeg> ra_;
  size_t ra_pos_ = 0;
  /// Back-off of run-ahead attempts (the look-ahead query costs ~250 instructions and fails on
  /// most boundaries of a DMA-busy host): after a failed attempt the next ra_backoff_ are
  /// skipped, doubling up to 15 while they keep failing, reset by a success. Only whether to try
  /// depends on it, never what a merge does.
  unsigned ra_skip_ = 0, ra_backoff_ = 0;
  static sc_time horizon_;
  static uint64_t ra_boundaries_;
};

/// The CPU complex of one host: N Cpus, the interrupt routing from the chipset's APIC bus to
/// their local APICs, and the front-side-bus funnel of their uncached accesses.
///
/// Binding to a platform's HostHw (platforms/testbed.h), before sc_start():
///   complex.fsb_initiator.bind(hw.fsb_target());
///   hw.apic_out().bind(complex);
///   complex.eoi_out.bind(hw.eoi_in());
/// (Kernel's constructor does exactly this.)
class CpuComplex : public sc_core::sc_module, public apic_msg_if {
 public:
  tlm_utils::simple_initiator_socket<CpuComplex> fsb_initiator;  ///< to the MCH
  sc_core::sc_port<eoi_if, 1, sc_core::SC_ZERO_OR_MORE_BOUND> eoi_out;  ///< to the I/OxAPICs

  /// `n` cores named "<name>.cpu<i>" with parameters `p`.
  CpuComplex(sc_core::sc_module_name name, unsigned n, const Cpu::Params& p);
  ~CpuComplex() override;

  unsigned size() const { return static_cast<unsigned>(cpus_.size()); }
  Cpu& cpu(unsigned i) { return *cpus_.at(i); }

  /// Interrupt messages from the chipset: delivered to the CPU route(vector) names.
  /// Linux 2.4.20 on P4 SMP programmed every redirection entry so that all IRQs reached CPU0
  /// (research/e7500-p64h2-pcix.md §4 [S39]); route_default is that destination.
  void apic_message(unsigned vector, const sc_time& delay) override;
  /// Deliver `vector` to CPU `cpu` (an I/OxAPIC redirection entry's destination).
  void set_route(unsigned vector, unsigned cpu) { routes_[vector] = cpu; }
  void set_route_default(unsigned cpu) { route_default_ = cpu; }
  unsigned route(unsigned vector) const;

 private:
  void cpu_b_transport(int id, tlm::tlm_generic_payload& gp, sc_time& delay);

  tlm_utils::multi_passthrough_target_socket<CpuComplex> cpu_side_;
  std::vector<std::unique_ptr<Cpu>> cpus_;
  std::map<unsigned, unsigned> routes_;
  unsigned route_default_ = 0;
};

}  // namespace nicsim
