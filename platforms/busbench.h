// busbench: bus microbenchmark workload (WorkloadEntry "busbench") and the generic bus-master
// test device it uses (DeviceEntry "pci-dma-master").
//
// On one host: a DMA master in a chosen slot moves blocks of each listed size to or from host
// memory back to back (MB/s vs size), alone and with a second master loaded at the same time
// (in another slot: on the same segment they share the bus; on the other segment they share the
// hub link). Then the CPU does MMIO reads and posted writes to the master's BAR (latency in ns),
// and the master pulses its INTx# (latency to the local APIC). A minimal CPU-side initiator
// stands in for the CPU model (it binds the host's fsb_target and apic_out).
#pragma once
#include "core/params.h"
#include "platforms/testbed.h"
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace nicsim {

/// The workload's parameters (host, slot, second_slot, ops, sizes, transfers, width_bits, pcix,
/// max_mhz, mmrbc_bytes, max_outstanding_splits, mmio_accesses, ...).
ParamSchema busbench_param_schema();
/// The pci-dma-master device's parameters (width_bits, pcix, max_mhz, mmrbc_bytes, ...).
ParamSchema pci_dma_master_param_schema();

/// Parse busbench's `sizes` strictly: comma-separated whole numbers of bytes in 1..1048576, no
/// empty entries, no repeats. Fills `out`; returns "" or what is wrong.
std::string parse_busbench_sizes(const std::string& s, std::vector<uint32_t>& out);
/// Parse busbench's `ops` strictly: "write" and/or "read", comma-separated, each at most once.
/// Fills `out` (true = write); returns "" or what is wrong (and the nearest op in `suggestion`).
std::string parse_busbench_ops(const std::string& s, std::vector<bool>& out, std::string* suggestion = nullptr);
/// Why value `v` of pci-dma-master/busbench parameter `key` (width_bits, max_mhz, mmrbc_bytes) is
/// not one the PCI/PCI-X specs allow, or "": AD width 32/64; clock 33/66/100/133 MHz; MMRBC
/// 512/1024/2048/4096 bytes (PCI-X 1.0 Command register).
std::string pci_master_param_problem(const std::string& key, int64_t v);

/// Run busbench on `host` (a built host whose fsb_target/apic_out are not bound to a CPU model).
/// Must be called before sc_start(): it attaches its devices, then runs the simulation to the
/// end (sc_start) and prints tables to `out`; fills results["metrics"]["busbench"].
/// Returns 0 on success, 1 when a transfer failed. Throws std::invalid_argument for a bad slot.
int run_busbench(HostHw& host, const ParamValues& params, std::ostream& out, nlohmann::json& results);

/// WorkloadEntry::run of "busbench": runs on the host named by the `host` parameter (or the first
/// host) of a built Testbed. Throws std::out_of_range for an unknown host.
int run_busbench_on_testbed(Testbed& tb, std::ostream& out, nlohmann::json& results);

}  // namespace nicsim
