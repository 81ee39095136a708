// A generic PCI/PCI-X bus-master test device: a register file behind BAR0 and a DMA engine that
// moves blocks to or from host memory back to back. Used by the busbench workload (and as the
// base of simple onboard masters such as the AIC-7899 SCSI controller) to measure what a bus,
// bridge and chipset deliver, without any NIC behaviour in the way.
#pragma once
#include "core/units.h"
#include "models/bus/pci.h"
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace nicsim {

struct PciDmaMasterParams {
  std::string device_name = "pci-dma-master";
  unsigned width_bits = 64;              ///< AD width the device drives (32 or 64)
  bool pcix = true;                      ///< PCI-X capable (false forces its segment to PCI mode)
  unsigned max_mhz = 133;                ///< fastest clock it supports
  uint32_t mmrbc_bytes = 512;            ///< PCI-X MMRBC as left by BIOS (PCI-X default 512) [S28]
  unsigned max_outstanding_splits = 1;   ///< PCI-X MOST (default 1 outstanding)
  uint64_t bar_size = 128 * 1024;        ///< BAR0 size (8254x-like 128 KB)
  unsigned functions = 1;
  double register_access_ns = 30.0;      ///< estimate: register file decode-to-data (a few PCI clocks of target initial latency, ≤16 allowed [S25])
};

/// The PCI facts of a master with parameters `p` (what PciDmaMaster::info() returns for it).
PciDeviceInfo pci_dma_master_info(const PciDmaMasterParams& p);

class PciDmaMaster : public sc_core::sc_module, public PciDevice {
 public:
  PciDmaMaster(sc_core::sc_module_name name, const PciDmaMasterParams& p = {});

  // PciDevice
  const PciDeviceInfo& info() const override { return info_; }
  tlm::tlm_target_socket<>& pci_target() override { return target_; }
  tlm::tlm_initiator_socket<>& dma_initiator() override { return initiator_; }
  sc_core::sc_port<irq_if>& irq_out(unsigned fn) override { return *irq_.at(fn); }
  void set_bar(unsigned fn, uint64_t base) override { bars_.at(fn) = base; }
  uint64_t bar(unsigned fn) const override { return bars_.at(fn); }

  /// A DMA job: `count` transfers of `bytes` each, to/from host memory starting at `addr`,
  /// advancing by `bytes` and wrapping inside `region_bytes` (0 = no wrap).
  struct Job {
    bool write = true;
    uint64_t addr = 0;
    uint32_t bytes = 64;
    unsigned count = 1;
    uint64_t region_bytes = 0;
    bool has_cmd = false;  ///< use `cmd` (else the bridge chooses by length)
    PciCommand cmd = PciCommand::MemWrite;
    JourneyId journey = 0;  ///< attach a PciTxnExt with this journey (0 = none unless has_cmd)
  };
  struct Stats {
    sc_time start, end;            ///< first issue, last completion (writes: release of the master)
    uint64_t bytes = 0;
    unsigned transfers = 0;
    sc_time min_latency, max_latency, sum_latency;  ///< per transfer issue -> completion
    bool error = false;
    double mb_per_s() const { return mb_per_s_of(bytes, end - start); }
    static double mb_per_s_of(uint64_t b, const sc_time& t) { return nicsim::mb_per_s(double(b), t); }
  };
  /// Start `job` now (from a process); throws std::logic_error when a job is running.
  void start(const Job& job);
  bool busy() const { return busy_; }
  const sc_core::sc_event& done_event() const { return done_; }
  const Stats& stats() const { return stats_; }

  /// Drive INTx# of function `fn`.
  void set_irq(unsigned fn, bool asserted) { (*irq_.at(fn))->set_irq_level(asserted); }
  /// Register-file observations: absolute time the last MMIO write reached the device, count.
  sc_time last_write_at() const { return last_write_at_; }
  uint64_t mmio_writes() const { return mmio_writes_; }
  uint64_t mmio_reads() const { return mmio_reads_; }

 private:
  void b_target(tlm::tlm_generic_payload& trans, sc_time& delay);
  void engine();

  PciDmaMasterParams p_;
  PciDeviceInfo info_;
  tlm_utils::simple_target_socket<PciDmaMaster> target_;
  tlm_utils::simple_initiator_socket<PciDmaMaster> initiator_;
  std::vector<std::unique_ptr<sc_core::sc_port<irq_if>>> irq_;
  std::vector<uint64_t> bars_;
  std::vector<uint8_t> regs_;
  std::vector<uint8_t> buf_;
  Job job_;
  Stats stats_;
  bool busy_ = false;
  sc_core::sc_event go_, done_;
  sc_time last_write_at_ = SC_ZERO_TIME;
  uint64_t mmio_writes_ = 0, mmio_reads_ = 0;
};

}  // namespace nicsim
