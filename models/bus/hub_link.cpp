#include "models/bus/hub_link.h"
#include "core/sim_context.h"
#include "models/bus/pci.h"
#include "models/bus/stream_timing.h"
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace nicsim {

HubLink::HubLink(sc_core::sc_module_name name, const HubLinkParams& p)
    : sc_module(name),
      down_target("down_target"),
      down_initiator("down_initiator"),
      up_target("up_target"),
      up_initiator("up_initiator"),
      eoi_in("eoi_in"),
      eoi_out("eoi_out"),
      p_(p),
      pipes_{IntervalResource(std::string(this->name()) + (p.shared_pipe ? ".pipe" : ".up")),
             IntervalResource(std::string(this->name()) + ".down")},
      crossing_(ns(p.crossing_ns)),
      c_up_bytes_(sim().counters.at(std::string(this->name()) + ".up_payload_bytes")),
      c_down_bytes_(sim().counters.at(std::string(this->name()) + ".down_payload_bytes")),
      c_packets_(sim().counters.at(std::string(this->name()) + ".packets")),
      c_busy_ns_{&sim().counters.at(std::string(this->name()) + (p.shared_pipe ? ".busy_ns" : ".up_busy_ns")),
                 p.shared_pipe ? nullptr : &sim().counters.at(std::string(this->name()) + ".down_busy_ns")} {
  down_target.register_b_transport(this, &HubLink::b_down);
  up_target.register_b_transport(this, &HubLink::b_up);
  up_target.register_transport_dbg(this, &HubLink::dbg_up);
  eoi_fwd_.owner = this;
  eoi_in.bind(eoi_fwd_);
  if (p_.max_payload_bytes == 0) throw std::invalid_argument(std::string(this->name()) + ": max_payload_bytes must be > 0");
  packet_time_.reserve(p_.max_payload_bytes + 1);
  for (uint32_t b = 0; b <= p_.max_payload_bytes; ++b) packet_time_.push_back(wire_time(b));
}

unsigned HubLink::packets(uint32_t payload_bytes) const {
  return payload_bytes == 0 ? 1 : (payload_bytes + p_.max_payload_bytes - 1) / p_.max_payload_bytes;
}

double HubLink::raw_mb_per_s() const { return p_.width_bits / 8.0 * p_.clock_mhz * p_.transfers_per_clock; }

double HubLink::payload_mb_per_s() const {
  return raw_mb_per_s() * p_.max_payload_bytes / double(p_.max_payload_bytes + p_.header_bytes);
}

sc_time HubLink::wire_time(uint32_t payload_bytes) const {
  double bytes = double(payload_bytes) + double(packets(payload_bytes)) * p_.header_bytes;
  return sec(bytes / (raw_mb_per_s() * 1e6));
}

HubLink::Sent HubLink::send(Dir d, uint32_t payload_bytes, const sc_time& first_avail, const sc_time& last_avail) {
  auto& order = order_[int(d)];
  const sc_time t_now = now();
  while (!order.empty() && order.front().end <= t_now) order.pop_front();
  // FIFO within the direction: not before any packet that entered the link earlier.
  sc_time floor = SC_ZERO_TIME;
  OrderMax& mx = order_max_[int(d)];
  if (first_avail >= mx.entry && first_avail >= t_now) {
    // Every transfer so far entered no later than this one: the floor is the latest end of them
    // all (one that ended by now ends before `first_avail` and so cannot move this transfer).
    floor = mx.end;
  } else {
    for (auto& o : order)
      if (o.entry <= first_avail && o.end > floor) floor = o.end;
  }

  IntervalResource& pipe = pipe_mut(d);
  unsigned n = packets(payload_bytes);
  Sent s;
  sc_time prev_end = floor;
  uint32_t left = payload_bytes;
  for (unsigned k = 0; k < n; ++k) {
    uint32_t chunk = std::min<uint32_t>(left, p_.max_payload_bytes);
    left -= chunk;
    sc_time avail = first_avail;
    if (n > 1 && last_avail > first_avail) avail = first_avail + (last_avail - first_avail) * (double(k) / (n - 1));
    if (k == n - 1 && last_avail > avail) avail = last_avail;
    sc_time earliest = std::max(avail, prev_end);
    const sc_time& w = packet_time_[chunk];
    Grant g = pipe.reserve(earliest, w);
    busy_ns_[p_.shared_pipe ? 0 : int(d)] += to_ns(w);
    if (k == 0) {
      s.start = g.start;
      s.first_end = g.end;
    }
    prev_end = g.end;
  }
  c_packets_ += n;
  const int bi = p_.shared_pipe ? 0 : int(d);
  *c_busy_ns_[bi] = static_cast<uint64_t>(std::llround(busy_ns_[bi]));
  s.last_end = prev_end;
  if (sim().trace.enabled())
    sim().trace.span(std::string(name()) + (d == Dir::Up ? " up" : " down"), std::to_string(payload_bytes) + " B", s.start,
                     s.last_end);
  order.push_back({first_avail, s.last_end});
  mx.entry = std::max(mx.entry, first_avail);
  mx.end = std::max(mx.end, s.last_end);
  (d == Dir::Up ? c_up_bytes_ : c_down_bytes_) += payload_bytes;
  return s;
}

void HubLink::carry(Dir d, tlm_utils::simple_initiator_socket<HubLink>& out, tlm::tlm_generic_payload& trans,
                    sc_time& delay) {
  const Dir back = d == Dir::Up ? Dir::Down : Dir::Up;
  const sc_time t0 = now() + delay;
  const uint32_t len = trans.get_data_length();
  StreamExtGuard ext(trans);
  if (trans.is_write() && is_io_space(trans)) {
    // Non-posted write: request with data out, header-only completion back when the far side is done.
    Sent req = send(d, len, t0, t0);
    ext->has_first_data = false;
    ext->has_sent_end = false;
    sc_time d2 = req.last_end + crossing_ - now();
    out->b_transport(trans, d2);
    const sc_time done_far = now() + d2;
    Sent comp = send(back, 0, done_far, done_far);
    ext->sent_end = req.last_end;
    ext->has_sent_end = true;
    delay = comp.last_end + crossing_ - now();
    return;
  }
  if (trans.is_write()) {
    if (auto* train = trans.get_extension<PostedTrainExt>()) {
      // A posted train: each piece's packets reserved as if it were its own write (same order,
      // same times), then the pieces go on to the far side together, each at its arrival there.
      for (auto& pc : train->pieces) {
        Sent s = send(d, pc.bytes, pc.at, pc.at);
        pc.sent_end = s.last_end;
        pc.at = s.last_end + crossing_;
      }
      ext->has_first_data = false;
      ext->has_sent_end = false;
      sc_time d2 = train->pieces.front().at - now();
      out->b_transport(trans, d2);
      ext->sent_end = train->pieces.back().sent_end;
      ext->has_sent_end = true;
      delay = d2;
      return;
    }
    Sent s = send(d, len, t0, t0);
    ext->has_first_data = false;
    ext->has_sent_end = false;
    sc_time d2 = s.last_end + crossing_ - now();
    out->b_transport(trans, d2);
    ext->sent_end = s.last_end;
    ext->has_sent_end = true;
    delay = d2;
    return;
  }
  // Read: request packet out, completion packets back.
  Sent req = send(d, 0, t0, t0);
  ext->has_first_data = false;
  ext->has_sent_end = false;
  sc_time d2 = req.last_end + crossing_ - now();
  out->b_transport(trans, d2);
  sc_time last_far = now() + d2;
  sc_time first_far = ext->has_first_data ? ext->first_data : last_far;
  uint32_t comp_bytes = trans.get_response_status() == tlm::TLM_OK_RESPONSE ? len : 0;
  Sent comp = send(back, comp_bytes, first_far, last_far);
  ext->first_data = comp.first_end + crossing_;
  ext->has_first_data = true;
  ext->sent_end = req.last_end;
  ext->has_sent_end = true;
  delay = comp.last_end + crossing_ - now();
}

void HubLink::b_down(tlm::tlm_generic_payload& trans, sc_time& delay) { carry(Dir::Down, down_initiator, trans, delay); }
void HubLink::b_up(tlm::tlm_generic_payload& trans, sc_time& delay) { carry(Dir::Up, up_initiator, trans, delay); }

void HubLink::forward_eoi(unsigned vector, const sc_time& delay) {
  sc_time t0 = now() + delay;
  Sent s = send(Dir::Down, 0, t0, t0);  // EOI special cycle: a header-only packet
  eoi_out->eoi(vector, s.last_end + crossing_ - now());
}

}  // namespace nicsim
