// A full-duplex point-to-point Ethernet link (a crossover cable) at 10/100/1000 Mb/s.
//
// Each direction is a wire that carries one frame at a time. A frame of `len` bytes (destination MAC
// through payload, as in EthFrame) occupies the wire for
//     preamble+SFD (8 B) + max(len + FCS 4 B, 64 B minimum frame) + inter-frame gap (12 B)
// byte times (IEEE 802.3 §3.1.1 frame format, §4.4.2 minFrameSize 512 bits, interFrameGap 96 bits,
// §3.2.1 preamble 7 B + SFD 1 B); 1000BASE-T's carrier extension applies only at half duplex, so a
// full-duplex gigabit link has none. The last bit reaches the far end one propagation delay later
// (length × ns_per_metre; Cat5/5e is a bit under 5 ns/m, at most 5.7 ns/m:
// http://www.igirard.com/Tech/tech9C.htm "Propagation Delay").
// The link delivers frames with an SC_METHOD per direction driven by one event per frame. A train
// (EthLinkEnd::transmit_train, a tester's periodic frames) is kept as one frame and counts, and the
// receiving port may hold it (EthRxFeed, frame.h): held frames cost no event until the port takes
// them as a count. A single frame sent behind a train starts after the train's last frame and is
// delivered after it (a port holding the train takes it first: EthPort::rx_feed_settle); frames of
// a train that have not started can be taken back (EthLinkEnd::retract_train: a store-and-forward
// switch's output obeying a PAUSE, a NIC-like source pausing).
#pragma once
#include "core/units.h"
#include "models/ether/frame.h"
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <systemc>

namespace nicsim {

inline constexpr unsigned kEthPreambleSfdBytes = 8;  ///< 802.3 §3.2.1/§3.2.2: 7 B preamble + 1 B SFD
inline constexpr unsigned kEthFcsBytes = 4;          ///< 802.3 §3.2.9: CRC-32 frame check sequence
inline constexpr unsigned kEthMinFrameBytes = 64;    ///< 802.3 §4.4.2 minFrameSize 512 bits, incl. FCS
inline constexpr unsigned kEthIfgBytes = 12;         ///< 802.3 §4.4.2 interFrameGap 96 bit times
inline constexpr unsigned kEthPauseQuantumBits = 512;  ///< 802.3 Annex 31B.2: one pause_time quantum

/// Bytes a frame of `frame_len` bytes (DA..payload, no FCS) carries on the wire from the first
/// preamble byte to the last FCS byte: 8 + max(frame_len + 4, 64).
unsigned serialized_bytes(unsigned frame_len);
/// Byte times a frame of `frame_len` bytes occupies one direction of the link, inter-frame gap
/// included: 8 + max(frame_len + 4, 64) + 12. A 60-byte (minimum) frame gives 84; 1514 gives 1538.
unsigned wire_bytes(unsigned frame_len);
/// Duration of one byte on a `speed_mbps` link (8 ns at 1000 Mb/s).
sc_time byte_time(unsigned speed_mbps);
/// Time from the first preamble bit to the last FCS bit of a `frame_len`-byte frame.
sc_time serialization_time(unsigned frame_len, unsigned speed_mbps);
/// Time a `frame_len`-byte frame occupies the wire including the inter-frame gap (back-to-back
/// period): wire_bytes(frame_len) byte times.
sc_time frame_time(unsigned frame_len, unsigned speed_mbps);
/// Back-to-back frame rate in frames/s of `frame_len`-byte frames (1,488,095.2 for 60 B at 1 Gb/s).
double max_frame_rate(unsigned frame_len, unsigned speed_mbps);
/// Duration of `quanta` PAUSE quanta (512 bit times each) at `speed_mbps`.
sc_time pause_duration(unsigned quanta, unsigned speed_mbps);
/// Propagation delay of `length_m` metres of cable at `ns_per_m` ns per metre.
sc_time propagation_delay(double length_m, double ns_per_m);

/// A capture point on a link: sees every frame as it goes on the wire, the way a passive tap or a
/// port mirror does. The link calls it once per frame, in wire order per direction, at the time
/// the frame is sent (the caller may not block or change the frame). The assembly attaches one
/// (EthLink::set_tap); the link knows nothing of what the tap does with the frames (e.g. pcap
/// files, platforms/pcap_capture.h). While a tap is attached a periodic train (transmit_train) is
/// carried frame by frame, so the tap sees each of its frames.
struct EthTap {
  virtual ~EthTap() = default;
  /// Frame `f` (DA..payload, no padding or FCS: EthFrame::bytes) goes on direction `dir` (0 a->b,
  /// 1 b->a): its first preamble bit leaves at `first_bit`, its last FCS bit at `last_bit`
  /// (first_bit + serialization_time). Both are absolute simulated times.
  virtual void on_frame(unsigned dir, const EthFrame& f, const sc_time& first_bit, const sc_time& last_bit) = 0;
};

struct EthLinkParams {
  unsigned speed_mbps = 1000;  ///< 10, 100 or 1000 (the negotiated speed)
  double length_m = 2.0;       ///< cable length in metres (scenario LinkConfig::length_m)
  double ns_per_m = 5.0;       ///< Cat5e propagation: a bit under 5 ns/m, ≤ 5.7 ns/m (igirard.com tech9C)
};

/// A full-duplex point-to-point link between two EthPorts. Attaches itself to both ports at
/// construction (EthPort::attach_link). Throws std::invalid_argument for a speed other than
/// 10/100/1000 or a negative length.
class EthLink : public sc_core::sc_module {
 public:
  EthLink(sc_core::sc_module_name name, unsigned speed_mbps, double length_m, EthPort& a, EthPort& b);
  EthLink(sc_core::sc_module_name name, const EthLinkParams& p, EthPort& a, EthPort& b);
  ~EthLink() override;

  const EthLinkParams& params() const { return p_; }
  sc_time propagation() const { return prop_; }
  /// Frames carried a→b (dir 0) and b→a (dir 1).
  uint64_t frames(unsigned dir) const;
  /// Frames of direction `dir` handed to the far port so far.
  uint64_t delivered(unsigned dir) const;
  /// Frames of direction `dir` on the wire now (sent, not yet arrived).
  uint64_t in_flight(unsigned dir) const;
  /// The transmit end of port a (0) or b (1).
  EthLinkEnd& end(unsigned side);
  /// Attach `tap` (not owned; must outlive the link's traffic), or detach with nullptr. Frames sent
  /// from then on are reported to it. Attach before sc_start to see a whole run.
  void set_tap(EthTap* tap) { tap_ = tap; }
  EthTap* tap() const { return tap_; }

 private:
  class Direction;
  EthLinkParams p_;
  sc_time prop_;
  std::unique_ptr<Direction> ab_, ba_;
  EthTap* tap_ = nullptr;
};

}  // namespace nicsim
