// A store-and-forward Ethernet switch (a 2005 unmanaged/smart gigabit switch: the box between a
// traffic source and the router in seed 003) with N full-duplex ports.
//
// Forwarding (IEEE 802.1D-style transparent bridge, no VLANs, no spanning tree):
//  - A frame is stored whole: forwarding starts from its last bit at the ingress port (the FCS
//    has been checked). It is then in its egress port's output queue; it may start on the egress
//    wire `forwarding_latency` after its arrival (lookup and fabric), when the wire is free and the
//    port is not paused. Unloaded, a frame's last bit therefore leaves the egress port
//        forwarding_latency + serialization_time(len) after it arrived
//    (switch_unloaded_latency below), and its first bit left forwarding_latency after the
//    arrival of its last bit at the ingress port.
//  - Destination: a static entry (add_static) or a learned one (the SA of every unicast frame
//    received on a port is learned on that port; no ageing: runs are seconds); unknown unicast,
//    multicast and broadcast destinations are flooded to every other port. A frame whose
//    destination is its own ingress port is filtered (802.1D). MAC Control frames (type 0x8808,
//    models/ether/pause.h) are consumed by the port, never forwarded.
//  - Buffer: one shared packet memory of `buffer_kb` (dynamic allocation across ports, as the
//    GarrettCom Magnum manuals describe it), in cells of `cell_bytes`; a frame takes
//    ceil(max(len + 4, 64) / cell_bytes) cells from its arrival until its last bit has left; a
//    port's output queue may be capped at `port_queue_kb` (0: the shared memory only). A frame for
//    which there is no room is dropped at arrival, counted "output queue full" on the egress port.
//  - 802.3x on egress (`obey_pause`, Annex 31B.3): a PAUSE received on a port stops that port's
//    output for pause_time × 512 bit times (models/ether/link.h pause_duration) after the frame in
//    progress; pause_time 0 (XON) resumes at once; a new PAUSE restarts the timer.
//  - 802.3x on ingress congestion (`send_pause`, per port, off by default): when the frames that
//    arrived on an input port and are still in the buffer hold `pause_on_kb` or more, that port
//    sends a PAUSE of `pause_quanta` to its link partner (ahead of its queued data, 802.3 §31.5.3);
//    when they are down to `pause_off_kb` or less it sends XON (pause_time 0). The XOFF is not
//    refreshed while the input stays above the threshold (a partner that ignores it keeps sending).
//  - Obeying and sending are per port (set_flow_control), as a managed switch configures 802.3x
//    per port; SwitchParams gives every port's default.
//
// Counters (sim().counters, registered at construction, "<instance>.port<i>.<name>"): frames_in,
// frames_out, frames_forwarded (stored into at least one output queue), pause_rx (PAUSE frames
// received), pause_tx (PAUSE frames sent, XON included), drop_queue_full (frames for this port's
// output queue dropped: no room), drop_filtered (destination = ingress port), consumed_control
// (MAC Control frames other than PAUSE, or PAUSE with obey_pause off). EthPort::tally() gives the
// same for the run's frame accounting.
//
// Speed (the "fast drop path" through a switch): a tester's periodic train (EthLinkEnd::
// transmit_train) whose frames go to one idle egress port of the same speed passes through as a
// train: the ingress port holds it (EthRxFeed::hold) and the egress port commits what the link has
// scheduled (EthRxFeed::peek) as a train on its own link, starting forwarding_latency after each
// arrival, one event per tester batch instead of one per frame, so the router's e1000 can hold it
// too and count its overruns in closed form. The results are those of frame-by-frame forwarding:
// anything that would make a frame wait (another frame for that egress port, a PAUSE) first takes
// back the committed frames that have not started (EthLinkEnd::retract_train) and the switch goes
// on frame by frame; frames for a full output queue are likewise dropped as a count while nothing
// frees memory. (A frame passing through holds one frame's cells in the real switch; the model
// does not count them in the shared memory while it passes.)
//
// ---- Contract for testbeds (seed 003: source -> switch -> router -> switch -> sink) ----------
//   EthSwitch sw("switch0", n_ports, SwitchParams{...});   // during elaboration
//   tb.cable_equipment("switch0.link2", sw_ptr, sw.port(2), "switch0.port2", "router.eth0:0", 1000, 2.0);
//   tb.cable_equipment_pair("switch0.link0", src_ptr, src, "source0", sw_ptr, sw.port(0), "switch0.port0", 1000, 2.0);
//   sw.add_static(router_eth0_mac, 2);   // or let it learn (flooding until the router has sent)
// Static entries for the router's ports avoid flooding the first frames to every port (a real
// switch learns the router's MAC from its ARP traffic before pktgen starts; the model's static
// neighbours send none). The sources and sinks are TesterPorts (models/ether/traffic_gen.h).
#pragma once
#include "core/units.h"
#include "models/ether/frame.h"
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <systemc>
#include <unordered_map>
#include <vector>

namespace nicsim {

struct SwitchParams {
  /// End of reception to start of transmission, unloaded. estimate: 880 ns is TI's published
  /// store-and-forward latency of its CPSW gigabit switch (SPRUJ52C table 12-130, defined exactly
  /// so: end of packet reception to start of the output packet transmit); no 2005 desktop switch
  /// figure was found (GarrettCom's 2005 Magnum 4K16 quotes 5 us plus the frame time at 100 Mb/s).
  sc_time forwarding_latency = ns(880);
  /// Shared packet memory. Source: Netgear FS726T listing (2005 smart switch, 2 gigabit ports):
  /// "256 KB" of switch buffer memory (pastebin.com/bvADUpZG); the seed's switch is not named.
  unsigned buffer_kb = 256;
  /// Allocation unit of the packet memory. estimate: 128-byte cells, the common unit of switch
  /// chips of the time; a minimum frame takes one.
  unsigned cell_bytes = 128;
  /// Cap of one output queue (KB; 0 = only the shared memory limits it). estimate: 0.
  unsigned port_queue_kb = 0;
  /// Obey received PAUSE frames on egress (the seed: "The switch i have in the middle obeys flow
  /// control").
  bool obey_pause = true;
  /// Send PAUSE on ingress congestion (see the header). estimate: off (an unmanaged switch's
  /// default is vendor-specific).
  bool send_pause = false;
  /// estimate: XOFF when an input's frames in the buffer hold this much (1/8 of the memory: room
  /// for the frames still coming during the partner's reaction, 802.3 Annex 31B.3.7 allows it 512
  /// bit times after the PAUSE has arrived, plus the frames already on the wire).
  unsigned pause_on_kb = 32;
  unsigned pause_off_kb = 16;     ///< estimate: XON when that input's frames are down to this much
  uint16_t pause_quanta = 0xFFFF; ///< estimate: pause_time of the XOFF it sends (maximum)
  /// Station address of port i is base_mac with the last octet + i (source of the PAUSE frames it
  /// sends). estimate: any unicast address.
  std::array<uint8_t, 6> base_mac = {0x00, 0x0f, 0x66, 0x00, 0x00, 0x00};
};

/// Time from the last bit of a `frame_len`-byte frame arriving at an idle switch to its last bit
/// leaving the egress port (no other traffic, no pause): forwarding_latency + serialization_time.
sc_time switch_unloaded_latency(const SwitchParams& p, unsigned frame_len, unsigned speed_mbps);
/// Cells a frame of `frame_len` bytes (DA..payload, no FCS) takes: ceil(max(len + 4, 64) / cell).
unsigned switch_cells(unsigned frame_len, unsigned cell_bytes);

class EthSwitch : public sc_core::sc_module {
 public:
  /// Throws std::invalid_argument for fewer than 2 ports, a zero cell size, a buffer smaller than
  /// one maximum frame, or pause_off_kb > pause_on_kb.
  EthSwitch(sc_core::sc_module_name name, unsigned ports, const SwitchParams& p);
  ~EthSwitch() override;

  unsigned ports() const { return static_cast<unsigned>(ports_.size()); }
  /// Port `i` (an EthPort to cable). Throws std::out_of_range.
  EthPort& port(unsigned i);
  const SwitchParams& params() const { return p_; }
  /// Frames to `mac` go out of port `port` (a static entry; learning does not move it).
  void add_static(const std::array<uint8_t, 6>& mac, unsigned port);
  /// Port `i`'s 802.3x settings: obey received PAUSE frames on its output, send PAUSE when its
  /// input crosses pause_on_kb. Throws std::out_of_range. Call before the traffic starts.
  void set_flow_control(unsigned i, bool obey_pause, bool send_pause);
  /// The port `mac` is reached through, or -1 when unknown (flooded).
  int lookup(const std::array<uint8_t, 6>& mac) const;

  /// Cells of the shared memory in use now / in total.
  unsigned cells_used() const { return cells_used_; }
  unsigned cells_total() const { return cells_total_; }
  /// Frames waiting in (or being sent from) port i's output queue.
  size_t queued(unsigned i) const;
  /// True while port i's output is paused by a PAUSE it received.
  bool paused(unsigned i) const;
  /// True while port i passes a held train through (the fast path; for tests).
  bool passing_through(unsigned i) const;

  class Port;

 private:
  friend class Port;
  void route(Port& in, const EthFrame& f);
  bool room_for(unsigned egress, unsigned cells) const;
  void memory_changed();
  void settle_drop_holds(const Port* except);
  SwitchParams p_;
  std::vector<std::unique_ptr<Port>> ports_;
  std::unordered_map<uint64_t, std::pair<unsigned, bool>> fdb_;  ///< MAC -> (port, static)
  unsigned cells_total_ = 0, cells_used_ = 0;
  unsigned pause_on_cells_ = 0, pause_off_cells_ = 0;
};

}  // namespace nicsim
