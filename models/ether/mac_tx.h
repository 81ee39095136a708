// The MAC/PHY pipelines shared by the 8255x (models/nic/i8255x) and BCM5701 (models/nic/tg3) models.
//
// MacTxQueue: the transmit side of a MAC that sends whole frames in order, one at a time. A queued frame starts on the
// wire `pipeline` after it was queued (the MAC + PHY transmit latencies) or when the wire is free,
// whichever is later (journey mark "MAC TX" with cause "wire busy" at the earliest start when it
// waited); its `sent` callback runs when its last bit has left. (The 8254x model keeps its own loop:
// 802.3x PAUSE frames jump its queue.)
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
  /// Queue `f` now; `sent` (may be empty) runs when its last bit has left.
  void queue(EthFrame f, std::function<void()> sent);
  /// Drop the frames not yet started (a device reset); those on the wire complete.
  void clear_queued() { q_.clear(); }
  size_t queued() const { return q_.size(); }

 private:
  void run();
  struct Ready { EthFrame f; sc_time ready; std::function<void()> sent; };
  struct Sent { sc_time end; std::function<void()> sent; };
  std::string where_;
  sc_time pipeline_;
  EthLinkEnd* link_ = nullptr;
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
  struct Arrival { sc_time at; EthFrame f; };
  std::string where_;
  sc_time latency_;
  std::function<void(const EthFrame&)> deliver_;
  sc_core::sc_event ev_;
  std::deque<Arrival> q_;
};

}  // namespace nicsim
