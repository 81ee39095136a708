// An ideal traffic-generator port (the role of a SmartBits / IXIA tester port in RFC 2544 tests):
// it transmits copies of one frame back to back at a fraction of line rate and counts what it
// receives. It has no host, no bus and no buffers: what it offers is exactly the schedule below,
// so a device under test that cannot keep up shows its own drop counters. Counters (sim().counters):
// <name>.frames_sent, <name>.frames_received.
//
// Schedule: once started (start(), at the current simulated time t0, as an operator presses start
// on a tester), frame k (k = 0, 1, ...) starts on the wire at t0 + k * period, where
// period = frame_time(frame_bytes, speed) / load (link.h: preamble, minimum frame, FCS and the
// 96-bit inter-frame gap included), so load = 1 is wire rate: 1,488,095 frames/s of 60-byte
// frames (64 bytes with FCS) at 1000 Mb/s. The link must not be slower than the schedule (a load
// above 1 is refused).
//
// Speed: the port hands the link `batch` frames per activation as one train
// (EthLinkEnd::transmit_train: the same start times, kept as one frame and a count), so a 1.488 Mpps
// stream costs one generator event per `batch` frames; timing is the same for any batch size.
#pragma once
#include "core/units.h"
#include "models/ether/frame.h"
#include <cstdint>
#include <string>
#include <systemc>
#include <vector>

namespace nicsim {

struct TrafficGenParams {
  double load = 1.0;    ///< offered rate as a fraction of line rate, (0, 1]
  uint64_t frames = 0;  ///< frames to send; 0 = until the simulation stops
  unsigned batch = 64;  ///< frames handed to the link per activation (speed only)
};

class TesterPort : public sc_core::sc_module, public EthPort {
 public:
  SC_HAS_PROCESS(TesterPort);
  /// Throws std::invalid_argument for a load outside (0, 1] or a zero batch.
  TesterPort(sc_core::sc_module_name name, const TrafficGenParams& p);
  /// Start sending copies of `frame` (bytes DA..payload, no FCS, sent as is) now. Throws
  /// std::invalid_argument for a frame shorter than 14 bytes, std::logic_error when not cabled
  /// or already started.
  void start(std::vector<uint8_t> frame);
  /// Start another burst of `frames` copies (0: endless) of the same frame now, as an operator
  /// starts the next run of a test (the counters keep counting). Throws std::logic_error when never
  /// started or when the previous burst is still being sent.
  void restart(uint64_t frames);
  /// Frames of the current burst not yet handed to the link.
  bool sending() const { return started_ && (p_.frames == 0 || burst_sent_ < p_.frames); }

  // EthPort
  void attach_link(EthLinkEnd* end) override { link_ = end; }
  void frame_received(const EthFrame&) override {
    ++received_;
    ++c_received_;
  }
  std::string port_name() const override { return name(); }
  std::optional<FrameTally> tally() const override;

  /// Period between frame starts at this port's link speed for the started frame (after start()).
  sc_time period() const;
  /// Frames put on the link so far (including those queued on it to start later).
  uint64_t sent() const { return sent_; }
  uint64_t received() const { return received_; }
  /// Frames whose start time is at or before absolute time `t` (the offered count up to `t`).
  uint64_t offered_by(const sc_time& t) const;

 private:
  void run();  // SC_METHOD on ev_
  TrafficGenParams p_;
  std::vector<uint8_t> frame_;
  bool started_ = false;
  sc_time t0_ = SC_ZERO_TIME;
  EthLinkEnd* link_ = nullptr;
  sc_core::sc_event ev_;
  uint64_t sent_ = 0, received_ = 0;
  uint64_t burst_sent_ = 0;  ///< frames of the current burst handed to the link
  uint64_t &c_sent_, &c_received_;  ///< counters "<name>.frames_sent", "<name>.frames_received"
};

}  // namespace nicsim
