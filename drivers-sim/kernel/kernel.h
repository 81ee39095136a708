// The Linux kernel model of one host: the Kernel class, whose members are defined in files named
// after the Linux 2.4.20 files that hold the same functions, so that a reader who knows the kernel
// finds schedule() in sched.cpp as kernel/sched.c has it. Policy lives in these files; the Cpu
// (models/cpu) is the mechanism. Each file's header comment says what it models, with a table of
// the Linux functions and their names here (docs/developers.md "Where the kernel lives").
//
//   Linux (2.4.20 unless noted)                       here (drivers-sim/kernel/)
//   init/main.c start_kernel: the CPUs, the kernel's  kernel.cpp       Kernel(), ~Kernel, cost(),
//     own interrupt lines, softirq_init, ksoftirqd                     the CPU time profile, mark
//   kernel/sched.c schedule, goodness,                sched.cpp        schedule, reschedule_idle,
//     reschedule_idle, try_to_wake_up, __wake_up,                      try_to_wake_up, wake_up,
//     schedule_timeout; the wait queue sleep                           WaitQueue, Process, current
//   kernel/fork.c do_fork                             fork.cpp         spawn_process, install_process
//   kernel/softirq.c do_softirq, cpu_raise_softirq,   softirq.cpp      do_softirq, raise_softirq,
//     ksoftirqd, local_bh_disable/enable                               ksoftirqd_main, local_bh_*
//   arch/i386/kernel/irq.c do_IRQ, handle_IRQ_event,  irq.cpp          interrupt, do_irq,
//     request_irq, free_irq, /proc/interrupts;                         request_irq, free_irq,
//     in_interrupt, in_irq (asm/hardirq.h)                             irq_rows, in_interrupt
//   kernel/timer.c update_process_times,              timer.cpp        timer_irq, local_timer_irq,
//     run_timer_list, add/mod/del_timer;                               run_timer_list, add_timer,
//     arch/i386/kernel/time.c timer_interrupt; LATCH                   mod_timer, del_timer
//   arch/i386/kernel/pci-dma.c, asm-i386/pci.h        pci_dma.cpp      dma_alloc, dma_free,
//     pci_alloc_consistent, pci_map_single                             pci_map_single, mem_write
//   asm-i386/spinlock.h spin_lock; the CPU caches     cache_lines.cpp  spin_lock, touch_lines,
//     (no Linux file: the line model under them)                       load_dma_lines, smp_object
//   net/core/dev.c netif_rx, net_rx_action,           dev.cpp          netif_rx, net_rx_action(_napi),
//     netif_receive_skb, dev_queue_xmit,                               netif_rx_schedule,
//     net_tx_action, register_netdevice;                               dev_queue_xmit, net_tx_action,
//     2.6.11's netif_rx_schedule, process_backlog                      BacklogDev
//   net/sched/sch_generic.c qdisc_restart, prio2band  sch_generic.cpp  qdisc_run, prio2band
//   net/core/skbuff.c alloc_skb, kfree_skb, skb_copy  skbuff.cpp       alloc_skb, kfree_skb, skb_copy
//   net/ethernet/eth.c eth_type_trans; eth_mac_addr   eth.cpp          eth_type_trans, set_mac_address
//   net/socket.c sys_recv; fs/read_write.c sys_read,  socket.cpp       sys_write, sys_read, sys_recv
//     sys_write on a socket
//   fs/pipe.c pipe_read, pipe_write; sys_getppid      pipe.cpp         sys_read, sys_write (pipe),
//                                                                      sys_getppid
//   (the scenario's kernel keys)                      kernel_params.cpp  kernel_params_from
//
// For driver code, beside the class: include/asm-i386/io.h readl/writel and the Task awaitables
// (task.h), include/asm-ppc/io.h in_le32/out_le32 (io.h), asm/byteorder.h cpu_to_le32, st_le32
// (byteorder.h); the per-path cycle costs (costs.h, a table per kernel and CPU in costs_*.cpp; a
// driver's own paths: driver_costs.h) and the kernel and CPU profiles (profiles.h, profile_*.cpp).
//
// Types beside the class, each in the header named for Linux's: KernelParams (kernel_params.h),
// task_struct (sched.h: Process), wait_queue_head_t (wait.h: WaitQueue), timer_list (timer.h:
// TimerList), struct socket (socket.h: Socket, SockOps), vectors, softirq numbers and request_irq
// flags (interrupt.h), net_device (netdevice.h), sk_buff (skb.h), pipe_inode_info (pipe.h).
// Including kernel.h includes them all.
//
// SMP (cpus > 1, cache_lines.cpp): the kernel objects the network path shares between CPUs are
// tracked per cache line with an owner (Kernel::touch_lines): a load on a CPU that does not hold
// the line fills it over the FSB; a line modified in the other CPU's cache is a HITM snoop with an
// implicit writeback. Locked operations (spin_lock) are charged where 2.4.20 takes them.
//
// What differs between kernel versions is never a version test: it is KernelProfile data
// (profiles.h, read through KernelParams) or a path a profile field chooses (KernelParams::napi:
// net_rx_action or net_rx_action_napi, dev.cpp). docs/developers.md "Where the kernel lives" says
// where a Linux 2.6 difference goes.
#pragma once
#include "core/params.h"
#include "core/units.h"
#include "drivers-sim/kernel/costs.h"
#include "drivers-sim/kernel/driver_costs.h"
#include "drivers-sim/kernel/interrupt.h"
#include "drivers-sim/kernel/kernel_params.h"
#include "drivers-sim/kernel/netdevice.h"
#include "drivers-sim/kernel/profiles.h"
#include "drivers-sim/kernel/sched.h"
#include "drivers-sim/kernel/skb.h"
#include "drivers-sim/kernel/socket.h"
#include "drivers-sim/kernel/task.h"
#include "drivers-sim/kernel/timer.h"
#include "drivers-sim/kernel/wait.h"
#include "models/cpu/cpu.h"
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace nicsim {

class HostFace;
class Kernel;
class Process;
struct Pipe;

/// One row of a CPU's time profile (Kernel::cpu_time): time spent in `context` (e.g. "softirq
/// NET_RX", at `level`) on `what` (a cost entry, a driver path, a stall; cpu_time.h names).
struct CpuTimeRow {
  std::string context;
  ExecLevel level = ExecLevel::Process;
  std::string what;
  const char* kind = "cost";  ///< what_kind(): "cost", "stall", "untagged"
  sc_time time = SC_ZERO_TIME;
};

/// A CPU's time so far, by context and by what consumed it. Exact to the picosecond: the rows of
/// a level sum to busy(level) and busy + halted + waking = wall (Cpu::profile).
struct CpuTimeProfile {
  unsigned cpu = 0;
  double mhz = 0;
  sc_time wall = SC_ZERO_TIME;    ///< simulated time now
  sc_time halted = SC_ZERO_TIME;  ///< idle in HLT
  sc_time waking = SC_ZERO_TIME;  ///< waking from HLT (halt_exit_latency)
  sc_time busy[3] = {SC_ZERO_TIME, SC_ZERO_TIME, SC_ZERO_TIME};  ///< by ExecLevel (Cpu::busy)
  std::vector<CpuTimeRow> rows;   ///< largest first
};

/// pfifo_fast prio2band (net/sched/sch_generic.c): band of skb->priority (TC_PRIO_*).
unsigned prio2band(uint32_t priority);

/// A protocol receive handler (packet_type.func): owns the skb. Returns NET_RX_*.
using PacketHandler = std::function<Task<int>(SkbPtr skb, NetDevice* dev)>;

enum class DmaDir { ToDevice, FromDevice, Bidirectional };

class Kernel : public CpuSoftware {
 public:
  /// Build the CPU complex (params.cpus cores at params.cpu_mhz) and bind it to `hw`: FSB
  /// initiator -> hw.fsb_target(), hw.apic_out() -> the complex, EOIs -> hw.eoi_in(). Call at
  /// elaboration (before sc_start). Throws std::invalid_argument for an unknown cost profile or
  /// irq_dest_cpu/process_cpu out of range.
  Kernel(HostFace& hw, const KernelParams& params);
  ~Kernel() override;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  const KernelParams& params() const { return p_; }
  const std::string& host() const { return p_.host; }
  HostFace& hw() const { return *hw_; }
  CpuComplex& cpus() { return *complex_; }
  Cpu& cpu(unsigned i) { return complex_->cpu(i); }
  unsigned num_cpus() const { return p_.cpus; }
  const CostProfile& costs() const { return *costs_; }

  // ---- CPU time (kernel.cpp) --------------------------------------------------------------------
  /// `co_await k.cost(CostId::ip_rcv)` / `k.cost(CostId::copy_user_cached, 1448)`: burn the
  /// table's cycles on the running CPU; on an SMP kernel (cpus > 1) plus the entry's
  /// smp_locked_ops × CostId::locked_op. Throws std::logic_error outside a CPU.
  CpuBurn cost(CostId id, size_t bytes = 0) const;
  /// `co_await k.cost(costs[Path::x])`: burn a driver's entry (driver_costs()) the same way.
  CpuBurn cost(const CostEntry& e, size_t bytes = 0) const;
  /// Cycles cost(id, bytes) burns on a core at the kernel's cpu_mhz (for tests and reports),
  /// SMP locked operations included.
  double cost_cycles(CostId id, size_t bytes = 0) const { return entry_cycles(costs_->at(id), bytes, p_.cpu_mhz); }
  double cost_cycles(const CostEntry& e, size_t bytes = 0) const { return entry_cycles(e, bytes, p_.cpu_mhz); }
  /// `co_await k.locked_ops(n)`: n LOCK-prefixed instructions of an SMP kernel that no cost entry
  /// covers (sys_getppid's mb(), __wake_up's wait-queue lock, add/remove_wait_queue): n ×
  /// CostId::locked_op on the running CPU when cpus > 1; nothing on UP. Throws std::logic_error
  /// outside a CPU (SMP only).
  CpuBurn locked_ops(unsigned n) const;
  /// A driver's cost entries for its `paths` under this kernel's cost profile (driver_costs.h), looked
  /// up once (at probe). Throws std::invalid_argument naming the driver and the profile when the
  /// profile has no table for `driver` or the table lacks a path.
  DriverCosts driver_costs(const std::string& driver, const std::vector<std::string>& paths) const {
    return DriverCosts(driver, *costs_, paths);
  }
  /// The CPU running software now (std::logic_error when none).
  Cpu& this_cpu() const { return Cpu::running_cpu(); }

  // ---- CPU time profile (kernel.cpp) ------------------------------------------------------------
  /// CPU `cpu`'s time so far by context and by cost entry / stall (Cpu::profile named).
  CpuTimeProfile cpu_time(unsigned cpu);
  /// The profile tag (ExecContext::prof_ctx) of context class `name` ("softirq NET_RX"); interned.
  uint16_t context_tag(const std::string& name);
  /// Name MMIO/I-O stalls on `dev`'s BARs "<name>+0x<offset>" (function fn > 0 of a multi-function
  /// device: "<name>:<fn>+0x..."); other addresses are named by their bus address.
  void name_pci_regions(const PciDevice& dev, const std::string& name);
  uint16_t stall_what(Cpu& cpu, bool write, uint64_t addr, PciSpace space) override;
  unsigned smp_processor_id() const { return Cpu::running_cpu().index(); }
  /// The process running now, nullptr in interrupt/softirq context or outside a CPU.
  Process* current() const;
  /// in_interrupt(): hard IRQ or softirq context, or bottom halves disabled, on the running CPU.
  bool in_interrupt() const;
  bool in_irq() const;  ///< a hard IRQ handler is running on this CPU

  // ---- journeys (kernel.cpp; current_irq, mark_irq: irq.cpp) ------------------------------------
  /// The message `j` enters `stage` now ("where" = "<host>.cpu<n>"). The running context remembers
  /// (j, stage) so that a CPU wait splitting its burn is marked and the stage re-marked after.
  void mark(JourneyId j, const std::string& stage, const std::string& cause = "");
  /// Interrupt timing of the innermost hard IRQ on the running CPU (nullptr outside one).
  const IrqStamp* current_irq() const;
  /// Copy the current interrupt's delivery into journey `j`: "IRQ delivery wait" at its arrival
  /// (when it had to wait, with the CPU's cause) and "IRQ entry" at acceptance.
  void mark_irq(JourneyId j);

  // ---- processes (fork.cpp: spawn_process; sched.cpp: the rest) ---------------------------------
  /// Start process `name` bound to CPU `cpu` (cpus_allowed = that CPU only) running `main`. It
  /// becomes runnable now (a reschedule IPI if it is another CPU). Returns the process (owned by
  /// the kernel). Throws std::invalid_argument for a CPU that does not exist or an empty task.
  Process& spawn_process(const std::string& name, unsigned cpu, Task<void> main, int nice = 0);
  /// fork + exec of `name` (kernel/fork.c 2.4.20 do_fork): the child starts on its parent's CPU
  /// (the running CPU, or CPU 0 for the shell that starts a workload at elaboration) with
  /// KernelParams::cpus_allowed, and wake_up_process -> reschedule_idle places it (an idle CPU
  /// other than the busy parent's). At elaboration the parent then waits (the shell's wait4):
  /// its CPU schedules. Throws std::invalid_argument when cpus_allowed names no existing CPU.
  Process& spawn_process(const std::string& name, Task<void> main);
  /// wake_up(): wake every process sleeping on `wq`, charging `wakeup` per woken task. `j` (the
  /// message the wakeup is for) gets a "run queue" mark with what holds the target CPU. `sync`:
  /// wake_up_sync (try_to_wake_up's `synchronous`: the waker is about to sleep, so no
  /// reschedule_idle when the waker's CPU is allowed).
  Task<void> wake_up(WaitQueue& wq, JourneyId j = 0, bool sync = false);
  /// wake_up_process(): wake one sleeping process (no-op if it is not sleeping).
  Task<void> wake_up_process(Process& p, JourneyId j = 0);
  /// In a process: give up the CPU if need_resched is set (cond_resched / ret_from_sys_call).
  Task<void> cond_resched();
  /// schedule_timeout(): sleep on `wq` for at most `timeout` jiffies. Returns the jiffies left
  /// (0 when it timed out).
  Task<long> schedule_timeout(WaitQueue& wq, long timeout);
  const std::vector<std::unique_ptr<Process>>& processes() const { return procs_; }
  uint64_t context_switches(unsigned cpu) const { return *percpu_.at(cpu).ctx_switches; }

  // ---- interrupts (irq.cpp) and softirqs (softirq.cpp) ------------------------------------------
  /// request_irq(): run `handler` for `vector` (devname: the /proc/interrupts name, e.g. "eth1").
  /// flags: SA_INTERRUPT (handler runs with IRQs off), SA_SHIRQ (share the line). Returns 0, or
  /// -EBUSY (-16) when the vector is taken without SA_SHIRQ on both.
  int request_irq(unsigned vector, IrqHandler handler, unsigned flags, const std::string& devname);
  int request_irq(unsigned vector, NetDevice& dev, IrqHandler handler, unsigned flags = SA_SHIRQ) {
    return request_irq(vector, std::move(handler), flags, dev.name());
  }
  void free_irq(unsigned vector, const std::string& devname);
  /// Interrupts of `vector` taken by `cpu` so far (/proc/interrupts).
  uint64_t irq_count(unsigned cpu, unsigned vector) const;
  /// One row of /proc/interrupts: a line with at least one handler.
  struct IrqRow {
    unsigned vector = 0;          ///< the line's vector (= irq on Linux/PPC, KernelParams docs)
    std::string label;            ///< the handlers' names, "eth0" or "eth1, eth2"
    bool internal = false;        ///< the kernel's own line (timer, LOC, IPI)
    std::vector<uint64_t> counts; ///< interrupts taken per CPU so far
  };
  /// Every line with a handler, by vector (get_irq_list's walk over irq_desc[]).
  std::vector<IrqRow> irq_rows() const;
  /// open_softirq(): install the action for softirq `nr` (NET_TX/NET_RX/HI are the kernel's).
  void open_softirq(unsigned nr, SoftirqAction action);
  /// raise_softirq(): mark `nr` pending on the running CPU (cpu_raise_softirq); outside interrupt
  /// context wakes ksoftirqd.
  void raise_softirq(unsigned nr);
  /// local_bh_disable(): no softirq runs on this CPU until the matching local_bh_enable.
  void local_bh_disable();
  /// local_bh_enable(): runs pending softirqs (as a softirq context on this CPU) when the count
  /// drops to 0 outside interrupt context.
  Task<void> local_bh_enable();
  uint32_t softirq_pending(unsigned cpu) const { return percpu_.at(cpu).pending; }

  // ---- timers (timer.cpp) -----------------------------------------------------------------------
  uint64_t jiffies() const { return jiffies_; }
  /// add_timer(): throws std::logic_error if already pending (BUG() in Linux).
  void add_timer(TimerList& t);
  /// mod_timer(): (re)arm at `expires`. Returns 1 if it was pending, else 0.
  int mod_timer(TimerList& t, uint64_t expires);
  /// del_timer(): returns 1 if it was pending.
  int del_timer(TimerList& t);

  // ---- memory (pci_dma.cpp) ---------------------------------------------------------------------
  /// pci_alloc_consistent / kmalloc-like: `bytes` of DRAM aligned to `align` (power of two).
  /// Returns the bus address. A freed block of the same rounded size is reused last-in first-out,
  /// as the 2.4 slab allocator's per-CPU cache does (skb data buffers). Throws
  /// std::runtime_error when DRAM is exhausted.
  uint64_t dma_alloc(size_t bytes, size_t align = 64);
  void dma_free(uint64_t addr);
  /// Functional DRAM access (pass-through to HostFace; no time).
  void mem_write(uint64_t addr, const void* src, size_t len);
  void mem_read(uint64_t addr, void* dst, size_t len) const;

  // ---- CPU caches and DMA (cache_lines.cpp) -----------------------------------------------------
  /// Journey stage of a message while the CPU stalls on lines a device wrote (load_dma_lines).
  static constexpr const char* kDmaMissStage = "cache misses on DMA'd lines";
  /// The running CPU loads [addr, addr+len) of memory a device may have written by DMA (an RX
  /// descriptor's status, a received frame's headers, a TX descriptor's write-back). Every cache
  /// line a device wrote since this CPU last loaded or stored it is a miss: the E7500 snoops inbound
  /// writes off the FSB and invalidates the CPUs' copies (HostFace::set_dma_write_observer). Each
  /// missing line is filled from DRAM by a cache-line read on the FSB through the chipset and DRAM
  /// models (their load-to-use latency, contending with DMA traffic), the CPU stalled, not
  /// preemptible, one line after another. Lines no device wrote cost nothing here (the cost table
  /// covers cache-resident work). Counts <host>.cpu<n>.dma_line_misses and .dma_line_stall_ns.
  /// When `j` is the running context's journey and a line misses, `j` is in stage kDmaMissStage
  /// during the stalls and back in its stage after. Returns the number of missing lines. Throws
  /// std::logic_error outside a CPU.
  /// `kind` names the lines in the CPU profile ("cache miss: <kind>", e.g. "RX descriptor").
  Task<unsigned> load_dma_lines(uint64_t addr, size_t len, JourneyId j = 0, const char* kind = "DMA'd line");
  /// Lines of [addr, addr+len) that would miss on CPU `cpu` now (no side effect; for tests).
  unsigned dma_lines_missing(unsigned cpu, uint64_t addr, size_t len) const;
  /// prefetch(addr) (include/linux/prefetch.h; on a P4 asm-i386/processor.h's `prefetchnta`): the
  /// running CPU starts the fill of the cache line holding `addr` and goes on without waiting. A
  /// line it already holds costs nothing; a line a device wrote (or, SMP, another CPU holds
  /// modified: + hitm_snoop_stall) is read on the FSB now (Cpu::line_read: the chipset and DRAM
  /// models, contending with DMA as a demand fill does) and is this CPU's from now on, valid once
  /// the fill ends. A later load_dma_lines / touch_lines of the line stalls only for what is left
  /// of the fill (none once it ended); a DMA write before that load invalidates the line again and
  /// the load misses in full. Counts <host>.cpu<n>.prefetches (fills started) and
  /// .prefetch_wait_ns (the stalls on fills still under way, named in the CPU profile by the
  /// load's kind: "cache miss: <kind> (prefetched)"). With read_sector_bytes above the line
  /// (NetBurst) the other lines of the sector are fetched as well (sector_fill). Throws
  /// std::logic_error outside a CPU.
  void prefetch(uint64_t addr);

  // ---- cache lines shared between CPUs, SMP (cache_lines.cpp) -----------------------------------
  /// Journey stage of a message while the CPU stalls on lines another CPU's cache holds modified.
  static constexpr const char* kCrossCpuStage = "cross-CPU cache lines";
  /// How software touches a tracked line: a plain load, a plain store (the read-for-ownership is
  /// hidden by the store buffer: no stall), or a read-modify-write (list and refcount updates,
  /// locked operations: the load part stalls, then the line is owned modified).
  enum class LineAccess : uint8_t { Load, Store, Rmw };
  /// The running CPU touches [addr, addr+len) of a kernel object the CPUs share (an skb, a
  /// socket, a task_struct, the run queue, a timer, a TX ring or adapter fields), MESI-like per
  /// cache line: a line another CPU holds modified is a cache-to-cache transfer (HITM: the line
  /// read over the FSB through the chipset model plus KernelParams::hitm_snoop_stall, the CPU
  /// stalled, not preemptible); a line a device wrote is filled from DRAM as in load_dma_lines;
  /// a line this CPU holds, or that no CPU modified since every CPU had it, costs nothing (the
  /// cost table covers cache-resident work). After a Store or Rmw the line is modified in this
  /// CPU's cache only; after a Load it is shared. No effect and no cost when cpus == 1 (returns at
  /// once). Counts <host>.cpu<n>.xcpu_line_transfers / .xcpu_line_stall_ns; `j` as in
  /// load_dma_lines, with stage kCrossCpuStage; `kind` names the stall in the CPU profile
  /// ("cache miss: cross-CPU <kind>"). Returns the lines transferred from another CPU. Throws
  /// std::logic_error outside a CPU.
  Task<unsigned> touch_lines(uint64_t addr, size_t len, LineAccess acc, const char* kind, JourneyId j = 0);
  /// Cross-CPU transfers touch_lines(addr, len, Load) would make on `cpu` now (no side effect).
  unsigned lines_modified_elsewhere(unsigned cpu, uint64_t addr, size_t len) const;
  /// A process's task_struct address (a kernel object touch_lines tracks on SMP; 0 on UP).
  uint64_t task_struct_addr(const Process& p) const { return p.uaddr_; }
  /// Address of runqueue_lock + runqueue_head (one line; 0 on UP).
  uint64_t runqueue_addr() const { return rq_addr_; }
  /// spin_lock + spin_unlock of a lock at `addr` on an SMP kernel: the locked op's cost (CostId::
  /// spin_lock) and the lock's line (Rmw: it moves when the other CPU took it last). No-op when
  /// cpus == 1 (a UP kernel compiles spinlocks away). `kind` names the line in the CPU profile.
  Task<void> spin_lock(uint64_t addr, const char* kind, JourneyId j = 0);
  /// A line-aligned DRAM block for a kernel object tracked on SMP (0 when cpus == 1).
  uint64_t smp_object(size_t bytes);

  // ---- skbs (skbuff.cpp; pci_map_single: pci_dma.cpp; dev_kfree_skb_irq: dev.cpp) ---------------
  /// alloc_skb(size): data buffer from the kmalloc size class of size (+16-byte alignment),
  /// backed by DRAM; charges skb_alloc.
  Task<SkbPtr> alloc_skb(uint32_t size);
  /// dev_alloc_skb(len): alloc_skb(len + 16) with 16 bytes reserved.
  Task<SkbPtr> dev_alloc_skb(uint32_t len);
  /// An skb without CPU cost (for test benches and packet generators outside a CPU).
  SkbPtr make_skb(uint32_t size);
  /// skb_clone-like deep copy (new DRAM buffer), no CPU cost (charged by the caller's path).
  SkbPtr skb_copy(const Skb& s);
  /// kfree_skb: free now, charging skb_free (skb_free_cost(skb->cloned)).
  Task<void> kfree_skb(SkbPtr skb);
  /// The skb_free entry for an skb that is (or is not) cloned: the entry's LOCK-prefixed count is a
  /// cloned skb's (dst_release and the dataref decrement); one that is not cloned pays one fewer.
  CpuBurn skb_free_cost(bool cloned) const;
  /// dev_kfree_skb_irq: queue on this CPU's completion_queue; NET_TX softirq frees it (and
  /// charges skb_free there).
  void dev_kfree_skb_irq(SkbPtr skb);
  /// pci_map_single: the bus address of skb->data for a DMA of skb->len bytes. ToDevice copies
  /// the skb's bytes into DRAM first (so the NIC reads them).
  uint64_t pci_map_single(Skb& skb, DmaDir dir);
  /// pci_unmap_single for a receive: copy `len` bytes the NIC wrote at skb->data from DRAM into
  /// the skb buffer (the driver then does skb.put(len)). Throws when len > tailroom.
  void pci_unmap_single(Skb& skb, uint32_t len, DmaDir dir);

  // ---- network core (dev.cpp; eth_type_trans: eth.cpp; the qdisc: sch_generic.cpp) --------------
  /// register_netdev(): the kernel knows `dev` by name (not owned).
  void register_netdev(NetDevice& dev);
  NetDevice* dev_get(const std::string& name) const;
  /// dev_open(): calls dev.open(), sets IFF_UP. Returns its result.
  Task<int> dev_open(NetDevice& dev);
  /// eth_type_trans: sets skb.protocol, pkt_type, mac_off and pulls the Ethernet header
  /// (cost included in netif_rx). Returns the protocol.
  uint16_t eth_type_trans(Skb& skb, NetDevice& dev);
  /// netif_rx (2.4 net/core/dev.c): queue on this CPU's backlog (netdev_max_backlog, throttle)
  /// and raise NET_RX_SOFTIRQ. Returns NET_RX_SUCCESS or NET_RX_DROP.
  Task<int> netif_rx(SkbPtr skb);
  /// netif_rx_schedule() (NAPI kernels, KernelParams::napi): unless `dev` is already scheduled
  /// (__LINK_STATE_RX_SCHED), put it at the tail of the running CPU's poll_list, refill its quota
  /// (quota += weight when negative, else quota = weight) and raise NET_RX_SOFTIRQ. Returns whether
  /// it was scheduled now. Throws std::logic_error on a kernel without NAPI or for weight <= 0.
  bool netif_rx_schedule(NetDevice& dev);
  /// netif_rx_complete(): take `dev` off the running CPU's poll_list and clear RX_SCHED (the poll
  /// routine calls it before re-enabling the device's interrupts and returning false).
  void netif_rx_complete(NetDevice& dev);
  /// netif_receive_skb(): deliver one received skb to the protocol handlers now (in the NET_RX
  /// softirq: NAPI poll routines and the backlog device). Charges net_rx_action (the per-packet
  /// dequeue/ptype delivery entry). Returns NET_RX_SUCCESS or NET_RX_DROP (no handler).
  Task<int> netif_receive_skb(SkbPtr skb);
  /// Devices on `cpu`'s poll_list, in service order (the backlog device is named "backlog").
  std::vector<const NetDevice*> poll_list(unsigned cpu) const;
  /// dev_add_pack(): deliver received packets of ethertype `type` to `handler` (ip_rcv hook).
  void dev_add_pack(uint16_t type, PacketHandler handler);
  /// dev_queue_xmit: enqueue on skb->dev's pfifo_fast (txqueuelen) and run the qdisc.
  /// Returns NET_XMIT_SUCCESS or NET_XMIT_DROP. Throws std::logic_error when skb->dev is null.
  Task<int> dev_queue_xmit(SkbPtr skb);
  /// __netif_schedule(): put `dev` on this CPU's output_queue and raise NET_TX_SOFTIRQ.
  void netif_schedule(NetDevice& dev);
  size_t backlog_len(unsigned cpu) const { return percpu_.at(cpu).backlog.size(); }

  // ---- sockets, process context (socket.cpp) ----------------------------------------------------
  /// write(2) on a socket: syscall entry, ops->sendmsg, syscall exit, reschedule point.
  Task<long> sys_write(Socket& sock, size_t len, JourneyId journey = 0);
  /// read(2) on a socket.
  Task<long> sys_read(Socket& sock, size_t len);
  /// recv(2) with flags.
  Task<long> sys_recv(Socket& sock, size_t len, int flags);

  // ---- pipes and the null system call, process context (pipe.cpp, pipe.h) -----------------------
  /// read(2) of up to `len` bytes from `pipe` into `buf` (may be null: bytes not kept): syscall
  /// entry, 2.4.20 pipe_read (sleeps while the pipe is empty and has a writer), syscall exit,
  /// reschedule point. Returns bytes read, 0 at EOF. Throws std::logic_error outside a process.
  Task<long> sys_read(Pipe& pipe, uint8_t* buf, size_t len);
  /// write(2) of `len` bytes from `buf` (may be null) to `pipe` (2.4.20 pipe_write: atomic up to
  /// kPipeBuf, sleeps for room). Returns bytes written or -EPIPE (-32) without readers.
  Task<long> sys_write(Pipe& pipe, const uint8_t* buf, size_t len);
  /// getppid(2), lmbench's null system call: entry + exit only. Returns 1.
  Task<long> sys_getppid();

  // ---- CpuSoftware (irq.cpp: interrupt, finished; sched.cpp: blocked, idle) ---------------------
  ExecContext* interrupt(Cpu& cpu, const IrqStamp& st) override;
  void finished(Cpu& cpu, ExecContext* ctx) override;
  void blocked(Cpu& cpu, ExecContext* ctx) override;
  void idle(Cpu& cpu) override;

  // internal, used by SkbDeleter / WaitQueue
  void skb_release(Skb* s);
  int softirq_bh_count(unsigned cpu) const;

 private:
  struct IrqAction {
    IrqHandler handler;
    unsigned flags;
    std::string devname;
  };
  struct IrqLine {
    std::vector<IrqAction> actions;
    bool internal = false;  ///< timer/LOC/IPI: kernel's own, edge
    std::string label;      ///< /proc/interrupts name ("eth1", "eth1, eth2", "timer", "LOC")
    std::vector<uint64_t*> counts;  ///< per CPU
    uint16_t prof_ctx = 0;          ///< context_tag("hardirq " + label), 0 until first taken
  };
  struct KCtx;  // hard IRQ / softirq context (kernel_internal.h)
  struct PerCpu {
    Cpu* cpu = nullptr;
    Process* current = nullptr;     ///< process owning the CPU (nullptr: idle task)
    sc_time last_schedule = SC_ZERO_TIME;  ///< aligned_data[cpu].schedule_data.last_schedule
    bool need_resched = false;
    uint32_t pending = 0;           ///< softirq_pending
    int bh_count = 0;               ///< local_bh_count from local_bh_disable
    std::deque<SkbPtr> backlog;     ///< softnet_data.input_pkt_queue
    bool throttle = false;
    std::deque<NetDevice*> poll_list;         ///< softnet_data.poll_list (NAPI)
    std::unique_ptr<NetDevice> backlog_dev;   ///< softnet_data.backlog_dev (NAPI): polls `backlog`
    std::vector<SkbPtr> completion_queue;
    std::deque<NetDevice*> output_queue;
    Process* ksoftirqd = nullptr;
    WaitQueue ksoftirqd_wq;
    std::vector<std::unique_ptr<KCtx>> live;  ///< hard IRQ / softirq contexts in flight
    uint64_t* ctx_switches = nullptr;
    uint64_t *rx_total = nullptr, *rx_dropped = nullptr, *rx_throttled = nullptr, *rx_time_squeeze = nullptr;
    uint64_t *dma_line_misses = nullptr, *dma_line_stall_ns = nullptr;
    sc_time dma_line_stall = SC_ZERO_TIME;
    uint64_t *xcpu_lines = nullptr, *xcpu_stall_ns = nullptr;  ///< SMP only
    sc_time xcpu_stall = SC_ZERO_TIME;
    uint64_t* prefetches = nullptr;           ///< registered at the first prefetch
    uint64_t* adjacent_line_fills = nullptr;  ///< registered at the first sector fill
    uint64_t* prefetch_wait_ns = nullptr;     ///< registered at the first asynchronous fill (start_fill)
    sc_time prefetch_wait = SC_ZERO_TIME;
  };

  PerCpu& pc() const;  // running CPU's
  /// Cycles of entry `e` over `bytes` on a core at `mhz`: the table's, plus smp_locked_ops ×
  /// locked_op when cpus > 1.
  double entry_cycles(const CostEntry& e, size_t bytes, double mhz) const {
    return costs_->cycles(e, bytes, mhz) + locked_op_cycles(e.smp_locked_ops);
  }
  /// Cycles of `n` LOCK-prefixed instructions: n × CostId::locked_op on an SMP kernel, 0 on UP.
  double locked_op_cycles(unsigned n) const {
    return p_.cpus > 1 ? n * costs_->at(CostId::locked_op).cycles_per_call : 0.0;
  }
  IrqLine& line(unsigned vector);
  Task<void> do_irq(unsigned cpu, KCtx* ctx);
  Task<void> do_softirq(unsigned cpu);
  Task<void> run_softirq_child(unsigned cpu);
  Task<void> ksoftirqd_main(unsigned cpu);
  void wakeup_softirqd(unsigned cpu);
  void raise_softirq_on(unsigned cpu, unsigned nr);
  bool in_interrupt_on(unsigned cpu) const;
  bool try_to_wake_up(Process& p, JourneyId j, int waker_cpu, bool sync = false, int busy_parent_cpu = -1);
  void reschedule_idle(Process& p, int this_cpu, int busy_parent_cpu = -1);
  void send_resched(unsigned cpu, int this_cpu, bool idle_target);
  bool can_schedule(const Process& p, unsigned cpu) const {
    return (p.cpus_allowed_ >> cpu & 1) && (!p.has_cpu_ || p.cpu_ == cpu);
  }
  int goodness_on(const Process& p, unsigned cpu, const Process* prev) const;
  void schedule(unsigned cpu);
  void process_off_cpu(Process& p, unsigned cpu);
  void resched_check(unsigned cpu);
  Task<void> timer_irq(unsigned cpu);
  Task<void> local_timer_irq(unsigned cpu);
  Task<void> run_timer_list(unsigned cpu);
  Task<void> net_rx_action(unsigned cpu);
  Task<void> net_rx_action_napi(unsigned cpu);
  long rx_budget() const;
  NetDevice& backlog_dev(unsigned cpu);
  class BacklogDev;
  friend class BacklogDev;
  Task<void> net_tx_action(unsigned cpu);
  Task<void> qdisc_run(NetDevice& dev);
  Task<int> dev_xmit_noqueue(SkbPtr skb);
  /// SMP locked ops of read(2)/write(2)'s VFS wrapper (fs/read_write.c 2.4.20): fget's read_lock,
  /// get_file and read_unlock, dnotify_parent's spin_lock(&dcache_lock), fput's atomic_dec_and_test.
  static constexpr unsigned kVfsRwLockedOps = 5;
  /// recv(2) (net/socket.c sys_recvfrom): sockfd_lookup's fget (3) and sockfd_put's fput (1).
  static constexpr unsigned kSockfdLockedOps = 4;
  /// sys_read / sys_recv on a socket with `vfs_locked_ops` of the system call's own wrapper.
  Task<long> socket_read(Socket& sock, size_t len, int flags, unsigned vfs_locked_ops);
  std::string where(unsigned cpu) const { return p_.host + ".cpu" + std::to_string(cpu); }
  void on_dma_write(uint64_t addr, size_t len);
  void cpu_stored(unsigned cpu, uint64_t addr, size_t len);

  // CPU profile names: context tags, MMIO regions, stall tags by (address, write, space)
  std::vector<std::string> ctx_names_{"(untagged)"};
  std::unordered_map<std::string, uint16_t> ctx_index_;
  uint16_t softirq_ctx_[kNrSoftirqs + 1] = {};  ///< per vector; [kNrSoftirqs]: do_softirq itself
  struct Region {
    uint64_t size;
    bool io;
    std::string name;
  };
  std::map<uint64_t, Region> regions_;  ///< by base
  std::unordered_map<uint64_t, uint16_t> stall_tags_;
  std::unordered_map<const char*, uint16_t> miss_tags_, xcpu_tags_;  ///< "cache miss: [cross-CPU ]<kind>"
  std::unordered_map<const char*, uint16_t> prefetch_tags_;          ///< "cache miss: <kind> (prefetched)"

  KernelParams p_;
  HostFace* hw_;
  const CostProfile* costs_;
  std::unique_ptr<CostProfile> scaled_costs_;  ///< the table with p_.cost_group_scales applied, when any
  std::unique_ptr<CpuComplex> complex_;
  std::deque<PerCpu> percpu_;  // deque: PerCpu is not movable
  std::map<unsigned, IrqLine> irq_lines_;
  SoftirqAction softirq_vec_[kNrSoftirqs];
  std::vector<std::unique_ptr<Process>> procs_;
  std::deque<Process*> runqueue_;  ///< runqueue_head: runnable (incl. running); wakeups at the front
  uint64_t rq_addr_ = 0;           ///< runqueue_lock/runqueue_head line (SMP)
  /// SMP: each registered device's lines: [0] dev->queue_lock + qdisc, [1] dev->xmit_lock.
  std::unordered_map<const NetDevice*, uint64_t> dev_lines_;
  uint64_t dev_line(const NetDevice& d, unsigned i) const {
    auto it = dev_lines_.find(&d);
    return it == dev_lines_.end() ? 0 : it->second + i * p_.cache_line_bytes;
  }
  uint64_t jiffies_ = 0;
  std::multimap<uint64_t, TimerList*> timers_;
  std::map<std::string, NetDevice*> devs_;
  std::map<uint16_t, std::vector<PacketHandler>> ptypes_;
  // DRAM allocator
  uint64_t dma_next_;
  std::unordered_map<uint64_t, size_t> dma_used_;                ///< addr -> size
  /// size -> freed addresses, most recently freed last: reused last-in first-out like the slab
  /// allocator's per-CPU array cache (Linux 2.4 mm/slab.c: cc_entry(cc)[--cc->avail]).
  std::unordered_map<size_t, std::vector<uint64_t>> dma_free_;
  /// State of one cache line the model tracks, by cache: bit c of `holders` = core c's cache holds it, `owner` = the core
  /// that holds it modified (-1: none). A core's caches serve all its logical CPUs (cache_of).
  struct LineState {
    uint64_t holders = 0;
    int owner = -1;
  };
  /// Cache lines (addr / cache_line_bytes) a device wrote, or (SMP) a CPU modified, since every
  /// CPU had a clean copy. A line not in the map is valid in every CPU's cache.
  std::unordered_map<uint64_t, LineState> dma_lines_;
  /// A prefetched line's fill still under way (Kernel::prefetch): the CPU that started it and the
  /// absolute time its data arrives. Keyed by line; dropped when the line is loaded after `ready`,
  /// written by a device, or stored to.
  struct PendingFill {
    unsigned cpu;  ///< the cache (cache_of) the fill goes to
    sc_time ready;
  };
  std::unordered_map<uint64_t, PendingFill> pending_fills_;
  /// The rest of a prefetch fill of line `l` that CPU `cpu` would wait for now (0: none pending,
  /// another CPU's, or already arrived); drops an arrived or foreign entry's claim for `cpu`.
  sc_time pending_fill_wait(uint64_t l, unsigned cpu);
  /// Starts the fill of line `l` on CPU `c` without waiting (a prefetch): the FSB read now, the line
  /// this CPU's, its data there at now + the read (+ hitm_snoop_stall when another CPU held it
  /// modified). Returns false (nothing done) when `c` holds the line already or it is valid everywhere.
  bool start_fill(Cpu& c, uint64_t l, bool allow_hitm);
  /// The rest of line `l`'s read sector (KernelParams::read_sector_bytes): each other line of it
  /// that memory holds and `c` does not (a line a device wrote, or one only shared elsewhere; not one
  /// another CPU holds modified) is started as a fill right behind the demanded one. Counts
  /// <host>.cpu<n>.adjacent_line_fills. Does nothing when the sector is one line.
  void sector_fill(Cpu& c, uint64_t l);
  uint64_t all_cpus_mask() const { return p_.cpus == 64 ? ~uint64_t(0) : (uint64_t(1) << p_.cpus) - 1; }
  /// Cores (one cache hierarchy each): cpus / threads_per_core.
  unsigned cores() const { return p_.cpus / p_.threads_per_core; }
  /// The core whose caches logical CPU `cpu` uses: cpu % cores() (the BIOS lists the first thread of
  /// every package before the second; CpuProfile::threads_per_core).
  unsigned cache_of(unsigned cpu) const { return cpu % cores(); }
  uint64_t all_caches_mask() const { return cores() == 64 ? ~uint64_t(0) : (uint64_t(1) << cores()) - 1; }
  /// The common body of load_dma_lines and touch_lines.
  Task<unsigned> load_lines(uint64_t addr, size_t len, LineAccess acc, JourneyId j, const char* kind, bool track_new);
  /// touch_lines without stalling: updates the lines' states for `cpu` and returns the time the
  /// transfers from another CPU take (Cpu::line_read + hitm_snoop_stall each), counted as such;
  /// with `count` false only the states change (a CPU whose time nobody waits on) and it returns 0.
  sc_time lines_now(unsigned cpu, uint64_t addr, size_t len, LineAccess acc, bool count = true);
  Task<void> wakeup_lines(Process& p, JourneyId j);
  void install_process(std::unique_ptr<Process> p, Task<void> main);
};

}  // namespace nicsim
