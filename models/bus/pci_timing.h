// Pure PCI / PCI-X timing arithmetic: how many bus clocks a transaction's phases take.
// No SystemC here; the segment model (pci_segment.h) applies these to time and to the arbiter.
//
// Phase lists follow research/e7500-p64h2-pcix.md §3:
//   conventional PCI tenure = arbitration + address (+1 DAC) + [read: AD turnaround]
//                             + DEVSEL decode + initial wait states + data phases + turnaround
//   PCI-X tenure            = arbitration + address (+1 DAC) + attribute + [read: AD turnaround]
//                             + decode + 1 register stage + initial wait + data phases + turnaround
// (§3 worked examples: a 1518-byte posted write is 2+1+1+190+1 = 195 clocks on 64-bit PCI 66 and
//  2+1+1+2+190+1 = 197 clocks on PCI-X 133.)
// A transaction that a target ends with Retry or Split Response has no data phases: one
// termination clock replaces them.
#pragma once
#include "models/bus/pci.h"
#include <cstdint>
#include <string>
#include <boost/container/small_vector.hpp>
#include <vector>

namespace nicsim {

/// Clock period in ns of a PCI/PCI-X segment running at nominal `mhz` (33 -> 30, 66 -> 15,
/// 100 -> 10, 133 -> 7.5; other values 1000/mhz). Throws std::invalid_argument for 0.
double pci_clock_ns(unsigned mhz);

/// Data phases needed to move `bytes` starting at byte address `addr` over an AD path of
/// `bytes_per_clock` (8 for 64-bit, 4 for 32-bit): the number of aligned bus words touched
/// (a misaligned start or end costs a partial phase). 0 when bytes == 0.
unsigned pci_data_phases(uint64_t addr, uint32_t bytes, unsigned bytes_per_clock);

/// One piece of a posted write as a bridge buffers it: `bytes` at `addr`, whose last byte is in the
/// bridge after `data_phases` data phases counted from the tenure's first one.
struct PostedPiece {
  uint64_t addr = 0;
  uint32_t bytes = 0;
  unsigned data_phases = 0;
};
/// The pieces of a tenure that writes `bytes` at `addr`: cut at every `chunk`-aligned address
/// (the bridge forwards one piece per PCI-X ADB, PCI-X 1.0 §1.4 [S29]), each with the data
/// phases up to its last byte (pci_data_phases over [addr, piece end) at `bytes_per_clock`).
/// So piece k is in the buffer at data start + data_phases(k) clocks: closed form, no bus state.
/// Throws std::invalid_argument when chunk or bytes_per_clock is 0.
boost::container::small_vector<PostedPiece, 8> posted_pieces(uint64_t addr, uint32_t bytes, uint32_t chunk,
                                                              unsigned bytes_per_clock);

/// How a tenure ends.
enum class PciTermination {
  Data,          ///< data phases ran (completed or disconnected)
  Retry,         ///< target signalled Retry on the first data phase (delayed transaction, full queue)
  SplitResponse  ///< PCI-X target accepted a read and will answer with a Split Completion
};

/// Clocks of each phase of one bus tenure (one FRAME# assertion).
struct PciPhaseList {
  unsigned arbitration = 0;      ///< REQ# -> GNT# on an idle bus (0 when parked or hidden)
  unsigned address = 0;          ///< 1, or 2 with a dual address cycle (DAC)
  unsigned attribute = 0;        ///< PCI-X attribute phase: byte count, requester ID, tag
  unsigned read_turnaround = 0;  ///< AD bus turnaround after the address of a read
  unsigned decode = 0;           ///< DEVSEL# decode (PCI fast/medium/slow 1/2/3; PCI-X A/B/C/sub 1..4)
  unsigned register_stage = 0;   ///< PCI-X register-to-register signalling clock
  unsigned initial_wait = 0;     ///< target initial wait states before the first data phase
  unsigned data = 0;             ///< data phases (incl. wait states inserted between them)
  unsigned termination = 0;      ///< Retry / Split Response signalling clock
  unsigned turnaround = 0;       ///< idle clock before the next tenure
  unsigned total() const;
  /// Clocks from the start of the tenure to the first data phase (exclusive).
  unsigned to_first_data() const;
};

/// Everything that decides one tenure's length.
struct PciTenureSpec {
  bool pcix = false;
  bool read = false;
  bool dac = false;                     ///< 64-bit address above 4 GB: dual address cycle
  unsigned arbitration_clocks = 0;
  unsigned decode_clocks = 1;
  unsigned register_clocks = 1;         ///< used in PCI-X mode only
  unsigned read_turnaround_clocks = 1;  ///< used for reads only
  unsigned initial_wait_clocks = 0;
  unsigned data_phases = 0;             ///< ignored unless term == Data
  PciTermination term = PciTermination::Data;
  unsigned termination_clocks = 1;      ///< Retry / Split Response
  unsigned turnaround_clocks = 1;
};

/// Phase list of one tenure (no disconnect logic).
PciPhaseList pci_tenure_phases(const PciTenureSpec& s);

/// A burst that may span several tenures (target disconnects, latency timer).
struct PciBurstSpec {
  PciCommand cmd = PciCommand::MemWrite;
  uint64_t addr = 0;
  uint32_t bytes = 0;
  unsigned bus_width_bits = 64;
  unsigned device_width_bits = 64;     ///< data phases run at min(bus, device) width
  unsigned arbitration_clocks = 2;     ///< charged to every tenure (pass 0 when parked)
  unsigned decode_clocks = 1;
  unsigned register_clocks = 1;
  unsigned read_turnaround_clocks = 1;
  unsigned initial_wait_clocks = 0;
  unsigned turnaround_clocks = 1;
  /// Target disconnect granularity in bytes, 0 = the target never disconnects. PCI: the target
  /// disconnects at each aligned `disconnect_bytes` boundary (buffer / cache line). PCI-X: the
  /// target may disconnect only at an ADB, so a tenure ends at the last ADB within
  /// `disconnect_bytes` of its start (at least the next ADB).
  uint32_t disconnect_bytes = 0;
  /// Latency timer in clocks, 0 = not enforced (GNT# stays asserted: no other requester).
  /// When enforced the master ends its tenure once the timer expires, after the current data phase
  /// (PCI), at the end of the cache line (MWI), or at the next ADB (PCI-X).
  unsigned latency_timer_clocks = 0;
  uint32_t cache_line_bytes = 64;
  uint32_t adb_bytes = 128;
};

struct PciBurstTiming {
  unsigned clocks = 0;       ///< all tenures, overhead included
  unsigned tenures = 0;      ///< 1 + disconnects
  unsigned data_phases = 0;  ///< sum over tenures
  // Inline storage for the usual one to four tenures (no heap allocation per burst).
  boost::container::small_vector<uint32_t, 4> tenure_bytes;
  boost::container::small_vector<PciPhaseList, 4> phases;
};

/// Conventional PCI burst (PCI Local Bus 2.2 phase rules, research §3 "Conventional PCI").
/// Throws std::invalid_argument for MWI whose start or length is not cache-line aligned, or a
/// device width other than 32/64.
PciBurstTiming pci_burst_clocks(const PciBurstSpec& s);
/// PCI-X mode 1 burst (attribute phase, register stage, ADB-only disconnects; research §3 "PCI-X").
/// Same exceptions as pci_burst_clocks.
PciBurstTiming pcix_burst_clocks(const PciBurstSpec& s);

/// The mode a segment runs in, chosen at reset from what sits on it (research §2 "Segment
/// speed": one conventional-PCI device drops the whole segment to PCI mode at the slowest
/// card's speed).
struct PciSegmentMode {
  bool pcix = true;
  unsigned mhz = 133;
  std::string describe() const;  ///< e.g. "PCI-X 100 MHz", "PCI 66 MHz"
};
/// `devices`: what is plugged in. `max_pcix_mhz`/`max_pci_mhz`: what the bridge and the board
/// loading allow in each mode. A PCI-X device in PCI mode runs at most 66 MHz. Empty segment:
/// PCI-X at max_pcix_mhz.
PciSegmentMode resolve_segment_mode(const std::vector<PciDeviceInfo>& devices, unsigned max_pcix_mhz,
                                    unsigned max_pci_mhz);

/// Peak data bandwidth in MB/s (10^6 B/s) of a `width_bits` bus at `mhz`, using the exact clock
/// period (64-bit PCI 66 -> 533, PCI-X 100 -> 800, PCI-X 133 -> 1067).
double pci_peak_mb_per_s(unsigned width_bits, unsigned mhz);

}  // namespace nicsim
