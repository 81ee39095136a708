// The MAC/PHY pipelines shared by the 8255x (models/nic/i8255x) and BCM5701 (models/nic/tg3) models.
//
// MacTxQueue: the transmit side of a MAC that sends whole frames in order, one at a time. A queued frame starts on the
// wire `pipeline` after it was queued (the MAC + PHY transmit latencies) or when the wire is free,
// whichever is later (journey mark "MAC TX" with cause "wire busy" at the earliest start when it
// waited); its `sent` callback runs when its last bit has left.
// 802.3x flow control (IEEE 802.3 Annex 31B.3): pause()/pause_until() hold data frames that have not
// started (a frame already on the wire completes); the cause of the wait is then "PAUSE". Control
// frames (queue_control: PAUSE frames the MAC sends) go ahead of the queued data frames and ignore a
// pause (802.3 §31.5.3). (The 8254x model keeps its own loop with the same rules and shares the
// PAUSE frame helpers of models/ether/pause.h.)
#pragma once
#include "models/ether/frame.h"
#include <deque>
#include <functional>
#include <string>
#include <systemc>

namespace nicsim {

class MacTxQueue {
 public:
  /// `where`: the port's name for journey marks. `pipeline`: queueing to the earliest wire start.
  /// Spawns an SC_METHOD "mac" under the module being constructed: construct it during
  /// elaboration inside the device's constructor.
  MacTxQueue(std::string where, sc_time pipeline);
  MacTxQueue(const MacTxQueue&) = delete;
  MacTxQueue& operator=(const MacTxQueue&) = delete;

  void set_link(EthLinkEnd* l) { link_ = l; }
  /// Queue data frame `f` now; `sent` (may be empty) runs when its last bit has left.
  void queue(EthFrame f, std::function<void()> sent);
  /// Queue MAC control frame `f` now (e.g. make_pause_frame): it goes behind the control frames
  /// already queued and ahead of every queued data frame, and a pause does not hold it (802.3
  /// §31.5.3). It still waits for the pipeline latency and for the frame on the wire.
  void queue_control(EthFrame f, std::function<void()> sent);
  /// A received PAUSE with `quanta` × 512 bit times at the link's speed (models/ether/link.h
  /// pause_duration; 1000 Mb/s before a link is attached): data frames do not start before now +
  /// that. It replaces any pause in force (802.3 Annex 31B.3.1: a new pause_time restarts the
  /// timer), so 0 (XON) resumes at once.
  void pause(unsigned quanta);
  /// Data frames do not start before absolute time `t` (replacing any earlier pause; a `t` at or
  /// before now ends it).
  void pause_until(const sc_time& t);
  /// The end of the pause in force (a time at or before now when there is none).
  sc_time paused_until() const { return pause_until_; }
  /// True while a pause holds data frames.
  bool paused() const;
  /// Hold every frame not yet started while `h` (the PHY has no link: a MAC without link sends
  /// nothing; the port's model says why); false lets them go in order.
  void hold(bool h);
  bool held() const { return held_; }
  /// Drop the frames not yet started (a device reset); those on the wire complete.
  void clear_queued() { q_.clear(); }
  size_t queued() const { return q_.size(); }

 private:
  void run();
  struct Ready { EthFrame f; sc_time ready; std::function<void()> sent; bool control = false; };
  struct Sent { sc_time end; std::function<void()> sent; };
  std::string where_;
  sc_time pipeline_;
  EthLinkEnd* link_ = nullptr;
  sc_time pause_until_ = SC_ZERO_TIME;
  bool held_ = false;
  sc_core::sc_event ev_;
  std::deque<Ready> q_;
  std::deque<Sent> sent_;
};

/// MacRxPipeline: frames whose last bit has arrived at the port reach the MAC's receive logic
/// (address filter, FIFO) `latency` later (the PHY + MAC receive latencies), in arrival order. The
/// port's frame_received calls arrived(); journey mark "MAC RX" then.
class MacRxPipeline {
 public:
  /// `deliver` is called with each frame at its time. Spawns an SC_METHOD "arrive" under the module
  /// being constructed.
  MacRxPipeline(std::string where, sc_time latency, std::function<void(const EthFrame&)> deliver);
  MacRxPipeline(const MacRxPipeline&) = delete;
  MacRxPipeline& operator=(const MacRxPipeline&) = delete;

  void arrived(const EthFrame& f);
  /// A frame that arrived with a bad FCS: it goes through the same pipeline and reaches
  /// `deliver_bad` (set_bad_fcs) in its turn, where the MAC's FCS check drops and counts it.
  void arrived_bad_fcs(const EthFrame& f);
  void set_bad_fcs(std::function<void(const EthFrame&)> deliver_bad) { deliver_bad_ = std::move(deliver_bad); }
  /// Frames in the pipeline (not yet delivered).
  size_t held() const { return q_.size(); }
  /// Drop the frames in the pipeline (a device reset); returns how many.
  size_t clear() {
    const size_t n = q_.size();
    q_.clear();
    return n;
  }

 private:
  void run();
  struct Arrival { sc_time at; EthFrame f; bool bad_fcs = false; };
  std::string where_;
  sc_time latency_;
  std::function<void(const EthFrame&)> deliver_, deliver_bad_;
  sc_core::sc_event ev_;
  std::deque<Arrival> q_;
};

}  // namespace nicsim
