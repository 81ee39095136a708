// A PCI/PCI-X bridge with two 64-bit segments (A, B) sharing one upstream packet link, with one
// I/OxAPIC per segment or one for both. One model, two parts, differing only in parameters:
//  - Intel 82870P2 (P64H2), on a Hub Interface 2.0 link, one I/OxAPIC per segment
//    (research/e7500-p64h2-pcix.md §2); the defaults below are its values (models/bridge/p64h2.h).
//  - ServerWorks CIOB-X2, on an IMBus link (models/bridge/ciobx2.h): no datasheet timing was found,
//    so its parameters are these PCI-X rules with estimated constants.
//
// Inbound (device -> memory), per segment:
//  - Memory writes are posted into a buffer of `posted_write_buffer_bytes` and forwarded upstream
//    in ADB-sized pieces as they arrive (cut-through). When the buffer is full the bridge ends the
//    master's tenure at the next ADB (disconnect) or, if nothing fits, answers Retry; the master
//    comes back when space frees. So the hub link's drain rate caps the segment's write rate.
//  - PCI mode: reads are delayed transactions. The first attempt is retried while the bridge
//    latches the request (up to `delayed_read_slots` per segment) and fetches upstream (MR: one
//    QWORD, MRL: to the end of the cache line, MRM: `mrm_prefetch_bytes`); the master keeps
//    retrying (every tenure costs bus time) until the data is in, then takes it up to the end of
//    the fetched data (disconnect at the buffer boundary). Unused prefetched data is discarded.
//  - PCI-X mode: every read request gets a Split Response and waits in the split queue
//    (`split_queue_active` + `split_queue_pending`, 4 + 4 [S14]); a full queue answers Retry. The
//    bridge fetches upstream and masters the segment to return a Split Completion that streams as
//    the data arrives. Requests longer than the master's MMRBC are split into sequences; the
//    master keeps at most its MOST (maximum outstanding split transactions) in flight.
// Outbound (CPU MMIO): the bridge masters the segment after `outbound_request_clocks`; it does
//  not prefetch (reads move exactly what was asked) [S15]; writes are posted (accepted at once).
// Outbound I/O (CPU IN/OUT, PciSpaceExt): each segment's bridge has one I/O base/limit window
//  (82870P2 DS §4.4.1 "I/O Window Addressing": 4 KB granularity and alignment, at most 64 KB;
//  outside it an I/O cycle master-aborts); I/O reads and writes are both non-posted (PCI 2.2
//  §3.2.5: only memory writes are posted; the PCI-to-PCI Bridge spec 1.1 §5 handles I/O as
//  delayed transactions), so an I/O write returns the delay to its completion like a read.
//  I/O from the segments upstream is master-aborted (DS §4.4.1 and §4.2.9: no inbound I/O).
// Bridge latencies are in segment clocks (its secondary-side logic runs in the segment's clock
// domain), so a PCI 66 segment is slower than a PCI-X 100 one.
#pragma once
#include "core/units.h"
#include "models/bus/irq.h"
#include "models/bus/pci_segment.h"
#include "models/bus/stream_timing.h"
#include "models/chipset/ioxapic.h"
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace nicsim {

/// Defaults are the P64H2's (each field's source); ciobx2_params() gives the CIOB-X2's.
struct PcixBridgeParams {
  unsigned split_queue_active = 4;          ///< split transactions being fetched [S14] §2
  unsigned split_queue_pending = 4;         ///< accepted, waiting for an active slot [S14] §2
  uint32_t posted_write_buffer_bytes = 512; ///< estimate: research §2: ≥512 B per direction
  uint32_t posted_chunk_bytes = 128;        ///< forwarded upstream per PCI-X ADB (§3 [S29]); estimate for PCI mode
  uint32_t mr_fetch_bytes = 8;              ///< estimate: MR is not prefetchable, the bridge reads one QWORD (PCI 2.2 §3.1.1 command semantics)
  uint32_t mrm_prefetch_bytes = 512;        ///< estimate: research §2: 512 B–1 KB per read stream (Intel 41210 analog [S21])
  unsigned delayed_read_slots = 2;          ///< estimate: research §2: 2 read streams per segment
  /// PCI mode, how an inbound read is answered. 0 (default, every PCI-to-PCI bridge here): a
  /// delayed transaction, the first attempt always retried (PCI-to-PCI Bridge Architecture 1.1 §5).
  /// N > 0: a host bridge that reads memory itself, starts the fetch as it decodes the address and
  /// holds the master with wait states (TRDY# deasserted), streaming the fetch as it arrives, when
  /// the first data is on the bus within N clocks of FRAME#; otherwise it signals Retry at that
  /// clock and completes the read as a delayed transaction (PCI 2.2 §3.5.1.1: a target has 16
  /// clocks for its initial data phase). Counted as `wait_state_reads` on the segment.
  double target_initial_latency_clocks = 0;
  double inbound_request_clocks = 4;        ///< estimate: segment clocks from a latched request to its HI packet
  double outbound_request_clocks = 18;      ///< estimate: segment clocks from an HI request to bus request; calibrated once vs MMIO read 0.7–0.9 µs (PCI-X) and +0.1–0.2 µs in PCI-66 (§4)
  double completion_return_clocks = 6;      ///< estimate: segment clocks from data arriving on one side to it leaving the other; with the HI/MCH/DRAM path gives PCI-X DMA read first data ≈60 clocks at 100 MHz ([S31] §4)
  double apic_message_ns = 20;              ///< estimate: I/OxAPIC message into the HI upstream queue
  double eoi_forward_ns = 20;               ///< estimate: HI EOI cycle to the I/OxAPICs
  /// One I/OxAPIC per segment (P64H2: devices 1c/1e [S13]) or one for both segments (then
  /// ioxapic(0) and ioxapic(1) are the same APIC, and boards give the segments distinct inputs).
  bool ioxapic_per_segment = true;
  /// "Carry a burst as one transaction" (a speed method, not hardware). false (default): the posted pieces of a
  /// tenure go upstream as ONE write carrying a PostedTrainExt (models/bus/stream_timing.h) with
  /// each piece's time, for as many leading pieces as the posted buffer is sure to hold even if
  /// nothing drained meanwhile (so the buffer-full decision cannot differ); the link, MCH and DRAM
  /// then treat the pieces one by one in order, as separate writes: the results are the same as
  /// the piece-by-piece path's. true: one upstream call per piece (the detailed path, for
  /// comparison; platform parameter `detailed_dma`).
  bool detailed_dma = false;
};

class PcixBridge : public sc_core::sc_module, public eoi_if {
 public:
  /// Outbound (CPU MMIO) from the hub link.
  tlm_utils::simple_target_socket<PcixBridge> hub_target;
  /// Inbound (DMA, interrupt messages) to the hub link.
  tlm_utils::simple_initiator_socket<PcixBridge> hub_initiator;
  /// EOI broadcasts from the hub link (bind hub.eoi_out here).
  sc_core::sc_export<eoi_if> eoi_in;

  PcixBridge(sc_core::sc_module_name name, const PcixBridgeParams& p, const PciSegmentParams& seg_a,
        const PciSegmentParams& seg_b, const IoxApicParams& apic = {});

  /// Segment 0 = A, 1 = B. Throws std::out_of_range.
  PciSegment& segment(unsigned i) { return *seg_[check(i)]; }
  /// The I/OxAPIC serving segment `i` (the same object for both when !ioxapic_per_segment).
  IoxApic& ioxapic(unsigned i) { return *apic_[p_.ioxapic_per_segment ? check(i) : (check(i), 0)]; }
  const PcixBridgeParams& params() const { return p_; }
  /// Memory window (bridge memory base/limit) of segment `i`: CPU MMIO in [base, base+size) goes there.
  void set_window(unsigned i, uint64_t base, uint64_t size);
  /// I/O window (I/O base/limit) of segment `i`: CPU I/O cycles to ports in [base, base+size) go
  /// there. `base` and `size` must be multiples of 4 KB and the window inside the 64 KB I/O space
  /// (82870P2 DS §4.4.1; the EN1K 1 KB granularity option is not modelled); size 0 turns the
  /// window off. Throws std::invalid_argument otherwise.
  void set_io_window(unsigned i, uint64_t base, uint64_t size);
  static constexpr uint64_t kIoWindowGranularity = 0x1000;  ///< 82870P2 DS §4.4.1: 4 KB

  void eoi(unsigned vector, const sc_core::sc_time& delay) override;

 private:
  struct Posted {
    sc_time entry, drained;
    uint32_t bytes;
  };
  struct Split {
    sc_time accept, fetch_start, end;
  };
  struct SegState {
    std::deque<Posted> posted;
    std::vector<Split> splits;
    std::vector<sc_time> delayed;  ///< delayed-read slot busy-until times
    sc_time out_last_start = SC_ZERO_TIME;
    uint64_t base = 0, size = 0;
    uint64_t io_base = 0, io_size = 0;
    uint64_t *c_delayed_retries, *c_split_responses, *c_split_retries, *c_split_completions, *c_posted_disconnects,
        *c_posted_retries, *c_prefetch_discarded, *c_delayed_reads,
        *c_wait_state_reads = nullptr;
  };

  void b_inbound(int seg, tlm::tlm_generic_payload& trans, sc_time& delay);
  /// Debug transport of an inbound memory access (fast mode, models/bus/dma_engine.h): upstream;
  /// inbound I/O is master-aborted (0 bytes), as b_inbound does.
  unsigned dbg_inbound(int seg, tlm::tlm_generic_payload& trans);
  void b_outbound(tlm::tlm_generic_payload& trans, sc_time& delay);
  void b_apic(int seg, tlm::tlm_generic_payload& trans, sc_time& delay);
  /// One inbound (DMA) request as it arrived on segment `k`: what every inbound handler starts from.
  struct Inbound {
    unsigned k;                       ///< segment index (0 = A, 1 = B)
    unsigned m;                       ///< requesting master on it (PciRequesterExt; 0 without one)
    PciSegment& seg;                  ///< that segment
    SegState& s;                      ///< the bridge's buffers and counters for it
    tlm::tlm_generic_payload& trans;  ///< the master's transaction (its response status is set here)
    const PciTxnExt* x;               ///< the master's command / journey extension (nullptr: none)
    JourneyId j;                      ///< journey to mark (0: none)
    const char* what;                 ///< journey stage: the master's label, else "DMA write" / "DMA read"
    uint64_t addr;                    ///< first byte (bus address)
    uint32_t len;                     ///< bytes (> 0)
    uint8_t* data;                    ///< the transaction's data
  };
  Inbound inbound(unsigned k, tlm::tlm_generic_payload& trans);
  /// The first tenure of a burst of `len` bytes at `addr` that master `m` (the bridge the target)
  /// would start at or after absolute `at` on `seg`: its phases (the latency timer applied when the
  /// bus is contended), the bytes it moves before the burst's first disconnect, where arbitration
  /// places it (not reserved: seg.commit() does that) and when its first data phase starts.
  struct FirstTenure {
    PciPhaseList ph;
    uint32_t bytes;
    PciSegment::Plan pl;
    sc_time data_start;
  };
  static FirstTenure first_tenure(const PciSegment& seg, unsigned m, PciCommand cmd, uint64_t addr, uint32_t len,
                                  const sc_time& at);
  sc_time inbound_write(const Inbound& in, const sc_time& t0);
  sc_time inbound_split_read(const Inbound& in, const sc_time& t0);
  sc_time inbound_delayed_read(const Inbound& in, const sc_time& t0);
  /// Upstream read of `len` bytes into `dst`, starting at absolute `at`. Returns {first, last}
  /// absolute times the data is at the bridge; sets `ok` false on an error response.
  std::pair<sc_time, sc_time> fetch(uint64_t addr, uint8_t* dst, uint32_t len, const sc_time& at, bool& ok);
  /// The one upstream payload, reset for a new transaction (upstream calls never re-enter the
  /// bridge, so one object serves every forwarded piece without a per-piece construction).
  tlm::tlm_generic_payload& upstream_payload(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, uint32_t len);
  /// Forward the posted pieces [first, end) of one tenure upstream as a PostedTrainExt train and
  /// record them in the posted buffer. `pieces` hold (address, bytes, time in the buffer).
  struct PieceAt {
    uint64_t addr;
    uint32_t bytes;
    sc_time in_buffer;
  };
  void forward_train(unsigned k, const PieceAt* first, const PieceAt* end, uint8_t* data,
                     tlm::tlm_generic_payload& trans);
  /// Forward one posted piece upstream; returns when its last byte left the bridge (drained).
  sc_time forward_piece(unsigned k, const PieceAt& pc, uint8_t* data, tlm::tlm_generic_payload& trans);
  uint32_t occupancy(SegState& s, const sc_time& t) const;
  sc_time room_at(SegState& s, const sc_time& t, uint32_t need) const;

  static unsigned check(unsigned i) {
    if (i > 1) throw std::out_of_range("a PCI-X bridge has segments 0 (A) and 1 (B)");
    return i;
  }
  PcixBridgeParams p_;
  std::unique_ptr<PciSegment> seg_[2];
  std::unique_ptr<IoxApic> apic_[2];
  std::unique_ptr<tlm_utils::simple_target_socket_tagged<PcixBridge>> from_seg_[2];
  std::unique_ptr<tlm_utils::simple_initiator_socket<PcixBridge>> to_seg_[2];
  std::unique_ptr<tlm_utils::simple_target_socket_tagged<PcixBridge>> from_apic_[2];
  SegState st_[2];
  tlm::tlm_generic_payload up_;
  PostedTrainExt train_;  ///< the one train extension (upstream calls never re-enter the bridge)
  std::vector<PieceAt> pieces_;  ///< scratch: the current tenure's candidate pieces
};

}  // namespace nicsim
