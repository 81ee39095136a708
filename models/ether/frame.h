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
  virtual unsigned speed_mbps() const = 0;
};

}  // namespace nicsim
