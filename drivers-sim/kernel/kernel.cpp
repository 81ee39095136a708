// The kernel model's construction and teardown, its CPU-time charging and profile, and journey
// marks (see kernel.h for the file of each Linux function).
//
// Construction is what Linux 2.4.20's start_kernel does for the pieces modelled (init/main.c):
// the CPUs (smp_init) with their local APIC timers and the PIT on the timekeeping CPU
// (time_init: IRQ0 "timer", SA_INTERRUPT in arch/i386/kernel/time.c), the softirq vector
// (softirq_init: HI -> TIMER_BH, NET_TX/NET_RX from net_dev_init), ksoftirqd_CPUn per CPU
// (spawn_ksoftirqd), and the DMA write snoop that invalidates CPU cache lines (cache_lines.cpp).
#include "drivers-sim/kernel/kernel.h"
#include "core/sim_context.h"
#include "drivers-sim/kernel/cpu_time.h"
#include "drivers-sim/kernel/kernel_internal.h"
#include <fmt/format.h>
#include "models/host/host_face.h"
#include <algorithm>
#include <set>
#include <stdexcept>

namespace nicsim {

using State = ExecContext::State;

namespace {
std::set<const Kernel*>& live_kernels() {
  static std::set<const Kernel*> s;
  return s;
}
}  // namespace

bool kernel_alive(const Kernel* k) { return k && live_kernels().count(k); }

// ---------------------------------------------------------------------------------------------
// construction

Kernel::Kernel(HostFace& hw, const KernelParams& params)
    : p_(params), hw_(&hw), costs_(&cost_profile(params.cost_profile)), dma_next_(params.dma_base) {
  if (!p_.cost_group_scales.empty()) {
    scaled_costs_ = std::make_unique<CostProfile>(*costs_);
    for (const auto& [group, factor] : p_.cost_group_scales) scaled_costs_->scale_group(group, factor);
    costs_ = scaled_costs_.get();
  }
  if (p_.cpus == 0) throw std::invalid_argument("Kernel: cpus must be >= 1");
  if (p_.irq_dest_cpu >= p_.cpus) throw std::invalid_argument("Kernel: irq_dest_cpu out of range");
  if ((p_.cpus_allowed & all_cpus_mask()) == 0)
    throw std::invalid_argument("Kernel: cpus_allowed names no existing CPU");
  if (p_.hz == 0) throw std::invalid_argument("Kernel: hz must be > 0");
  if (p_.cpus > 64) throw std::invalid_argument("Kernel: at most 64 CPUs");
  if (p_.threads_per_core < 1 || p_.threads_per_core > 2 || p_.cpus % p_.threads_per_core)
    throw std::invalid_argument("Kernel: threads_per_core must be 1 or 2 and divide cpus");
  if (!(p_.smt_shared_speed > 0 && p_.smt_shared_speed <= 1))
    throw std::invalid_argument("Kernel: smt_shared_speed must be in (0, 1]");
  if (p_.cache_line_bytes == 0 || (p_.cache_line_bytes & (p_.cache_line_bytes - 1)) || p_.cache_line_bytes > 256)
    throw std::invalid_argument("Kernel: cache_line_bytes must be a power of two up to 256");
  if (p_.read_sector_bytes && (p_.read_sector_bytes < p_.cache_line_bytes ||
                               (p_.read_sector_bytes & (p_.read_sector_bytes - 1)) || p_.read_sector_bytes > 1024))
    throw std::invalid_argument("Kernel: read_sector_bytes must be 0 or a power of two from cache_line_bytes up to 1024");
  // The first kernel of a testbed: skbs freed by an earlier testbed's kernels are not reused.
  if (live_kernels().empty()) skb_cache_clear();
  live_kernels().insert(this);
  rq_addr_ = smp_object(p_.cache_line_bytes);  // runqueue_lock + runqueue_head (SMP only)
  Cpu::Params cp;
  cp.mhz = p_.cpu_mhz;
  cp.halt_exit_latency = p_.halt_exit_latency;
  if (p_.threads_per_core > 1) cp.smt_shared_speed = p_.smt_shared_speed;
  complex_ = std::make_unique<CpuComplex>((p_.host + "_cpus").c_str(), p_.cpus, cp);
  // Hyper-threading: logical CPU n and n + cores() are the two threads of core n (cache_of).
  if (p_.threads_per_core == 2)
    for (unsigned i = 0; i < p_.cpus; ++i) complex_->cpu(i).set_sibling(&complex_->cpu((i + cores()) % p_.cpus));
  complex_->set_route_default(p_.irq_dest_cpu);
  complex_->fsb_initiator.bind(hw.fsb_target());
  hw.apic_out().bind(*complex_);
  complex_->eoi_out.bind(hw.eoi_in());

  // Kernel's own interrupt lines: edge, handlers with IRQs off (irq0 is SA_INTERRUPT in
  // arch/i386/kernel/time.c; smp_apic_timer_interrupt runs with IRQs off).
  {
    IrqLine& loc = line(LOCAL_TIMER_VECTOR);
    loc.internal = true;
    loc.label = "LOC";
    loc.actions.push_back({[this](unsigned) { return local_timer_irq(smp_processor_id()); }, SA_INTERRUPT, "LOC"});
    IrqLine& tim = line(p_.timer_irq_vector);
    tim.internal = true;
    tim.label = "timer";
    tim.actions.push_back({[this](unsigned) { return timer_irq(smp_processor_id()); }, SA_INTERRUPT, "timer"});
    IrqLine& res = line(RESCHEDULE_VECTOR);
    res.internal = true;
    res.label = "RES";
  }
  softirq_vec_[HI_SOFTIRQ] = [this](unsigned c) { return run_timer_list(c); };
  softirq_vec_[NET_TX_SOFTIRQ] = [this](unsigned c) { return net_tx_action(c); };
  softirq_vec_[NET_RX_SOFTIRQ] = [this](unsigned c) { return net_rx_action(c); };
  // CPU profile rows of softirq work, by vector (TIMER_BH runs from HI_SOFTIRQ).
  softirq_ctx_[HI_SOFTIRQ] = context_tag("softirq HI (TIMER_BH)");
  softirq_ctx_[NET_TX_SOFTIRQ] = context_tag("softirq NET_TX");
  softirq_ctx_[NET_RX_SOFTIRQ] = context_tag("softirq NET_RX");
  softirq_ctx_[TASKLET_SOFTIRQ] = context_tag("softirq TASKLET");
  softirq_ctx_[kNrSoftirqs] = context_tag("softirq do_softirq");

  for (unsigned i = 0; i < p_.cpus; ++i) percpu_.emplace_back();
  const sc_time period = tick_period(p_.hz);
  for (unsigned i = 0; i < p_.cpus; ++i) {
    PerCpu& q = percpu_[i];
    q.cpu = &complex_->cpu(i);
    q.cpu->set_software(this);
    q.cpu->set_counter_prefix(where(i));
    std::string n = std::to_string(i);
    q.ctx_switches = &sim().counters.at(where(i) + ".context_switches");
    q.rx_total = &sim().counters.at(p_.host + ".softnet.CPU" + n + ".total");
    q.rx_dropped = &sim().counters.at(p_.host + ".softnet.CPU" + n + ".dropped");
    q.rx_throttled = &sim().counters.at(p_.host + ".softnet.CPU" + n + ".throttled");
    q.rx_time_squeeze = &sim().counters.at(p_.host + ".softnet.CPU" + n + ".time_squeeze");
    q.dma_line_misses = &sim().counters.at(where(i) + ".dma_line_misses");
    q.dma_line_stall_ns = &sim().counters.at(where(i) + ".dma_line_stall_ns");
    if (p_.cpus > 1) {
      q.xcpu_lines = &sim().counters.at(where(i) + ".xcpu_line_transfers");
      q.xcpu_stall_ns = &sim().counters.at(where(i) + ".xcpu_line_stall_ns");
    }
    // ksoftirqd_CPUn: nice 19 kernel thread (kernel/softirq.c), asleep until a softirq needs it.
    auto k = std::make_unique<Process>(*this, "ksoftirqd_CPU" + n, i, 19);
    k->kthread_ = true;
    k->cpus_allowed_ = uint64_t(1) << i;  // ksoftirqd binds itself to its CPU (kernel/softirq.c)
    k->time_on_.assign(p_.cpus, SC_ZERO_TIME);
    k->in_kernel_ = true;
    k->main_ = ksoftirqd_main(i);
    k->root = k->main_.handle();
    k->resume_at = k->root;
    k->state = State::Blocked;
    k->pstate_ = Process::PState::Sleeping;
    q.ksoftirqd_wq.link(*k);
    q.ksoftirqd = k.get();
    procs_.push_back(std::move(k));
    if (p_.hz_tick) {
      q.cpu->add_periodic(LOCAL_TIMER_VECTOR, p_.tick_phase + period, period);
      if (i == p_.irq_dest_cpu) q.cpu->add_periodic(p_.timer_irq_vector, p_.tick_phase + period, period);
    }
  }
  hw.set_dma_write_observer([this](uint64_t addr, size_t len) { on_dma_write(addr, len); });
}

Kernel::~Kernel() {
  // Teardown in an explicit order, not the members' (see Process and WaitQueue for who owns what).
  hw_->set_dma_write_observer({});  // software goes before the hardware (Testbed::keepalive)
  // 1. The software contexts, while the kernel is whole: destroying a suspended coroutine runs its
  //    frames' destructors, which may free skbs, delete timers or take a process off a wait queue.
  //    Interrupt contexts first (their frames may name processes), then the processes (each takes
  //    itself off its wait queue, e.g. ksoftirqd off the per-CPU queue that outlives it here).
  runqueue_.clear();
  for (auto& q : percpu_) {
    q.current = nullptr;
    q.ksoftirqd = nullptr;
    q.live.clear();
  }
  procs_.clear();
  // 2. Timers still pending belong to objects that may outlive the kernel (a driver's watchdog):
  //    unlink them so their destructors do not call back.
  for (auto& [_, t] : timers_) {
    t->pending_ = false;
    t->kernel_ = nullptr;
  }
  timers_.clear();
  // 3. In-flight skbs, while the allocator is alive; skbs held elsewhere after this see a dead
  //    kernel (SkbDeleter) and are deleted without it.
  for (auto& q : percpu_) {
    q.backlog.clear();
    q.completion_queue.clear();
  }
  live_kernels().erase(this);
}

Kernel::PerCpu& Kernel::pc() const {
  return const_cast<PerCpu&>(percpu_.at(Cpu::running_cpu().index()));
}

CpuBurn Kernel::cost(CostId id, size_t bytes) const {
  Cpu& c = Cpu::running_cpu();
  return CpuBurn{c.cycles(entry_cycles(costs_->at(id), bytes, c.mhz())), what_tag(id)};
}

CpuBurn Kernel::cost(const CostEntry& e, size_t bytes) const {
  Cpu& c = Cpu::running_cpu();
  return CpuBurn{c.cycles(entry_cycles(e, bytes, c.mhz())), e.what};
}

CpuBurn Kernel::locked_ops(unsigned n) const {
  if (p_.cpus == 1 || n == 0) return CpuBurn{SC_ZERO_TIME};
  return CpuBurn{Cpu::running_cpu().cycles(locked_op_cycles(n)), what_tag(CostId::locked_op)};
}

// ---------------------------------------------------------------------------------------------
// CPU time profile

uint16_t Kernel::context_tag(const std::string& name) {
  auto it = ctx_index_.find(name);
  if (it != ctx_index_.end()) return it->second;
  if (ctx_names_.size() >= 0xffff) throw std::length_error("CPU profile: more than 65535 context names");
  ctx_names_.push_back(name);
  return ctx_index_[name] = static_cast<uint16_t>(ctx_names_.size() - 1);
}

void Kernel::name_pci_regions(const PciDevice& dev, const std::string& name) {
  const PciDeviceInfo& info = dev.info();
  for (unsigned fn = 0; fn < info.functions; ++fn) {
    const std::string n = fn == 0 ? name : name + ":" + std::to_string(fn);
    if (dev.bar(fn)) regions_[dev.bar(fn)] = Region{info.bar_size, false, n};
    if (info.io_bar_size && dev.io_bar(fn)) regions_[dev.io_bar(fn)] = Region{info.io_bar_size, true, n};
  }
  stall_tags_.clear();  // names may have changed
}

uint16_t Kernel::stall_what(Cpu&, bool write, uint64_t addr, PciSpace space) {
  const bool io = space == PciSpace::Io;
  const uint64_t key = addr << 2 | (write ? 2u : 0u) | (io ? 1u : 0u);
  auto it = stall_tags_.find(key);
  if (it != stall_tags_.end()) return it->second;
  std::string where;
  auto r = regions_.upper_bound(addr);
  if (r != regions_.begin()) {
    --r;
    if (r->second.io == io && addr - r->first < r->second.size)
      where = fmt::format("{}+0x{:04x}", r->second.name, addr - r->first);
  }
  if (where.empty()) where = fmt::format("0x{:x}", addr);
  const uint16_t tag = what_tag(fmt::format("{} {} {}", io ? "I/O" : "MMIO", write ? "write" : "read", where));
  stall_tags_.emplace(key, tag);
  return tag;
}

CpuTimeProfile Kernel::cpu_time(unsigned cpu) {
  Cpu& c = complex_->cpu(cpu);
  CpuTimeProfile p;
  p.cpu = cpu;
  p.mhz = c.mhz();
  p.wall = now();
  p.halted = c.halted_time();
  p.waking = c.waking_time();
  for (int l = 0; l < 3; ++l) p.busy[l] = c.busy(static_cast<ExecLevel>(l));
  for (const CpuProfileCell& cell : c.profile()) {
    CpuTimeRow r;
    r.context = cell.ctx < ctx_names_.size() ? ctx_names_[cell.ctx] : "(untagged)";
    r.level = cell.level;
    r.what = what_name(cell.what);
    r.kind = what_kind(cell.what);
    r.time = cell.time;
    p.rows.push_back(std::move(r));
  }
  std::sort(p.rows.begin(), p.rows.end(), [](const CpuTimeRow& a, const CpuTimeRow& b) {
    if (a.time != b.time) return a.time > b.time;
    if (a.what != b.what) return a.what < b.what;
    return a.context < b.context;
  });
  return p;
}

// ---------------------------------------------------------------------------------------------
// journeys

void Kernel::mark(JourneyId j, const std::string& stage, const std::string& cause) {
  if (!j) return;
  Cpu* c = Cpu::running_cpu_or_null();
  sim().journeys.mark(j, now(), stage, c ? where(c->index()) : p_.host, cause);
  if (c && c->running()) {
    c->running()->journey = j;
    c->running()->stage = stage;
  }
}

}  // namespace nicsim
