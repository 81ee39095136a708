// DmaEngine: the bus-master DMA unit of a PCI device with one master interface (one REQ#/GNT#
// pair): a FIFO of transfer requests, one burst at a time on the device's `dma_initiator` socket.
//
// Shared by the 8254x (models/nic/e1000) and 8255x (models/nic/i8255x) models, whose DMA units
// behave the same way at this level: requests queue in submission order, each is cut into bursts
// whose length and PCI command the device chooses (`Planner`: burst size registers, cache line
// size, MWI enable, 4 KB boundaries), the next burst is issued when the previous one's annotated
// delay has elapsed (for a posted write: when the master is released), and the request's `done`
// callback runs when its last burst has completed.
//
// Journeys: a request's journeys are marked with `stage` at `where` when it is queued (cause
// "bus interface busy" when another request is ahead of it) and again when its first burst
// starts; the first journey rides on the PciTxnExt of every burst so the bus models can mark
// their waits.
//
// Fast mode (core/fidelity.h, read at construction): of a request of several bursts, the FIRST
// burst goes through the bus models (segment, bridge, hub link, MCH, DRAM: it meets whatever
// contention there is at that moment), and so does the LAST when it differs from the first in
// size (a partial tail: its fixed costs, e.g. a split read's round trip, do not scale with its
// bytes); the bursts between move functionally (TLM debug transport, which the DMA path forwards
// to DRAM, snooping the CPU caches like a write) and take the first burst's time scaled by their
// bytes. Exact mode issues every burst, each when the previous one's delay has elapsed. Why the
// deviation is small: in a steady transfer the middle bursts are like the first (same size, same
// command, the bus parked on the master), so each takes the time the first took; what fast mode
// loses is the contention the middle bursts would have met or caused (they reserve no bus, link
// or DRAM time), and the bus models' counters (tenures, bytes, packets, DRAM accesses) do not
// count them. A path without debug transport (returns fewer bytes) gets the exact bursts.
#pragma once
#include "core/journey.h"
#include "models/bus/pci.h"
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <new>
#include <type_traits>
#include <string>
#include <systemc>
#include <tlm>
#include <vector>

namespace nicsim {

struct DmaRequest;

/// A DmaRequest's completion callback: a move-only callable, kept inline when it fits kInlineBytes
/// (the devices' captures do), so that queueing a transfer allocates nothing for it; a larger one
/// is kept on the heap. Empty by default; `if (done) done(req)` as with a std::function.
class DmaDone {
 public:
  static constexpr std::size_t kInlineBytes = 64;
  DmaDone() noexcept = default;
  DmaDone(std::nullptr_t) noexcept {}
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, DmaDone> &&
                                                    !std::is_same_v<std::decay_t<F>, std::nullptr_t>>>
  DmaDone(F&& f) {
    emplace(std::forward<F>(f));
  }
  DmaDone(DmaDone&& o) noexcept { take(o); }
  DmaDone& operator=(DmaDone&& o) noexcept {
    if (this != &o) {
      reset();
      take(o);
    }
    return *this;
  }
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, DmaDone> &&
                                                    !std::is_same_v<std::decay_t<F>, std::nullptr_t>>>
  DmaDone& operator=(F&& f) {
    reset();
    emplace(std::forward<F>(f));
    return *this;
  }
  DmaDone& operator=(std::nullptr_t) noexcept {
    reset();
    return *this;
  }
  DmaDone(const DmaDone&) = delete;
  DmaDone& operator=(const DmaDone&) = delete;
  ~DmaDone() { reset(); }
  explicit operator bool() const noexcept { return ops_ != nullptr; }
  /// Const like std::function's: a stored lambda may still change its own captures (mutable).
  void operator()(DmaRequest& r) const { ops_->call(const_cast<unsigned char*>(buf_), r); }
  void reset() noexcept {
    if (ops_) ops_->destroy(buf_);
    ops_ = nullptr;
  }

 private:
  struct Ops {
    void (*call)(void* self, DmaRequest& r);
    void (*move)(void* dst, void* src) noexcept;  ///< construct at dst from src and destroy src
    void (*destroy)(void* self) noexcept;
  };
  template <typename F>
  static constexpr bool inline_ok = sizeof(F) <= kInlineBytes && alignof(F) <= alignof(std::max_align_t) &&
                                    std::is_nothrow_move_constructible_v<F>;
  template <typename F>
  static const Ops* ops_for() {
    if constexpr (inline_ok<F>) {
      static constexpr Ops o{[](void* p, DmaRequest& r) { (*static_cast<F*>(p))(r); },
                             [](void* d, void* s) noexcept {
                               ::new (d) F(std::move(*static_cast<F*>(s)));
                               static_cast<F*>(s)->~F();
                             },
                             [](void* p) noexcept { static_cast<F*>(p)->~F(); }};
      return &o;
    } else {
      static constexpr Ops o{[](void* p, DmaRequest& r) { (**static_cast<F**>(p))(r); },
                             [](void* d, void* s) noexcept { *static_cast<F**>(d) = *static_cast<F**>(s); },
                             [](void* p) noexcept { delete *static_cast<F**>(p); }};
      return &o;
    }
  }
  template <typename F>
  void emplace(F&& f) {
    using T = std::decay_t<F>;
    if constexpr (inline_ok<T>) ::new (static_cast<void*>(buf_)) T(std::forward<F>(f));
    else *reinterpret_cast<T**>(buf_) = new T(std::forward<F>(f));
    ops_ = ops_for<T>();
  }
  void take(DmaDone& o) noexcept {
    if (o.ops_) o.ops_->move(buf_, o.buf_);
    ops_ = o.ops_;
    o.ops_ = nullptr;
  }
  alignas(std::max_align_t) unsigned char buf_[kInlineBytes];
  const Ops* ops_ = nullptr;
};

/// One DMA transfer: `buf.size()` bytes to (write) or from (read) bus address `addr`.
struct DmaRequest {
  bool write = false;
  uint64_t addr = 0;                ///< bus address in bytes
  std::vector<uint8_t> buf;         ///< write: bytes to write; read: filled by the transfer
  const char* what = "";            ///< e.g. "RX data", "TX desc fetch" (PciTxnExt::what)
  const char* stage = "";           ///< journey stage, e.g. "RX DMA" ("" with no journeys)
  std::vector<JourneyId> journeys;  ///< messages this transfer serves (may be empty)
  std::string where;                ///< journey `where` (the device's instance / port name)
  DmaDone done;                     ///< called when the last burst has completed (may be empty)
  size_t off = 0;                   ///< bytes already transferred (engine-owned)
};

/// One burst the device's DMA unit issues: its length in bytes (1..left) and PCI command.
struct DmaBurst {
  size_t bytes = 0;
  PciCommand cmd = PciCommand::MemWrite;
};

class DmaEngine {
 public:
  /// The device's burst rule: for a transfer in direction `write` whose next byte is at `addr`
  /// with `left` bytes (> 0) still to move, the burst to issue now. Called at issue time, so it
  /// may read the device's current configuration registers.
  using Planner = std::function<DmaBurst(bool write, uint64_t addr, size_t left)>;

  /// `initiator`: the device's bus-master socket (must outlive the engine). `owner`: the device's
  /// SystemC name for error messages; `report_id`: the SC_REPORT_ERROR message type (e.g.
  /// "nicsim/e1000"). Spawns an SC_METHOD "dma_engine" under the module being constructed, so it
  /// must be constructed during elaboration inside the device's constructor. A bus error response
  /// is reported with SC_REPORT_ERROR (default action: throw).
  DmaEngine(tlm::tlm_initiator_socket<>& initiator, std::string owner, std::string report_id, Planner plan);
  ~DmaEngine();
  DmaEngine(const DmaEngine&) = delete;
  DmaEngine& operator=(const DmaEngine&) = delete;

  /// An empty request (DmaRequest's defaults) to fill and submit(): one that completed before,
  /// whose buffers keep their capacity, so that a steady stream of transfers allocates nothing.
  std::unique_ptr<DmaRequest> request();
  /// Queue `r` behind the requests already queued (FIFO). A request with an empty `buf`
  /// completes one delta cycle after it reaches the head.
  void submit(std::unique_ptr<DmaRequest> r);
  /// Drop every queued request that has not started (a device reset); the one in progress
  /// finishes its current burst and completes.
  void clear() { q_.clear(); }
  /// Bursts issued so far.
  uint64_t bursts() const { return bursts_; }
  /// Fast mode: bytes moved by debug transport between a request's first and last burst (0 in exact mode).
  uint64_t extrapolated_bytes() const { return extrapolated_bytes_; }
  bool fast() const { return fast_; }
  bool idle() const { return !cur_ && q_.empty(); }

 private:
  void run();
  void issue_burst();

  tlm::tlm_initiator_socket<>& initiator_;
  std::string owner_, report_id_;
  Planner plan_;
  sc_core::sc_event ev_;
  std::deque<std::unique_ptr<DmaRequest>> q_;
  std::unique_ptr<DmaRequest> cur_;
  std::vector<std::unique_ptr<DmaRequest>> spare_;  ///< completed requests for request()
  tlm::tlm_generic_payload trans_;
  PciTxnExt ext_;
  uint64_t bursts_ = 0;
  bool fast_ = false;                 ///< run_fidelity() == Fidelity::Fast at construction
  tlm::tlm_generic_payload dbg_;      ///< fast mode: the debug transport of a request's rest
  uint64_t extrapolated_bytes_ = 0;
};

}  // namespace nicsim
