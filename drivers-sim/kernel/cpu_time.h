// Names of the rows of a CPU's time profile (Cpu::profile, models/cpu/cpu.h).
//
// The CPU model accounts its busy time by two opaque tags: the context tag a context carries
// (ExecContext::prof_ctx: "hardirq eth1", "softirq NET_RX", "process netperf") and the tag of the
// burn or stall in progress (ExecContext::prof_what: a kernel cost entry, a driver's path, an MMIO
// stall by register, a DMA'd cache-line fill by kind). The software names both here: "what" tags
// are interned process-wide (a kernel entry's tag is arithmetic on its CostId, a driver entry's is
// stored in its CostEntry at probe), context tags per Kernel (Kernel::context_tag).
#pragma once
#include "drivers-sim/kernel/costs.h"
#include <cstdint>
#include <string>

namespace nicsim {

/// The tag of untagged work (a burn with no cost entry, e.g. cpu_work() in a test bench).
constexpr uint16_t kWhatUntagged = 0;
/// The "what" tag of kernel cost entry `id` (1 + its index; names interned at first use).
inline uint16_t what_tag(CostId id) { return static_cast<uint16_t>(1 + static_cast<unsigned>(id)); }
/// The "what" tag named `name` (interned: the same name always gives the same tag). Throws
/// std::length_error past 65535 names.
uint16_t what_tag(const std::string& name);
/// The name of a "what" tag: "(untagged)", a CostId's name ("tcp_v4_rcv"), a driver path
/// ("e1000_clean_rx_irq [e1000]"), "MMIO read eth1+0x00c0", "cache miss: RX descriptor", ...
/// Throws std::out_of_range for a tag never handed out.
const std::string& what_name(uint16_t tag);
/// The kind of a "what" tag for reports: "cost" (a kernel or driver cost entry), "stall" (MMIO,
/// I/O or cache-miss stall; names starting "MMIO ", "I/O ", "cache miss"), "untagged".
const char* what_kind(uint16_t tag);

}  // namespace nicsim
