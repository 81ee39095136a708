#include "models/bridge/pcix_bridge.h"
#include "models/bus/payload.h"
#include "core/sim_context.h"
#include "models/bus/stream_timing.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace nicsim {

static uint64_t& counter(const std::string& prefix, const char* name) { return sim().counters.at(prefix + "." + name); }

PcixBridge::PcixBridge(sc_core::sc_module_name name, const PcixBridgeParams& p, const PciSegmentParams& seg_a,
             const PciSegmentParams& seg_b, const IoxApicParams& apic)
    : sc_module(name), hub_target("hub_target"), hub_initiator("hub_initiator"), eoi_in("eoi_in"), p_(p) {
  if (p_.posted_chunk_bytes == 0 || p_.posted_write_buffer_bytes < p_.posted_chunk_bytes)
    throw std::invalid_argument("PcixBridgeParams: posted buffer smaller than one chunk");
  hub_target.register_b_transport(this, &PcixBridge::b_outbound);
  eoi_in.bind(*this);
  const PciSegmentParams* sp[2] = {&seg_a, &seg_b};
  for (int k = 0; k < 2; ++k) {
    std::string L = sp[k]->label;
    seg_[k] = std::make_unique<PciSegment>(("seg" + L).c_str(), *sp[k]);
    if (p_.ioxapic_per_segment || k == 0)
      apic_[k] = std::make_unique<IoxApic>((p_.ioxapic_per_segment ? "ioxapic" + L : std::string("ioxapic")).c_str(), apic);
    from_seg_[k] = std::make_unique<tlm_utils::simple_target_socket_tagged<PcixBridge>>(("from_seg" + L).c_str());
    to_seg_[k] = std::make_unique<tlm_utils::simple_initiator_socket<PcixBridge>>(("to_seg" + L).c_str());
    if (apic_[k])
      from_apic_[k] = std::make_unique<tlm_utils::simple_target_socket_tagged<PcixBridge>>(("from_apic" + L).c_str());
    from_seg_[k]->register_b_transport(this, &PcixBridge::b_inbound, k);
    from_seg_[k]->register_transport_dbg(this, &PcixBridge::dbg_inbound, k);
    if (apic_[k]) from_apic_[k]->register_b_transport(this, &PcixBridge::b_apic, k);
    seg_[k]->upstream.bind(*from_seg_[k]);
    to_seg_[k]->bind(seg_[k]->mmio_target);
    if (apic_[k]) apic_[k]->msg_out.bind(*from_apic_[k]);
    const std::string& pre = seg_[k]->counter_prefix();
    SegState& s = st_[k];
    s.c_delayed_retries = &counter(pre, "delayed_transaction_retries");
    s.c_delayed_reads = &counter(pre, "delayed_reads");
    if (p_.target_initial_latency_clocks > 0) s.c_wait_state_reads = &counter(pre, "wait_state_reads");
    s.c_split_responses = &counter(pre, "split_responses");
    s.c_split_retries = &counter(pre, "split_queue_full_retries");
    s.c_split_completions = &counter(pre, "split_completions");
    s.c_posted_disconnects = &counter(pre, "posted_buffer_disconnects");
    s.c_posted_retries = &counter(pre, "posted_buffer_retries");
    s.c_prefetch_discarded = &counter(pre, "prefetch_discarded_bytes");
  }
}

void PcixBridge::set_window(unsigned i, uint64_t base, uint64_t size) {
  st_[i].base = base;
  st_[i].size = size;
}

void PcixBridge::set_io_window(unsigned i, uint64_t base, uint64_t size) {
  check(i);
  if (base % kIoWindowGranularity || size % kIoWindowGranularity || base + size > kIoSpaceBytes)
    throw std::invalid_argument(std::string(name()) + ": I/O window [" + std::to_string(base) + ", +" +
                                std::to_string(size) +
                                ") must be 4 KB aligned, a multiple of 4 KB and inside the 64 KB I/O space "
                                "(82870P2 DS 4.4.1)");
  st_[i].io_base = base;
  st_[i].io_size = size;
}

void PcixBridge::eoi(unsigned vector, const sc_core::sc_time& delay) {
  for (auto& a : apic_)
    if (a) a->eoi(vector, delay + ns(p_.eoi_forward_ns));
}

// ---------------------------------------------------------------- outbound (CPU MMIO)

void PcixBridge::b_outbound(tlm::tlm_generic_payload& trans, sc_time& delay) {
  const uint64_t addr = trans.get_address();
  const bool io = is_io_space(trans);
  int k = -1;
  for (int i = 0; i < 2; ++i) {
    const uint64_t base = io ? st_[i].io_base : st_[i].base, size = io ? st_[i].io_size : st_[i].size;
    if (size && addr >= base && addr - base < size) k = i;
  }
  if (k < 0) {
    if (trans.is_read()) std::memset(trans.get_data_ptr(), 0xFF, trans.get_data_length());
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  PciSegment& seg = *seg_[k];
  SegState& s = st_[k];
  // Requests leave in arrival order (no outbound prefetch, no reordering).
  sc_time t = std::max(now() + delay + seg.clocks(p_.outbound_request_clocks), s.out_last_start);
  s.out_last_start = t;
  sc_time d = t - now();
  if (trans.is_read() || io) {
    // Reads, and I/O writes (non-posted): the completion returns to the hub interface.
    (*to_seg_[k])->b_transport(trans, d);
    delay = d + seg.clocks(p_.completion_return_clocks);
  } else {
    // Posted: the bridge accepted the write on arrival; it reaches the device later.
    (*to_seg_[k])->b_transport(trans, d);
    if (trans.get_response_status() != tlm::TLM_ADDRESS_ERROR_RESPONSE) trans.set_response_status(tlm::TLM_OK_RESPONSE);
  }
}

// ---------------------------------------------------------------- interrupt messages

void PcixBridge::b_apic(int seg, tlm::tlm_generic_payload& trans, sc_time& delay) {
  sc_time d = delay + ns(p_.apic_message_ns);
  hub_initiator->b_transport(trans, d);
  delay = d;
}

// ---------------------------------------------------------------- inbound (DMA)

void PcixBridge::b_inbound(int k, tlm::tlm_generic_payload& trans, sc_time& delay) {
  sc_time t0 = now() + delay;
  sc_time end;
  if (trans.get_data_length() == 0) {
    trans.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  if (is_io_space(trans)) {  // no inbound I/O crosses the bridge: master abort (82870P2 DS §4.4.1, §4.2.9)
    if (trans.is_read()) std::memset(trans.get_data_ptr(), 0xFF, trans.get_data_length());
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  const Inbound in = inbound(static_cast<unsigned>(k), trans);
  if (trans.is_write())
    end = inbound_write(in, t0);
  else if (in.seg.mode().pcix)
    end = inbound_split_read(in, t0);
  else
    end = inbound_delayed_read(in, t0);
  delay = end - now();
}

unsigned PcixBridge::dbg_inbound(int, tlm::tlm_generic_payload& trans) {
  if (is_io_space(trans)) return 0;
  return hub_initiator->transport_dbg(trans);
}

PcixBridge::Inbound PcixBridge::inbound(unsigned k, tlm::tlm_generic_payload& trans) {
  const auto* req = trans.get_extension<PciRequesterExt>();
  const auto* x = trans.get_extension<PciTxnExt>();
  return {k,
          req ? req->master : 0,
          *seg_[k],
          st_[k],
          trans,
          x,
          x ? x->journey : 0,
          x && *x->what ? x->what : trans.is_write() ? "DMA write" : "DMA read",
          trans.get_address(),
          trans.get_data_length(),
          trans.get_data_ptr()};
}

PcixBridge::FirstTenure PcixBridge::first_tenure(const PciSegment& seg, unsigned m, PciCommand cmd, uint64_t addr,
                                                 uint32_t len, const sc_time& at) {
  PciBurstSpec spec = seg.burst_spec(m, cmd, addr, len, true);
  if (seg.contended(m, at)) spec.latency_timer_clocks = seg.params().latency_timer_clocks;
  const PciBurstTiming bt = seg.burst_clocks(spec);
  FirstTenure f{bt.phases.front(), bt.tenure_bytes.front(), {}, {}};
  f.pl = seg.plan(m, at, f.ph.total());
  f.data_start = f.pl.start + seg.clocks(f.pl.arbitration + f.ph.to_first_data());
  return f;
}

uint32_t PcixBridge::occupancy(SegState& s, const sc_time& t) const {
  uint32_t occ = 0;
  for (auto& p : s.posted)
    if (p.entry <= t && p.drained > t) occ += p.bytes;
  return occ;
}

sc_time PcixBridge::room_at(SegState& s, const sc_time& t, uint32_t need) const {
  if (occupancy(s, t) + need <= p_.posted_write_buffer_bytes) return t;
  std::vector<sc_time> ends;
  for (auto& p : s.posted)
    if (p.drained > t) ends.push_back(p.drained);
  std::sort(ends.begin(), ends.end());
  for (auto& e : ends)
    if (occupancy(s, e) + need <= p_.posted_write_buffer_bytes) return e;
  return ends.empty() ? t : ends.back();
}

sc_time PcixBridge::inbound_write(const Inbound& in, const sc_time& t0) {
  const auto& [k, m, seg, s, trans, x, j, what, A, N, data] = in;
  PciCommand cmd = x && x->cmd == PciCommand::MemWriteInvalidate ? PciCommand::MemWriteInvalidate : PciCommand::MemWrite;
  const unsigned bpc = std::min(seg.params().width_bits, seg.master_info(m).width_bits) / 8;
  const uint32_t B = p_.posted_write_buffer_bytes, C = p_.posted_chunk_bytes;
  while (!s.posted.empty() && s.posted.front().drained <= now()) s.posted.pop_front();

  uint32_t pos = 0;
  sc_time t = t0;
  bool marked_full = false;
  while (pos < N) {
    auto [ph, L0, pl, data_start] = first_tenure(seg, m, cmd, A + pos, N - pos, t);
    // The tenure's ADB pieces, each in the buffer at data start + its data phases (closed form).
    const auto pcs = posted_pieces(A + pos, L0, C, bpc);
    uint32_t accepted = 0;
    size_t i = 0;
    if (!p_.detailed_dma && pcs.size() >= 2) {
      // The leading pieces the buffer is sure to hold: each fits even counting every earlier piece
      // of this tenure as still in the buffer (they may drain before it arrives, never after it
      // would have been refused), so the piece-by-piece loop below would accept every one of them.
      pieces_.clear();
      uint32_t held = 0;
      for (const PostedPiece& pc : pcs) {
        const sc_time e = data_start + seg.clocks(pc.data_phases);
        if (occupancy(s, e) + held + pc.bytes > B) break;
        pieces_.push_back({pc.addr, pc.bytes, e});
        held += pc.bytes;
      }
      if (pieces_.size() >= 2) {
        forward_train(k, pieces_.data(), pieces_.data() + pieces_.size(), data + pos, trans);
        accepted = held;
        i = pieces_.size();
      }
    }
    for (; i < pcs.size(); ++i) {
      const PostedPiece& pc = pcs[i];
      const sc_time e = data_start + seg.clocks(pc.data_phases);
      if (occupancy(s, e) + pc.bytes > B) break;
      // Forward this piece upstream as soon as it is in the buffer (cut-through per ADB).
      s.posted.push_back({e, forward_piece(k, {pc.addr, pc.bytes, e}, data + (pc.addr - A), trans), pc.bytes});
      accepted += pc.bytes;
    }
    if (accepted == 0) {
      // Not even one piece fits: Retry; the master re-requests after its retry interval.
      Grant g = seg.occupy_termination(m, t, false, A + pos, PciTermination::Retry, true, j, what);
      ++*s.c_posted_retries;
      if (j && !marked_full) {
        sim().journeys.mark(j, g.start, what, seg.counter_prefix(), "posted write buffer full");
        marked_full = true;
      }
      t = std::max(g.end + seg.clocks(seg.params().master_retry_interval_clocks), room_at(s, g.end, std::min(C, N - pos)));
      continue;
    }
    if (accepted < L0) ++*s.c_posted_disconnects;
    ph.data = pci_data_phases(A + pos, accepted, bpc);
    ph.arbitration = pl.arbitration;
    Grant g = seg.commit(pl, ph, j, what, accepted);
    pos += accepted;
    t = g.end;
  }
  return t;
}

sc_time PcixBridge::forward_piece(unsigned k, const PieceAt& pc, uint8_t* data, tlm::tlm_generic_payload& trans) {
  tlm::tlm_generic_payload& up = upstream_payload(tlm::TLM_WRITE_COMMAND, pc.addr, data, pc.bytes);
  sc_time d = pc.in_buffer + seg_[k]->clocks(p_.inbound_request_clocks) - now();
  sc_time drained;
  {
    StreamExtGuard ext(up);
    ext->has_sent_end = false;
    hub_initiator->b_transport(up, d);
    drained = ext->has_sent_end ? ext->sent_end : now() + d;
  }
  if (up.get_response_status() != tlm::TLM_OK_RESPONSE) trans.set_response_status(up.get_response_status());
  return drained;
}

void PcixBridge::forward_train(unsigned k, const PieceAt* first, const PieceAt* end, uint8_t* data,
                               tlm::tlm_generic_payload& trans) {
  SegState& s = st_[k];
  const sc_time req = seg_[k]->clocks(p_.inbound_request_clocks);
  uint32_t total = 0;
  train_.pieces.clear();
  for (const PieceAt* p = first; p != end; ++p) {
    train_.pieces.push_back({p->bytes, p->in_buffer + req, SC_ZERO_TIME});
    total += p->bytes;
  }
  tlm::tlm_generic_payload& up = upstream_payload(tlm::TLM_WRITE_COMMAND, first->addr, data, total);
  up.set_extension(&train_);
  sc_time d = train_.pieces.front().at - now();
  hub_initiator->b_transport(up, d);
  up.clear_extension(&train_);
  if (up.get_response_status() != tlm::TLM_OK_RESPONSE) trans.set_response_status(up.get_response_status());
  for (size_t i = 0; i < train_.pieces.size(); ++i) s.posted.push_back({first[i].in_buffer, train_.pieces[i].sent_end, first[i].bytes});
}

tlm::tlm_generic_payload& PcixBridge::upstream_payload(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, uint32_t len) {
  return reset_payload(up_, cmd, addr, data, len);
}

std::pair<sc_time, sc_time> PcixBridge::fetch(uint64_t addr, uint8_t* dst, uint32_t len, const sc_time& at, bool& ok) {
  tlm::tlm_generic_payload& up = upstream_payload(tlm::TLM_READ_COMMAND, addr, dst, len);
  sc_time d = at - now();
  StreamExtGuard ext(up);
  ext->has_first_data = false;
  hub_initiator->b_transport(up, d);
  ok = up.get_response_status() == tlm::TLM_OK_RESPONSE;
  if (!ok) std::memset(dst, 0xFF, len);
  sc_time last = now() + d;
  sc_time first = ext->has_first_data ? std::min(ext->first_data, last) : last;
  return {first, last};
}

sc_time PcixBridge::inbound_split_read(const Inbound& in, const sc_time& t0) {
  // (The lambdas below reach the request through `in`: clang 14 cannot capture structured bindings.)
  const auto& [k, m, seg, s, trans, x, j, what, A, N, data] = in;
  const PciDeviceInfo& info = seg.master_info(m);
  const uint32_t mmrbc = std::max<uint32_t>(info.mmrbc_bytes, 512);
  const unsigned most = std::max(1u, info.max_outstanding_splits);
  const unsigned queue = p_.split_queue_active + p_.split_queue_pending;
  const sc_time retry = seg.clocks(seg.params().master_retry_interval_clocks);
  const sc_time ret = seg.clocks(p_.completion_return_clocks);
  s.splits.erase(std::remove_if(s.splits.begin(), s.splits.end(), [](const Split& e) { return e.end <= now(); }),
                 s.splits.end());

  // The master's sequences (≤ MMRBC each, split at MMRBC-aligned boundaries).
  struct Seq {
    uint64_t addr;
    uint32_t len;
    sc_time accept, fetch_at, s_min;
    bool fetched = false;
  };
  std::vector<Seq> seqs;
  for (uint64_t pos = A; pos < A + N;) {
    uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(A + N, (pos / mmrbc + 1) * mmrbc) - pos);
    seqs.push_back({pos, len, {}, {}, {}});
    pos += len;
  }
  // Requests and completions are placed in time order (a small event loop inside this call), so
  // the master's requests interleave with the bridge's completions as arbitration would do.
  std::vector<size_t> accepted, waiting_fetch;  // accepted: fetched, completion not yet placed
  size_t next_req = 0;
  unsigned outstanding = 0;
  sc_time t_req = t0, done = t0;
  const sc_time never = sc_core::sc_max_time();
  auto start_fetch = [&](size_t i, const sc_time& at) {
    Seq& q = seqs[i];
    q.fetch_at = at;
    bool ok = true;
    auto [first, last] = fetch(q.addr, in.data + (q.addr - in.addr), q.len, at, ok);
    if (!ok) in.trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    // Split Completion streams as the data arrives: first data phase not before the first bytes
    // are back, last data phase not before the last.
    PciBurstSpec spec = in.seg.burst_spec(PciSegment::kBridge, PciCommand::MemWrite, q.addr, q.len, false, info.width_bits);
    const PciPhaseList p0 = in.seg.burst_clocks(spec).phases.front();
    sc_time s_first = first + ret - in.seg.clocks(p0.to_first_data());
    sc_time s_last = last + ret - in.seg.clocks(p0.to_first_data() + (p0.data ? p0.data - 1 : 0));
    q.s_min = std::max(std::max(s_first, s_last), q.accept);
    q.fetched = true;
    accepted.push_back(i);
  };
  auto active_others = [&](const sc_time& t) {
    unsigned n = 0;
    for (auto& e : in.s.splits)
      if (e.fetch_start <= t && e.end > t) ++n;
    return n;
  };
  while (next_req < seqs.size() || !accepted.empty() || !waiting_fetch.empty()) {
    sc_time t_next_req = next_req < seqs.size() && outstanding < most ? t_req : never;
    size_t ci = 0;
    sc_time t_next_comp = never;
    for (size_t a = 0; a < accepted.size(); ++a)
      if (seqs[accepted[a]].s_min < t_next_comp) {
        t_next_comp = seqs[accepted[a]].s_min;
        ci = a;
      }
    if (t_next_req == never && t_next_comp == never) break;  // defensive: nothing can progress
    if (t_next_req <= t_next_comp) {
      // Request: Split Response, or Retry while the split queue is full.
      Seq& q = seqs[next_req];
      Grant g = seg.occupy_termination(m, t_req, true, q.addr, PciTermination::SplitResponse, true, j, what);
      unsigned in_queue = outstanding;
      for (auto& e : s.splits)
        if (e.end > g.end) ++in_queue;
      if (in_queue >= queue) {
        ++*s.c_split_retries;
        t_req = g.end + retry;
        continue;
      }
      ++*s.c_split_responses;
      if (j && next_req == 0) sim().journeys.mark(j, g.end, what, seg.counter_prefix(), "split completion");
      q.accept = g.end;
      t_req = g.end;
      ++outstanding;
      sc_time at = g.end + seg.clocks(p_.inbound_request_clocks);
      unsigned active = static_cast<unsigned>(accepted.size()) + active_others(at);
      if (active < p_.split_queue_active && waiting_fetch.empty())
        start_fetch(next_req, at);
      else
        waiting_fetch.push_back(next_req);  // pending: fetched when an active slot frees
      ++next_req;
    } else {
      size_t i = accepted[ci];
      accepted.erase(accepted.begin() + ci);
      Seq& q = seqs[i];
      PciBurstSpec spec = seg.burst_spec(PciSegment::kBridge, PciCommand::MemWrite, q.addr, q.len, false, info.width_bits);
      PciSegment::Occupied c = seg.occupy(PciSegment::kBridge, q.s_min, spec, 0, what);
      ++*s.c_split_completions;
      s.splits.push_back({q.accept, q.fetch_at, c.end});
      if (j && i == 0) sim().journeys.mark(j, c.first_data, what, seg.counter_prefix(), "");
      done = std::max(done, c.end);
      --outstanding;
      if (outstanding + 1 == most) t_req = std::max(t_req, c.end);  // the master was held by MOST
      if (!waiting_fetch.empty()) {
        size_t w = waiting_fetch.front();
        waiting_fetch.erase(waiting_fetch.begin());
        start_fetch(w, std::max(c.end, seqs[w].accept + seg.clocks(p_.inbound_request_clocks)));
      }
    }
  }
  return done;
}

sc_time PcixBridge::inbound_delayed_read(const Inbound& in, const sc_time& t0) {
  const auto& [k, m, seg, s, trans, x, j, what, A, N, data] = in;
  const uint32_t line = seg.params().cache_line_bytes;
  const sc_time retry = seg.clocks(seg.params().master_retry_interval_clocks);
  const sc_time ret = seg.clocks(p_.completion_return_clocks);
  s.delayed.erase(std::remove_if(s.delayed.begin(), s.delayed.end(), [](const sc_time& e) { return e <= now(); }),
                  s.delayed.end());

  uint32_t pos = 0;
  sc_time t = t0;
  std::vector<uint8_t> buf;
  while (pos < N) {
    const uint64_t a = A + pos;
    const uint32_t rem = N - pos;
    PciCommand cmd;
    if (x && x->cmd != PciCommand::MemWrite && x->cmd != PciCommand::MemWriteInvalidate)
      cmd = x->cmd;
    else if (rem <= 8 && a / 8 == (a + rem - 1) / 8)
      cmd = PciCommand::MemRead;
    else if (a / line == (a + rem - 1) / line)
      cmd = PciCommand::MemReadLine;
    else
      cmd = PciCommand::MemReadMultiple;
    uint32_t F;
    switch (cmd) {
      case PciCommand::MemRead: F = p_.mr_fetch_bytes - static_cast<uint32_t>(a % p_.mr_fetch_bytes); break;
      case PciCommand::MemReadLine: F = line - static_cast<uint32_t>(a % line); break;
      default: F = p_.mrm_prefetch_bytes - static_cast<uint32_t>(a % line); break;
    }
    const uint32_t take = std::min(rem, F);
    unsigned busy = 0;
    for (auto& e : s.delayed)
      if (e > t) ++busy;
    // (The lambda reaches the request through `in`: clang 14 cannot capture structured bindings.)
    // The tenure that takes the data: the bridge streams its buffer, inserting wait states while
    // the fetch is still arriving. Returns the tenure's end.
    auto stream = [&](FirstTenure ft, sc_time ready_first, sc_time ready_last) {
      auto& [ph, L0, pl, data_start] = ft;
      sc_time need = ready_first;
      if (F > 0) need = ready_first + (ready_last - ready_first) * (double(L0) / F);
      sc_time data_end = data_start + in.seg.clocks(ph.data);
      if (data_end < need + in.seg.clock_period()) {
        double w = std::ceil((need + in.seg.clock_period() - data_end) / in.seg.clock_period() - 1e-9);
        ph.data += static_cast<unsigned>(w);
      }
      ph.arbitration = pl.arbitration;
      Grant gs = in.seg.commit(pl, ph, in.j, in.what, L0);
      if (in.j) sim().journeys.mark(in.j, data_start, in.what, in.seg.counter_prefix(), "");
      std::memcpy(in.data + pos, buf.data(), L0);
      *in.s.c_prefetch_discarded += F - L0;
      in.s.delayed.push_back(gs.end);
      pos += L0;
      return gs.end;
    };
    buf.assign(F, 0);
    bool ok = true;
    sc_time first, last;
    Grant g;
    if (p_.target_initial_latency_clocks > 0 && busy < p_.delayed_read_slots) {
      // A host bridge's first attempt: it decodes the address and starts the fetch at once; if the
      // first data can be on the bus within the initial-latency limit it holds the master.
      const FirstTenure ft = first_tenure(seg, m, cmd, a, take, t);
      std::tie(first, last) = fetch(a, buf.data(), F, ft.data_start + seg.clocks(p_.inbound_request_clocks), ok);
      if (!ok) trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      if (first + ret <= ft.data_start + seg.clocks(p_.target_initial_latency_clocks)) {
        ++*s.c_wait_state_reads;
        t = stream(ft, first + ret, last + ret);
        continue;
      }
      // Too slow for the limit: the bridge has held the master up to it (STOP# by the limit's clock
      // from FRAME#: the address phase and decode are already in) and answers Retry; the request is
      // latched and its fetch, started at the decode, runs on.
      const double held = p_.target_initial_latency_clocks - 1 - seg.params().bridge_decode_clocks;
      g = seg.occupy_termination(m, t, true, a, PciTermination::Retry, true, j, what,
                                 held > 0 ? static_cast<unsigned>(held) : 0u);
      ++*s.c_delayed_retries;
      ++*s.c_delayed_reads;
    } else {
      // First attempt: the bridge answers Retry and, if it has a free slot, latches the request.
      g = seg.occupy_termination(m, t, true, a, PciTermination::Retry, true, j, what);
      ++*s.c_delayed_retries;
      busy = 0;
      for (auto& e : s.delayed)
        if (e > g.end) ++busy;
      if (busy >= p_.delayed_read_slots) {
        t = g.end + retry;
        continue;
      }
      ++*s.c_delayed_reads;
      std::tie(first, last) = fetch(a, buf.data(), F, g.end + seg.clocks(p_.inbound_request_clocks), ok);
      if (!ok) trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    }
    const sc_time ready_first = first + ret, ready_last = last + ret;
    if (j) sim().journeys.mark(j, g.start, what, seg.counter_prefix(), "delayed transaction retry");
    // The master keeps retrying; each retry is a tenure on the bus.
    sc_time tp = g.end + retry;
    for (;;) {
      const FirstTenure ft = first_tenure(seg, m, cmd, a, take, tp);
      if (ft.data_start < ready_first) {
        Grant r = seg.occupy_termination(m, tp, true, a, PciTermination::Retry, true, j, what);
        ++*s.c_delayed_retries;
        tp = r.end + retry;
        continue;
      }
      t = stream(ft, ready_first, ready_last);
      break;
    }
  }
  return t;
}

}  // namespace nicsim
