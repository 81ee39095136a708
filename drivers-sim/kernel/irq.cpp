// Hard interrupts of the kernel model (Linux 2.4.20 arch/i386/kernel/irq.c; see kernel.h for the
// other files). What do_IRQ does and in which order: interrupt.h.
//
//   Linux                                         here
//   the IRQ entry stub (IRQ0xNN_interrupt)        Kernel::interrupt (CpuSoftware: the CPU took a vector)
//   do_IRQ(), handle_IRQ_event(), irq_exit()      Kernel::do_irq (do_softirq: softirq.cpp)
//   ret_from_intr (the context's end)             Kernel::finished (then resched_check, sched.cpp)
//   request_irq(), free_irq()                     Kernel::request_irq, free_irq
//   irq_desc[] / irqaction                        Kernel::IrqLine / IrqAction (kernel.h), line()
//   kstat.irqs, get_irq_list (/proc/interrupts)   Kernel::irq_count, irq_rows
//   in_interrupt(), in_irq() (asm/hardirq.h)      Kernel::in_interrupt, in_interrupt_on, in_irq
//   the interrupted context's pt_regs             Kernel::current_irq, mark_irq (journey marks)
#include "drivers-sim/kernel/kernel.h"
#include "core/sim_context.h"
#include "drivers-sim/kernel/kernel_internal.h"
#include "drivers-sim/kernel/rx_batches.h"
#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace nicsim {

namespace {
constexpr int kEBUSY = 16;
}  // namespace

// ---------------------------------------------------------------------------------------------
// irq_desc[] and interrupt context

Kernel::IrqLine& Kernel::line(unsigned vector) {
  auto [it, ins] = irq_lines_.try_emplace(vector);
  if (ins) it->second.counts.assign(p_.cpus, nullptr);
  return it->second;
}

bool Kernel::in_interrupt_on(unsigned cpu) const {
  const PerCpu& q = percpu_.at(cpu);
  return !q.cpu->irq_stack().empty() || q.bh_count > 0;
}

bool Kernel::in_interrupt() const { return in_interrupt_on(Cpu::running_cpu().index()); }

bool Kernel::in_irq() const {
  for (ExecContext* c : Cpu::running_cpu().irq_stack())
    if (c->level == ExecLevel::Hardirq) return true;
  return false;
}

const IrqStamp* Kernel::current_irq() const {
  Cpu* c = Cpu::running_cpu_or_null();
  if (!c) return nullptr;
  auto& st = c->irq_stack();
  for (auto it = st.rbegin(); it != st.rend(); ++it)
    if ((*it)->level == ExecLevel::Hardirq) return &static_cast<KCtx*>(*it)->stamp;
  return nullptr;
}

void Kernel::mark_irq(JourneyId j) {
  const IrqStamp* s = current_irq();
  if (!s || !j) return;
  std::string w = where(Cpu::running_cpu().index());
  if (s->accepted > s->arrived) sim().journeys.mark(j, s->arrived, "IRQ delivery wait", w, s->wait_cause);
  sim().journeys.mark(j, s->accepted, "IRQ entry", w);
}

// ---------------------------------------------------------------------------------------------
// request_irq, /proc/interrupts

int Kernel::request_irq(unsigned vector, IrqHandler handler, unsigned flags, const std::string& devname) {
  if (vector >= 256) throw std::invalid_argument("request_irq: vector out of range");
  IrqLine& l = line(vector);
  if (l.internal) return -kEBUSY;
  if (!l.actions.empty() && !((flags & SA_SHIRQ) && (l.actions.front().flags & SA_SHIRQ))) return -kEBUSY;
  l.actions.push_back({std::move(handler), flags, devname});
  l.label = l.label.empty() ? devname : l.label + ", " + devname;
  l.prof_ctx = 0;  // the profile row follows the label
  return 0;
}

void Kernel::free_irq(unsigned vector, const std::string& devname) {
  auto it = irq_lines_.find(vector);
  if (it == irq_lines_.end() || it->second.internal) return;
  auto& a = it->second.actions;
  a.erase(std::remove_if(a.begin(), a.end(), [&](const IrqAction& x) { return x.devname == devname; }), a.end());
}

uint64_t Kernel::irq_count(unsigned cpu, unsigned vector) const {
  auto it = irq_lines_.find(vector);
  if (it == irq_lines_.end() || cpu >= it->second.counts.size() || !it->second.counts[cpu]) return 0;
  return *it->second.counts[cpu];
}

std::vector<Kernel::IrqRow> Kernel::irq_rows() const {
  std::vector<IrqRow> rows;
  for (const auto& [v, l] : irq_lines_) {
    if (l.actions.empty()) continue;
    IrqRow r{v, l.label, l.internal, {}};
    for (unsigned c = 0; c < num_cpus(); ++c) r.counts.push_back(irq_count(c, v));
    rows.push_back(std::move(r));
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// do_IRQ

ExecContext* Kernel::interrupt(Cpu& cpu, const IrqStamp& st) {
  unsigned c = cpu.index();
  IrqLine& l = line(st.vector);
  if (!l.counts[c]) {
    std::string lab = l.label;
    if (lab.empty()) {
      char b[16];
      std::snprintf(b, sizeof b, "vec0x%02x", st.vector);
      lab = b;
    }
    l.counts[c] = &sim().counters.at(p_.host + ".interrupts.CPU" + std::to_string(c) + "." + lab);
  }
  ++*l.counts[c];
  auto k = std::make_unique<KCtx>(ExecLevel::Hardirq, l.label.empty() ? "spurious" : l.label);
  if (!l.prof_ctx) l.prof_ctx = context_tag("hardirq " + k->name);
  k->prof_ctx = l.prof_ctx;
  k->irqs_enabled = false;  // interrupt gate clears IF
  k->stamp = st;
  k->task = do_irq(c, k.get());
  k->root = k->task.handle();
  KCtx* raw = k.get();
  percpu_[c].live.push_back(std::move(k));
  return raw;
}

Task<void> Kernel::do_irq(unsigned c, KCtx* ctx) {
  Cpu& cpu = *percpu_[c].cpu;
  const unsigned v = ctx->stamp.vector;
  IrqLine& l = line(v);
  const bool edge = cpu.edge(v);
  co_await cost(CostId::irq_entry);
  if (edge) {  // ack_edge_ioapic_irq / smp_apic_timer_interrupt: ack_APIC_irq before the handler
    co_await cost(CostId::apic_eoi);
    cpu.eoi(v);
  }
  for (size_t i = 0; i < l.actions.size(); ++i) {
    IrqHandler h = l.actions[i].handler;
    // Frames per interrupt (rx_batches.h): what this action's device passed to netif_rx meanwhile.
    const NetDevice* dev = l.internal ? nullptr : dev_get(l.actions[i].devname);
    const uint64_t frames0 = dev ? rx_batches_frames(*dev) : 0;
    ctx->irqs_enabled = !(l.actions[i].flags & SA_INTERRUPT);  // handle_IRQ_event's __sti()
    co_await h(v);
    if (dev) rx_batches_irq(*dev, rx_batches_frames(*dev) - frames0);
  }
  // handle_IRQ_event: status |= each action's flags; with SA_SAMPLE_RANDOM, add_interrupt_randomness
  // after the handlers, IRQs still on.
  bool sample = false;
  for (const IrqAction& a : l.actions) sample = sample || (a.flags & SA_SAMPLE_RANDOM);
  if (sample) co_await cost(CostId::add_interrupt_randomness);
  ctx->irqs_enabled = false;
  if (!edge) {  // end_level_ioapic_irq: local APIC EOI; the I/OxAPIC re-sends if still asserted
    co_await cost(CostId::apic_eoi);
    cpu.eoi(v);
  }
  // irq_exit + do_softirq: only when this interrupt did not nest in another interrupt/softirq
  // context and bottom halves are not disabled (do_softirq's in_interrupt() check).
  PerCpu& q = percpu_[c];
  if (q.pending && cpu.irq_stack().size() == 1 && q.bh_count == 0) co_await run_softirq_child(c);
  co_await cost(CostId::irq_return);
}

void Kernel::finished(Cpu& cpu, ExecContext* ctx) {
  unsigned c = cpu.index();
  PerCpu& q = percpu_[c];
  if (ctx->level == ExecLevel::Process) {
    auto* p = static_cast<Process*>(ctx);
    p->pstate_ = Process::PState::Zombie;
    runqueue_.erase(std::remove(runqueue_.begin(), runqueue_.end(), p), runqueue_.end());
    p->main_.result();  // rethrow what the process died of
    return;             // the CPU now calls idle() -> schedule()
  }
  auto it = std::find_if(q.live.begin(), q.live.end(), [&](auto& u) { return u.get() == ctx; });
  if (it == q.live.end()) throw std::logic_error("Kernel::finished: unknown context " + ctx->name);
  std::unique_ptr<KCtx> k = std::move(*it);
  q.live.erase(it);
  k->task.result();
  if (cpu.irq_stack().empty()) resched_check(c);
}

}  // namespace nicsim
