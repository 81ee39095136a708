// The CPU cache lines and SMP locks of the kernel model (see kernel.h for the other files).
//
// Linux has no file for this: it is what the hardware does under the kernel's loads and stores,
// modelled where the kernel's time depends on it. Every cache line a device wrote by DMA is
// invalid in every CPU's cache (the chipset snoops inbound writes off the FSB:
// HostFace::set_dma_write_observer -> on_dma_write), so the next load misses and fills over the
// FSB. On SMP (cpus > 1) the kernel objects the network path shares between CPUs are tracked per
// cache line with an owner: a load on a CPU that does not hold the line fills it over the FSB; a
// line modified in the other CPU's cache is a HITM snoop with an implicit writeback. Line states are
// kept per cache, not per logical CPU: hyper-threading siblings share their core's caches
// (cache_of), so what one wrote the other hits. Locked operations (spin_lock) are charged where 2.4.20
// takes them.
//
//   Linux                                           here
//   spin_lock()/spin_unlock() (asm/spinlock.h)      Kernel::spin_lock (the lock's line + locked op)
//   L1_CACHE_BYTES / SMP_CACHE_BYTES (asm/cache.h)  KernelParams::cache_line_bytes
//   a kernel object aligned to SMP_CACHE_BYTES      Kernel::smp_object
//   loads of DMA'd memory (descriptor status,       Kernel::load_dma_lines, dma_lines_missing
//     received headers)
//   loads/stores of shared kernel objects           Kernel::touch_lines, lines_now (no stall),
//                                                   lines_modified_elsewhere
//   prefetch() (linux/prefetch.h, prefetchnta)      Kernel::prefetch: the fill starts now, a later
//                                                   load waits for what is left (pending_fills_)
//   (hardware) NetBurst's adjacent cache line       Kernel::sector_fill: a miss or prefetch fetches
//     prefetch: a read fetches a 128-byte sector    the rest of its read_sector_bytes sector too
#include "drivers-sim/kernel/kernel.h"
#include "core/sim_context.h"
#include "drivers-sim/kernel/cpu_time.h"

namespace nicsim {

void Kernel::on_dma_write(uint64_t addr, size_t len) {
  if (!len) return;
  const uint64_t l0 = addr / p_.cache_line_bytes, l1 = (addr + len - 1) / p_.cache_line_bytes;
  for (uint64_t l = l0; l <= l1; ++l) dma_lines_[l] = LineState{};  // snooped: no CPU holds it any more
  if (!pending_fills_.empty())
    for (uint64_t l = l0; l <= l1; ++l) pending_fills_.erase(l);  // a fill under way brings stale data: gone
}

bool Kernel::start_fill(Cpu& c, uint64_t l, bool allow_hitm) {
  const unsigned cpu = c.index(), cc = cache_of(cpu);
  const uint64_t lb = p_.cache_line_bytes, bit = uint64_t(1) << cc;
  auto it = dma_lines_.find(l);
  if (it == dma_lines_.end() || (it->second.holders & bit)) return false;  // a hit: nothing to fetch
  LineState& st = it->second;
  const bool hitm = st.owner >= 0 && st.owner != static_cast<int>(cc);
  if (hitm && !allow_hitm) return false;
  const sc_time fill = c.line_read(l * lb, static_cast<unsigned>(lb)) + (hitm ? p_.hitm_snoop_stall : SC_ZERO_TIME);
  st.holders |= bit;
  st.owner = hitm ? -1 : st.owner;  // as a load: the implicit writeback leaves it shared and clean
  if (st.holders == all_caches_mask() && st.owner < 0) dma_lines_.erase(it);
  pending_fills_[l] = PendingFill{cc, now() + fill};
  PerCpu& q = percpu_[cpu];
  if (!q.prefetch_wait_ns) q.prefetch_wait_ns = &sim().counters.at(where(cpu) + ".prefetch_wait_ns");
  return true;
}

void Kernel::sector_fill(Cpu& c, uint64_t l) {
  const uint64_t per = p_.read_sector_bytes / p_.cache_line_bytes;
  if (per <= 1) return;
  const uint64_t s0 = l - l % per;
  unsigned n = 0;
  for (uint64_t m = s0; m < s0 + per; ++m)
    if (m != l && !pending_fills_.count(m) && start_fill(c, m, false)) ++n;
  if (!n) return;
  PerCpu& q = percpu_[c.index()];
  if (!q.adjacent_line_fills) q.adjacent_line_fills = &sim().counters.at(where(c.index()) + ".adjacent_line_fills");
  *q.adjacent_line_fills += n;
}

void Kernel::prefetch(uint64_t addr) {
  Cpu& c = this_cpu();
  const unsigned cpu = c.index();
  const uint64_t l = addr / p_.cache_line_bytes;
  if (!start_fill(c, l, true)) return;  // a hit: prefetch does nothing
  PerCpu& q = percpu_[cpu];
  if (!q.prefetches) q.prefetches = &sim().counters.at(where(cpu) + ".prefetches");
  ++*q.prefetches;
  sector_fill(c, l);
}

sc_time Kernel::pending_fill_wait(uint64_t l, unsigned cpu) {
  auto it = pending_fills_.find(l);
  if (it == pending_fills_.end()) return SC_ZERO_TIME;
  const sc_time t = now();
  if (it->second.cpu != cache_of(cpu) || it->second.ready <= t) {
    // Arrived, or another CPU's fill (this CPU's load is a demand access of its own: the line's
    // state says whether it misses).
    if (it->second.ready <= t) pending_fills_.erase(it);
    return SC_ZERO_TIME;
  }
  return it->second.ready - t;
}

void Kernel::cpu_stored(unsigned cpu, uint64_t addr, size_t len) {
  // A store takes the line for ownership (read-for-ownership, write-allocate): it is valid in this
  // CPU's cache only. The RFO's latency is hidden by the store buffer and not charged.
  const uint64_t l0 = addr / p_.cache_line_bytes, l1 = (addr + len - 1) / p_.cache_line_bytes;
  for (uint64_t l = l0; l <= l1; ++l) {
    auto it = dma_lines_.find(l);
    if (it != dma_lines_.end())
      it->second = LineState{uint64_t(1) << cache_of(cpu), cores() > 1 ? static_cast<int>(cache_of(cpu)) : -1};
  }
  // A store to a line whose prefetch is still under way waits in the store buffer, not the CPU.
  if (!pending_fills_.empty())
    for (uint64_t l = l0; l <= l1; ++l) pending_fills_.erase(l);
}

unsigned Kernel::dma_lines_missing(unsigned cpu, uint64_t addr, size_t len) const {
  if (!len) return 0;
  unsigned n = 0;
  const uint64_t l0 = addr / p_.cache_line_bytes, l1 = (addr + len - 1) / p_.cache_line_bytes;
  for (uint64_t l = l0; l <= l1; ++l) {
    auto it = dma_lines_.find(l);
    if (it != dma_lines_.end() && !(it->second.holders & (uint64_t(1) << cache_of(cpu)))) ++n;
  }
  return n;
}

unsigned Kernel::lines_modified_elsewhere(unsigned cpu, uint64_t addr, size_t len) const {
  if (!len || p_.cpus == 1) return 0;
  unsigned n = 0;
  const uint64_t l0 = addr / p_.cache_line_bytes, l1 = (addr + len - 1) / p_.cache_line_bytes;
  for (uint64_t l = l0; l <= l1; ++l) {
    auto it = dma_lines_.find(l);
    if (it != dma_lines_.end() && it->second.owner >= 0 && it->second.owner != static_cast<int>(cache_of(cpu))) ++n;
  }
  return n;
}

Task<unsigned> Kernel::load_dma_lines(uint64_t addr, size_t len, JourneyId j, const char* kind) {
  (void)this_cpu();  // std::logic_error outside a CPU
  if (!len || (dma_lines_.empty() && pending_fills_.empty())) co_return 0;
  co_return co_await load_lines(addr, len, LineAccess::Load, j, kind, false);
}

Task<unsigned> Kernel::touch_lines(uint64_t addr, size_t len, LineAccess acc, const char* kind, JourneyId j) {
  (void)this_cpu();
  if (p_.cpus == 1 || !len || !addr) co_return 0;
  co_return co_await load_lines(addr, len, acc, j, kind, true);
}

Task<void> Kernel::spin_lock(uint64_t addr, const char* kind, JourneyId j) {
  if (p_.cpus == 1) co_return;
  co_await touch_lines(addr, p_.cache_line_bytes, LineAccess::Rmw, kind, j);
  co_await cost(CostId::spin_lock);
}

uint64_t Kernel::smp_object(size_t bytes) {
  if (p_.cpus == 1) return 0;
  return dma_alloc(bytes, p_.cache_line_bytes);
}

sc_time Kernel::lines_now(unsigned cpu, uint64_t addr, size_t len, LineAccess acc, bool count) {
  if (p_.cpus == 1 || !len || !addr) return SC_ZERO_TIME;
  PerCpu& q = percpu_[cpu];
  const int cc = static_cast<int>(cache_of(cpu));
  const uint64_t bit = uint64_t(1) << cc;
  sc_time t = SC_ZERO_TIME;
  const uint64_t lb = p_.cache_line_bytes, l0 = addr / lb, l1 = (addr + len - 1) / lb;
  for (uint64_t l = l0; l <= l1; ++l) {
    auto it = dma_lines_.find(l);
    if (it == dma_lines_.end()) {
      if (acc != LineAccess::Load) dma_lines_.emplace(l, LineState{bit, cc});
      continue;
    }
    LineState& st = it->second;
    const bool hitm = st.owner >= 0 && st.owner != cc;
    if (hitm && count) {
      const sc_time d = q.cpu->line_read(l * lb, static_cast<unsigned>(lb)) + p_.hitm_snoop_stall;
      t += d;
      ++*q.xcpu_lines;
      q.xcpu_stall += d;
    }
    if (acc == LineAccess::Load) {
      st.holders |= bit;
      st.owner = -1;  // the implicit writeback leaves it shared and clean
      if (st.holders == all_caches_mask()) dma_lines_.erase(it);
    } else {
      st = LineState{bit, cc};
    }
  }
  if (t > SC_ZERO_TIME) *q.xcpu_stall_ns = static_cast<uint64_t>(q.xcpu_stall.value() / 1000);
  return t;
}

Task<unsigned> Kernel::load_lines(uint64_t addr, size_t len, LineAccess acc, JourneyId j, const char* kind,
                                  bool track_new) {
  Cpu& c = this_cpu();
  const unsigned cpu = c.index();
  const int cc = static_cast<int>(cache_of(cpu));
  PerCpu& q = percpu_[cpu];
  const uint64_t bit = uint64_t(1) << cc;
  const uint64_t all = all_caches_mask();
  const uint64_t line_bytes = p_.cache_line_bytes;
  ExecContext* ctx = c.running();
  const bool for_journey = j && ctx && ctx->journey == j && !ctx->stage.empty();
  const std::string resume_stage = for_journey ? ctx->stage : std::string();
  unsigned misses = 0, transfers = 0, waited = 0;
  sc_time fill_end = SC_ZERO_TIME;
  const uint64_t l0 = addr / line_bytes, l1 = (addr + len - 1) / line_bytes;
  for (uint64_t l = l0; l <= l1; ++l) {
    if (!pending_fills_.empty() && acc != LineAccess::Store) {
      // A line this CPU prefetched: it holds the line (the states below say a hit); the load waits
      // for what is left of the fill, if it has not arrived yet.
      if (const sc_time rest = pending_fill_wait(l, cpu); rest > SC_ZERO_TIME) {
        if ((misses + transfers) == 0 && for_journey) mark(j, kDmaMissStage);
        auto mt = prefetch_tags_.find(kind);
        if (mt == prefetch_tags_.end())
          mt = prefetch_tags_.emplace(kind, what_tag(std::string("cache miss: ") + kind + " (prefetched)")).first;
        const sc_time start = now();
        const sc_time stall = co_await LineFill{l * line_bytes, 0, SC_ZERO_TIME, mt->second, rest};
        fill_end = start + stall;
        pending_fills_.erase(l);
        ++waited;
        q.prefetch_wait += stall;
      }
    }
    auto it = dma_lines_.find(l);
    if (it == dma_lines_.end()) {  // valid everywhere: a hit; a write makes it this CPU's own
      if (track_new && acc != LineAccess::Load) dma_lines_.emplace(l, LineState{bit, cc});
      continue;
    }
    LineState& st = it->second;
    const bool hitm = st.owner >= 0 && st.owner != cc;
    const bool miss = !(st.holders & bit);
    // The new state first (the stall below suspends; the line is this CPU's from the request on).
    if (acc == LineAccess::Load) {
      st.holders |= bit;
      st.owner = hitm ? -1 : st.owner;  // implicit writeback: shared and clean
      if (st.holders == all && st.owner < 0) dma_lines_.erase(it);
    } else {
      st = LineState{bit, cc};
    }
    if (!miss || (acc == LineAccess::Store)) continue;  // a hit; a plain store's RFO is hidden
    const char* stage = hitm ? kCrossCpuStage : kDmaMissStage;
    if ((misses + transfers) == 0 && for_journey) mark(j, stage);
    const sc_time start = now();
    auto& tags = hitm ? xcpu_tags_ : miss_tags_;
    auto mt = tags.find(kind);
    if (mt == tags.end())
      mt = tags.emplace(kind, what_tag(std::string(hitm ? "cache miss: cross-CPU " : "cache miss: ") + kind)).first;
    // The demanded line's read first, then (a read from memory, not a HITM transfer) the rest of
    // its sector behind it (sector_fill), then the stall for the demanded line alone.
    const sc_time read = c.line_read(l * line_bytes, static_cast<unsigned>(line_bytes));
    if (!hitm) sector_fill(c, l);
    const sc_time stall =
        co_await LineFill{l * line_bytes, 0, SC_ZERO_TIME, mt->second, read + (hitm ? p_.hitm_snoop_stall : SC_ZERO_TIME)};
    fill_end = start + stall;  // an interrupt taken at the end of the stall is not the miss's time
    if (hitm) {
      ++transfers;
      ++*q.xcpu_lines;
      q.xcpu_stall += stall;
    } else {
      ++misses;
      ++*q.dma_line_misses;
      q.dma_line_stall += stall;
    }
  }
  if (misses) *q.dma_line_stall_ns = static_cast<uint64_t>(q.dma_line_stall.value() / 1000);  // ps -> ns
  if (transfers) *q.xcpu_stall_ns = static_cast<uint64_t>(q.xcpu_stall.value() / 1000);
  if (waited) *q.prefetch_wait_ns = static_cast<uint64_t>(q.prefetch_wait.value() / 1000);
  if ((misses || transfers || waited) && for_journey) {
    sim().journeys.mark(j, fill_end, resume_stage, where(cpu));
    ctx->stage = resume_stage;
  }
  co_return track_new ? transfers : misses + transfers;
}

}  // namespace nicsim
