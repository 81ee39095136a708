// Host DRAM behind the E7500 MCH: dual-channel DDR200 in lock-step (research/e7500-p64h2-pcix.md §1).
//
// Timing: an access waits for its command latency (page hit tCL, page empty tRCD+tCL, page miss
// tRP+tRCD+tCL, open-page policy per bank), then occupies the shared 2×64-bit data bus for its
// bursts (one 64-byte line = a burst of 4 on both channels = 2 DRAM clocks), then the MCH read
// delay tRD. The data bus is a shared timed resource, so CPU and DMA traffic contend for the
// 3.2 GB/s. Not modelled: refresh, read/write bus turnarounds, ECC read-modify-write of partial
// writes.
//
// Storage: real bytes in sparse 4 KB pages (never-written memory reads as zeros).
#pragma once
#include "core/interval_resource.h"
#include "core/units.h"
#include <cstdint>
#include <memory>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>
#include <unordered_map>
#include <vector>

namespace nicsim {

struct DramParams {
  uint64_t size_bytes = 1ull << 30;  ///< installed memory (platform parameter dram_mb)
  double clock_mhz = 100.0;          ///< DDR200: 100 MHz clock, 200 MT/s [S4] research §1
  unsigned channels = 2;             ///< two channels in lock-step [S6] research §1
  unsigned channel_bytes = 8;        ///< 64 data bits per channel (+8 ECC) [S6]
  unsigned transfers_per_clock = 2;  ///< double data rate [S6]
  unsigned line_bytes = 64;          ///< one line = burst of 4 on both channels = 2 clocks [S6]
  double tCL_clocks = 2.0;           ///< CAS latency; DRT register allows 2.0/2.5 (1.5 on E7500) [S7] §1
  double tRCD_clocks = 3.0;          ///< RAS-to-CAS 2–3 [S7]; estimate: slow end (registered DIMMs)
  double tRP_clocks = 3.0;           ///< precharge 2–3 [S7]; estimate: slow end
  double tRD_clocks = 5.0;           ///< MCH read delay 5–7 [S7]; estimate: fast end, calibrated vs load-to-use 150–200 ns (§1)
  unsigned banks = 4;                ///< DDR SDRAM devices have 4 internal banks (JEDEC DDR); one rank modelled
  uint32_t page_bytes = 16384;       ///< estimate: open row across 2 lock-stepped 64-bit channels (1024 columns × 8 B × 2)
};

class Dram : public sc_core::sc_module {
 public:
  /// Memory transactions from the MCH's memory controller. Reads return (annotated delay) when the
  /// last byte is available; a StreamTimingExt, when attached, gets the first-line time. A write
  /// with a PostedTrainExt is its pieces' accesses, each scheduled at its own `at` in order (the
  /// same as separate writes); the returned delay is the last one's.
  tlm_utils::simple_target_socket<Dram> target;

  Dram(sc_core::sc_module_name name, const DramParams& p = {});

  enum class Page { Hit, Empty, Miss };
  struct Timing {
    sc_time first;  ///< absolute time the first line is available (reads) / accepted (writes)
    sc_time last;   ///< absolute time the last byte is available (reads) / written (writes)
    Page page = Page::Empty;
  };
  /// Schedule an access of `len` bytes at `addr` whose command can issue at absolute time
  /// `earliest`: updates the bank state and reserves the data bus. No data moves.
  Timing schedule(bool write, uint64_t addr, uint32_t len, const sc_time& earliest);

  /// Functional (zero-time) access. Throws std::out_of_range when [addr, addr+len) is not memory.
  void read(uint64_t addr, void* dst, size_t len) const;
  void write(uint64_t addr, const void* src, size_t len);

  uint64_t size() const { return p_.size_bytes; }
  const DramParams& params() const { return p_; }
  /// Data bus peak in MB/s: channels × channel bytes × transfers/clock × clock (3200 for DDR200).
  double peak_mb_per_s() const;
  sc_time clock_period() const { return sec(1.0 / (p_.clock_mhz * 1e6)); }
  /// Command latency in DRAM clocks for a page state: hit tCL, empty tRCD+tCL, miss tRP+tRCD+tCL.
  double command_clocks(Page pg) const;
  const IntervalResource& data_bus() const { return bus_; }

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_time& delay);
  /// Debug transport (TLM-2.0 LRM §11.3): the functional read/write, no timing; 0 bytes outside memory.
  unsigned transport_dbg(tlm::tlm_generic_payload& trans);
  uint8_t* page_for_write(uint64_t page);
  /// [addr, addr + len) lies in installed memory (size_bytes); overflow-safe.
  bool installed(uint64_t addr, uint64_t len) const { return addr <= p_.size_bytes && len <= p_.size_bytes - addr; }
  void check_range(uint64_t addr, size_t len) const;

  DramParams p_;
  sc_time clk_;                  ///< clock_period()
  double line_clocks_ = 0;       ///< DRAM clocks per line on the data bus
  sc_time command_time_[3];      ///< clk_ × command_clocks(page state), by Page
  sc_time line_time_, read_first_time_, read_delay_time_;  ///< clk_ × line, × (line + tRD), × tRD
  IntervalResource bus_;
  std::vector<int64_t> open_row_;  ///< per bank, -1 = precharged
  std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
  mutable uint64_t last_page_ = ~uint64_t(0);  ///< page number of the last lookup (accesses are mostly sequential)
  mutable uint8_t* last_data_ = nullptr;       ///< its storage (pages are never freed)
  uint64_t &c_reads_, &c_writes_, &c_rd_bytes_, &c_wr_bytes_, &c_hit_, &c_empty_, &c_miss_;
  /// Time the data bus carried bursts (counter `<name>.busy_ns`, rounded from busy_ns_).
  uint64_t& c_busy_ns_;
  double busy_ns_ = 0;
};

}  // namespace nicsim
