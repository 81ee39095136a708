// A packetized chipset link between a north bridge and an I/O bridge. The defaults are Intel Hub
// Interface 2.0 between the E7500 MCH and a P64H2 (research/e7500-p64h2-pcix.md §1); the
// ServerWorks IMBus (CMIC to CIOB-X2) is the same model with its own width, clock and one pipe per
// direction (imbus_link_params(), models/chipset/serverworks_cmic.h).
//
// 16 data bits at 66.67 MHz × 8 transfers = 1.066 GB/s raw. Traffic is packetized: every packet
// carries a header and at most 64 bytes of data, so a read request is a header, a read completion
// or a posted write is ceil(n/64) packets. Both directions share the same data wires, so by
// default they share one pipe (parameter `shared_pipe`). Each packet reserves the pipe when its
// data is available, so the two P64H2 segments' traffic interleaves packet by packet; a packet
// reaches the far side `crossing_ns` after its last byte left (sync, queues, flight).
// I/O writes (PciSpaceExt, models/bus/pci.h) are non-posted: the request packet carries the data
// and a header-only completion packet comes back when the far side has completed it, as for a
// read (Hub Interface 2.0 carries completions for every non-posted request; PCI 2.2 §3.2.5).
// A posted write carrying a PostedTrainExt (models/bus/stream_timing.h: a bridge's tenure of posted
// pieces in one call) is carried piece by piece, each piece's packets reserved at its own time as
// a separate write would be; the far side gets the train once, each piece's time its arrival.
// Ordering: in each direction a packet that entered the link after another never overtakes it
// (posted writes stay in order; an interrupt message does not pass the DMA data before it).
//
// Sockets (TLM-2.0 blocking, annotated delay):
//   down_target   <- MCH hub port        (CPU MMIO, downstream)
//   down_initiator-> bridge hub target
//   up_target     <- bridge hub initiator (DMA, interrupt messages, upstream)
//   up_initiator  -> MCH hub port target
//   eoi_in / eoi_out: EOI special cycles from the MCH to the bridge's I/OxAPICs.
#pragma once
#include "core/interval_resource.h"
#include "core/units.h"
#include "models/bus/irq.h"
#include <deque>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace nicsim {

struct HubLinkParams {
  unsigned width_bits = 16;          ///< two byte lanes [S2] research §1
  double clock_mhz = 200.0 / 3.0;    ///< CLK66 (66.67 MHz) [S2]
  unsigned transfers_per_clock = 8;  ///< 8× data rate: 1.066 GB/s per port [S2][S4][S49]
  unsigned header_bytes = 8;         ///< estimate: research §1 says 8–16 B; low end: payload cap 948 MB/s vs 985 MB/s read+write measured on an unnamed chipset [S32]
  unsigned max_payload_bytes = 64;   ///< estimate: research §1: ≤64 B of data per packet
  bool shared_pipe = true;           ///< estimate: research §1: one half-duplex pipe for both directions (same wires [S2])
  double crossing_ns = 100.0;        ///< estimate: research §1: 50–150 ns per crossing; calibrated once vs CPU MMIO read 0.7–0.9 µs (§4)
};

class HubLink : public sc_core::sc_module {
 public:
  enum class Dir { Up = 0, Down = 1 };  ///< Up = towards the MCH

  tlm_utils::simple_target_socket<HubLink> down_target;
  tlm_utils::simple_initiator_socket<HubLink> down_initiator;
  tlm_utils::simple_target_socket<HubLink> up_target;
  tlm_utils::simple_initiator_socket<HubLink> up_initiator;
  sc_core::sc_export<eoi_if> eoi_in;
  sc_core::sc_port<eoi_if> eoi_out;

  HubLink(sc_core::sc_module_name name, const HubLinkParams& p = {});

  /// Wire time in the pipe of `payload_bytes` of data (0 = a header-only packet), headers included.
  sc_time wire_time(uint32_t payload_bytes) const;
  /// Packets needed for `payload_bytes` (at least 1).
  unsigned packets(uint32_t payload_bytes) const;
  /// Raw rate in MB/s (width × clock × transfers: 1066.7) and the payload rate of full packets.
  double raw_mb_per_s() const;
  double payload_mb_per_s() const;
  const HubLinkParams& params() const { return p_; }
  const IntervalResource& pipe(Dir d) const { return p_.shared_pipe ? pipes_[0] : pipes_[int(d)]; }

  struct Sent {
    sc_time start;       ///< first packet starts on the wires
    sc_time first_end;   ///< first packet's last byte leaves
    sc_time last_end;    ///< last packet's last byte leaves
  };
  /// Reserve the pipe for a transfer of `payload_bytes` in direction `d` whose data becomes
  /// available linearly between absolute times `first_avail` (first packet's data) and
  /// `last_avail` (last packet's data). Used by the sockets; public for test benches.
  Sent send(Dir d, uint32_t payload_bytes, const sc_time& first_avail, const sc_time& last_avail);

 private:
  struct EoiForwarder : eoi_if {
    HubLink* owner = nullptr;
    void eoi(unsigned vector, const sc_core::sc_time& delay) override { owner->forward_eoi(vector, delay); }
  };
  void b_down(tlm::tlm_generic_payload& trans, sc_time& delay);
  void b_up(tlm::tlm_generic_payload& trans, sc_time& delay);
  /// Debug transport upstream (fast mode, models/bus/dma_engine.h): to the MCH, no packets.
  unsigned dbg_up(tlm::tlm_generic_payload& trans) { return up_initiator->transport_dbg(trans); }
  void carry(Dir d, tlm_utils::simple_initiator_socket<HubLink>& out, tlm::tlm_generic_payload& trans,
             sc_time& delay);
  void forward_eoi(unsigned vector, const sc_time& delay);
  IntervalResource& pipe_mut(Dir d) { return p_.shared_pipe ? pipes_[0] : pipes_[int(d)]; }

  HubLinkParams p_;
  IntervalResource pipes_[2];
  struct Order {
    sc_time entry, end;
  };
  std::deque<Order> order_[2];  ///< per direction: recent packets' entry and wire-end times
  struct OrderMax {
    sc_time entry = SC_ZERO_TIME, end = SC_ZERO_TIME;
  };
  OrderMax order_max_[2];  ///< per direction: latest entry and latest end of every transfer so far
  EoiForwarder eoi_fwd_;
  sc_time crossing_;
  std::vector<sc_time> packet_time_;  ///< wire_time(b) of one packet of b = 0..max_payload_bytes, computed once
  uint64_t &c_up_bytes_, &c_down_bytes_, &c_packets_;
  /// Time each pipe carried packets: counter `<name>.busy_ns` for the one shared pipe, or
  /// `<name>.up_busy_ns` and `<name>.down_busy_ns` for one pipe per direction (index as pipes_).
  uint64_t* c_busy_ns_[2];
  double busy_ns_[2] = {0, 0};
};

}  // namespace nicsim
