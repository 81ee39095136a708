// Ethernet frames and the small port interfaces a MAC and a link use (not TLM: frames are not
// memory transactions). Frames carry real header bytes.
#pragma once
#include "core/journey.h"
#include "core/units.h"
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace nicsim {

/// Parse a MAC address written as six colon-separated groups of one or two hex digits
/// ("00:02:b3:12:34:56", any case). Returns the six octets, or nullopt for anything else
/// (wrong group count, empty group, non-hex characters, trailing text).
std::optional<std::array<uint8_t, 6>> parse_mac_address(const std::string& s);
/// Why `s` cannot be a NIC's station address, or "" when it can: not parseable, multicast (the
/// I/G bit, bit 0 of the first octet, set; IEEE 802.3 §3.2.3, which includes broadcast
/// ff:ff:ff:ff:ff:ff) or all zero.
std::string station_address_problem(const std::string& s);

struct EthFrame {
  /// Destination MAC through the end of the payload: no preamble/SFD, no FCS, no padding
  /// (the MAC pads to 60 bytes and appends the 4-byte FCS on the wire).
  std::vector<uint8_t> bytes;
  JourneyId journey = 0;  ///< the message this frame carries, 0 for none
  uint64_t seq = 0;       ///< per-link sequence number for tracing
};

struct EthLinkEnd;
struct EthRxFeed;

/// What a port did with the frames it sent and received, for the run's frame accounting
/// (result.json "accounting"): every frame the link handed to the port is accepted, still held,
/// consumed by the MAC, or dropped, each with the reason and counter that says so.
struct FrameTally {
  using Reasons = std::vector<std::pair<std::string, uint64_t>>;  ///< (reason, frames)
  uint64_t sent = 0;      ///< frames this port put on its link (control frames included)
  uint64_t accepted = 0;  ///< arrived frames stored for the host (e.g. 8254x GPRC)
  Reasons held;           ///< arrived frames still on their way through the port at the end
  Reasons consumed;       ///< arrived frames the MAC ends by design (802.3x PAUSE)
  Reasons dropped;        ///< arrived frames dropped, by reason
};

/// The MAC side of an Ethernet port.
struct EthPort {
  virtual ~EthPort() = default;
  /// The link calls this once at elaboration to hand the MAC its transmit end.
  virtual void attach_link(EthLinkEnd* end) = 0;
  /// A frame's last bit has arrived at this port (called at that simulated time), FCS good.
  virtual void frame_received(const EthFrame& f) = 0;
  virtual std::string port_name() const = 0;
  /// This port's frame counts over the run so far, or nullopt when its model keeps none (the
  /// run's accounting then reports the port's frames as not accounted for).
  virtual std::optional<FrameTally> tally() const { return std::nullopt; }
  /// The link calls this once at elaboration with the receive side of the direction that delivers
  /// to this port (EthRxFeed). A port that never holds frames ignores it.
  virtual void attach_rx(EthRxFeed*) {}
  /// The link is about to deliver a frame sent one by one behind the train this port holds, whose
  /// frames have all arrived: the port must take() them now (and may release()), so that it sees
  /// them before the single frame. A port that never holds frames ignores it.
  virtual void rx_feed_settle() {}
};

/// A run of identical frames whose last bits arrive at first, first + period, ... (n frames): what
/// a port takes from a held train (EthRxFeed::take). `f` stays valid until the next call on the feed.
struct EthFrameTrain {
  const EthFrame* f = nullptr;
  sc_time first = SC_ZERO_TIME;   ///< arrival (last bit at the port) of frame 0
  sc_time period = SC_ZERO_TIME;  ///< arrival spacing
  uint64_t n = 0;
  /// Arrival of frame `i` (exact: integer picoseconds).
  sc_time at(uint64_t i) const { return sc_time::from_value(first.value() + i * period.value()); }
};

/// The receive side of one link direction, as the port it delivers to sees it: the seam that lets
/// a port which will drop every frame for a while (no room in its receive FIFO) take the frames of
/// a periodic sender (a tester's train, EthLinkEnd::transmit_train) as a count instead of one
/// delivery each. Frames a MAC sends one by one (transmit) are always delivered one by one.
struct EthRxFeed {
  virtual ~EthRxFeed() = default;
  /// From now on, hold the train's frames (no frame_received for them) until release(). Granted
  /// (true) only when this direction carries a train whose frame has the bytes of `like` (the frame
  /// the port just dropped, so its verdict holds for them); otherwise false and nothing changes.
  virtual bool hold(const EthFrame& like) = 0;
  /// The held frames whose last bit arrived at or before `t` (t <= now), removed from the hold and
  /// counted as delivered; n = 0 when there are none.
  virtual EthFrameTrain take(const sc_time& t) = 0;
  /// End the hold: the held frames not taken are delivered one by one again at their arrival times
  /// (take(now()) first, or those already arrived are delivered at once, late).
  virtual void release() = 0;
  /// The held train's frames not yet taken, arrived or still to come as far as the sender has
  /// scheduled them (n = 0 when none or not held): what a store-and-forward port may commit ahead
  /// (models/ether/switch.h). No side effect.
  virtual EthFrameTrain peek() const { return {}; }
};

/// The link side, as the MAC sees it.
struct EthLinkEnd {
  virtual ~EthLinkEnd() = default;
  /// Start serialising `f` at absolute time `start` (or when the wire is free, if later).
  /// Returns the absolute time its last bit (incl. FCS) leaves; the inter-frame gap follows.
  /// The peer's frame_received() is called at that time plus the propagation delay.
  virtual sc_time transmit(const EthFrame& f, const sc_time& start) = 0;
  /// Earliest time a new frame could start on this direction.
  virtual sc_time wire_free_at() const = 0;
  /// Start `n` copies of `f` at first_start, first_start + period, ... (a sender that knows its
  /// schedule: a tester port). The link may carry them as one train (EthRxFeed) when period is at
  /// least the frame's wire time and nothing else is queued; the result is the same as n transmit()
  /// calls at those start times. Returns the last frame's transmit() value.
  virtual sc_time transmit_train(const EthFrame& f, const sc_time& first_start, const sc_time& period, uint64_t n) {
    sc_time last = first_start;
    for (uint64_t i = 0; i < n; ++i) last = transmit(f, sc_time::from_value(first_start.value() + i * period.value()));
    return last;
  }
  virtual unsigned speed_mbps() const = 0;
  /// Take back the frames of this direction's train (transmit_train) that start after `after`
  /// (>= now: they have not started, so they never go on the wire and the sender holds them
  /// again). Returns how many; 0 when no train is pending. The wire is then free after the last
  /// frame kept. Frames sent one by one are never taken back.
  virtual uint64_t retract_train(const sc_time& after) {
    (void)after;
    return 0;
  }
};

}  // namespace nicsim
