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

namespace nicsim {

/// The workload's parameters (host, slot, second_slot, ops, sizes, transfers, width_bits, pcix,
/// max_mhz, mmrbc_bytes, max_outstanding_splits, mmio_accesses, ...).
ParamSchema busbench_param_schema();
/// The pci-dma-master device's parameters (width_bits, pcix, max_mhz, mmrbc_bytes, ...).
ParamSchema pci_dma_master_param_schema();

/// Run busbench on `host` (a built host whose fsb_target/apic_out are not bound to a CPU model).
/// Must be called before sc_start(): it attaches its devices, then runs the simulation to the
/// end (sc_start) and prints tables to `out`; fills results["metrics"]["busbench"].
/// Returns 0 on success, 1 when a transfer failed. Throws std::invalid_argument for a bad slot.
int run_busbench(HostHw& host, const ParamValues& params, std::ostream& out, nlohmann::json& results);

/// WorkloadEntry::run of "busbench": runs on the host named by the `host` parameter (or the first
/// host) of a built Testbed. Throws std::out_of_range for an unknown host.
int run_busbench_on_testbed(Testbed& tb, std::ostream& out, nlohmann::json& results);

}  // namespace nicsim
