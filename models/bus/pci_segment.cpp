#include "models/bus/pci_segment.h"
#include "core/sim_context.h"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/core.h>
#include <stdexcept>

namespace nicsim {

PciSegment::PciSegment(sc_core::sc_module_name name, const PciSegmentParams& p)
    : sc_module(name),
      dma_target("dma_target"),
      upstream("upstream"),
      mmio_target("mmio_target"),
      to_devices("to_devices"),
      p_(p),
      prefix_(this->name()),
      bus_(std::string(this->name()) + ".bus"),
      c_tenures_(sim().counters.at(prefix_ + ".tenures")),
      c_arb_wait_ns_(sim().counters.at(prefix_ + ".arbitration_wait_ns")),
      c_data_bytes_(sim().counters.at(prefix_ + ".data_bytes")),
      c_mmio_reads_(sim().counters.at(prefix_ + ".mmio_reads")),
      c_mmio_writes_(sim().counters.at(prefix_ + ".mmio_writes")),
      c_master_aborts_(sim().counters.at(prefix_ + ".master_aborts")),
      c_io_reads_(sim().counters.at(prefix_ + ".io_reads")),
      c_io_writes_(sim().counters.at(prefix_ + ".io_writes")),
      c_busy_ns_(sim().counters.at(prefix_ + ".busy_ns")) {
  if (p_.width_bits != 32 && p_.width_bits != 64) throw std::invalid_argument("PCI segment width must be 32 or 64");
  dma_target.register_b_transport(this, &PciSegment::b_dma);
  dma_target.register_transport_dbg(this, &PciSegment::dbg_dma);
  mmio_target.register_b_transport(this, &PciSegment::b_mmio);
  bridge_info_.name = "bridge";
  bridge_info_.width_bits = p_.width_bits;
  bridge_info_.pcix_capable = true;
  bridge_info_.max_mhz = p_.max_pcix_mhz;
  last_end_.push_back(SC_ZERO_TIME);  // bridge
}

unsigned PciSegment::plug(PciDevice& dev) {
  if (resolved_) throw std::logic_error(std::string(name()) + ": device plugged after the segment mode was resolved");
  unsigned idx = static_cast<unsigned>(devs_.size());
  devs_.push_back(&dev);
  infos_.push_back(dev.info());
  last_end_.insert(last_end_.end() - 1, SC_ZERO_TIME);
  dev.dma_initiator().bind(dma_target);
  to_devices.bind(dev.pci_target());
  return idx;
}

PciSegmentMode PciSegment::current_mode() const {
  return resolved_ ? mode_ : resolve_segment_mode(infos_, p_.max_pcix_mhz, p_.max_pci_mhz);
}

const PciSegmentMode& PciSegment::mode() const {
  if (!resolved_) {
    mode_ = resolve_segment_mode(infos_, p_.max_pcix_mhz, p_.max_pci_mhz);
    period_ = ns(pci_clock_ns(mode_.mhz));
    resolved_ = true;
    for (PciDevice* d : devs_) d->bus_mode(mode_.pcix, mode_.mhz);
  }
  return mode_;
}

sc_time PciSegment::clock_period() const {
  if (!resolved_) mode();
  return period_;
}

sc_time PciSegment::align(const sc_time& t) const {
  const uint64_t per = clock_period().value();  // ps (SystemC resolution)
  uint64_t v = t.value();
  uint64_t k = (v + per - 1) / per;
  return sc_time::from_value(k * per);
}

const PciDeviceInfo& PciSegment::master_info(unsigned m) const {
  if (m == kBridge) return bridge_info_;
  return infos_.at(m);
}

std::string PciSegment::summary() const {
  return fmt::format("segment {}: {}, {}-bit, peak {:.0f} MB/s", p_.label, mode().describe(), p_.width_bits,
                     peak_mb_per_s());
}

PciBurstSpec PciSegment::burst_spec(unsigned master, PciCommand cmd, uint64_t addr, uint32_t bytes,
                                    bool target_is_bridge, unsigned width_bits) const {
  PciBurstSpec s;
  s.cmd = cmd;
  s.addr = addr;
  s.bytes = bytes;
  s.bus_width_bits = p_.width_bits;
  s.device_width_bits = width_bits ? width_bits : master_info(master).width_bits;
  s.arbitration_clocks = 0;  // decided per tenure by plan()
  s.decode_clocks = target_is_bridge ? p_.bridge_decode_clocks : p_.target_decode_clocks;
  s.register_clocks = p_.pcix_register_clocks;
  s.read_turnaround_clocks = p_.read_turnaround_clocks;
  s.turnaround_clocks = p_.turnaround_clocks;
  s.cache_line_bytes = p_.cache_line_bytes;
  s.adb_bytes = p_.adb_bytes;
  return s;
}

PciBurstTiming PciSegment::burst_clocks(const PciBurstSpec& s) const {
  return mode().pcix ? pcix_burst_clocks(s) : pci_burst_clocks(s);
}

static size_t slot_of(unsigned master, size_t ndev) { return master == PciSegment::kBridge ? ndev : master; }

bool PciSegment::contended_at(unsigned master, const sc_time& aligned) const {
  const sc_time lt = clocks(p_.latency_timer_clocks);
  for (size_t i = 0; i < last_end_.size(); ++i)
    if (i != slot_of(master, devs_.size()) && last_end_[i] + lt > aligned && last_end_[i] > SC_ZERO_TIME) return true;
  return false;
}

bool PciSegment::contended(unsigned master, const sc_time& earliest) const { return contended_at(master, align(earliest)); }

PciSegment::Plan PciSegment::plan(unsigned master, const sc_time& earliest, unsigned clocks_without_arb) const {
  Plan pl;
  pl.master = master;
  pl.earliest = align(earliest);
  pl.contended = contended_at(master, pl.earliest);
  const bool parked = p_.park_on_last_master && last_owner_ == master;
  const unsigned arb = parked ? 0 : p_.arbitration_clocks;
  sc_time s = bus_.first_fit(pl.earliest, clocks(clocks_without_arb + arb));
  if (s == pl.earliest) {
    pl.start = s;
    pl.arbitration = arb;
  } else {
    // The bus is taken: arbitration overlaps the tenure in progress (hidden arbitration) and the
    // master starts when it ends. If the tenure would fit before the next one only without its
    // arbitration clocks, it cannot start before that one either.
    sc_time s0 = bus_.first_fit(pl.earliest, clocks(clocks_without_arb));
    pl.start = s0 == pl.earliest ? s : s0;
    pl.arbitration = 0;
    pl.waited = true;
  }
  return pl;
}

Grant PciSegment::commit(const Plan& pl, const PciPhaseList& phases, JourneyId j, const char* what,
                         uint32_t data_bytes) {
  sc_time dur = clocks(phases.total());
  sc_time start = pl.start;
  if (bus_.first_fit(start, dur) != start) start = align(bus_.first_fit(start, dur));  // defensive: re-fit
  Grant g = bus_.reserve_at(pl.earliest, start, dur);
  last_owner_ = pl.master;
  last_end_[slot_of(pl.master, devs_.size())] = g.end;
  ++c_tenures_;
  c_data_bytes_ += data_bytes;
  busy_ns_ += to_ns(g.end - g.start);
  c_busy_ns_ = static_cast<uint64_t>(std::llround(busy_ns_));
  if (sim().trace.enabled())
    sim().trace.span(prefix_, fmt::format("{} {} {} B", pl.master == kBridge ? "bridge" : "master " + std::to_string(pl.master),
                                          *what ? what : "tenure", data_bytes),
                     g.start, g.end);
  if (g.waited > SC_ZERO_TIME) {
    c_arb_wait_ns_ += static_cast<uint64_t>(std::llround(to_ns(g.waited)));
    if (j) {
      sim().journeys.mark(j, pl.earliest, *what ? what : "PCI transfer", prefix_, "bus arbitration");
      sim().journeys.mark(j, g.start, *what ? what : "PCI transfer", prefix_, "");
    }
  }
  return g;
}

PciSegment::Occupied PciSegment::occupy(unsigned master, const sc_time& earliest, PciBurstSpec spec, JourneyId j,
                                        const char* what) {
  Occupied o;
  spec.arbitration_clocks = 0;
  // Work out the tenure split once (latency timer if the bus is contended), then place each.
  if (contended(master, earliest)) spec.latency_timer_clocks = p_.latency_timer_clocks;
  PciBurstTiming bt = burst_clocks(spec);
  sc_time t = earliest;
  bool first_tenure = true;
  for (size_t k = 0; k < bt.phases.size(); ++k) {
    PciPhaseList ph = bt.phases[k];
    Plan pl = plan(master, t, ph.total());
    ph.arbitration = pl.arbitration;
    Grant g = commit(pl, ph, j, what, bt.tenure_bytes[k]);
    if (first_tenure) {
      o.start = g.start;
      o.first_data = g.start + clocks(ph.to_first_data());
      first_tenure = false;
    }
    o.timing.clocks += ph.total();
    o.timing.data_phases += ph.data;
    o.timing.tenure_bytes.push_back(bt.tenure_bytes[k]);
    o.timing.phases.push_back(ph);
    ++o.timing.tenures;
    o.end = g.end;
    t = g.end;
  }
  return o;
}

Grant PciSegment::occupy_termination(unsigned master, const sc_time& earliest, bool read, uint64_t addr,
                                     PciTermination term, bool target_is_bridge, JourneyId j, const char* what,
                                     unsigned wait_clocks) {
  PciTenureSpec ts;
  ts.pcix = mode().pcix;
  ts.read = read;
  ts.dac = (addr >> 32) != 0;
  ts.decode_clocks = target_is_bridge ? p_.bridge_decode_clocks : p_.target_decode_clocks;
  ts.register_clocks = p_.pcix_register_clocks;
  ts.read_turnaround_clocks = p_.read_turnaround_clocks;
  ts.term = term;
  ts.termination_clocks = p_.termination_clocks + wait_clocks;
  ts.turnaround_clocks = p_.turnaround_clocks;
  PciPhaseList ph = pci_tenure_phases(ts);
  Plan pl = plan(master, earliest, ph.total());
  ph.arbitration = pl.arbitration;
  return commit(pl, ph, j, what);
}

void PciSegment::b_dma(int index, tlm::tlm_generic_payload& trans, sc_time& delay) {
  PciRequesterExt ext;
  ext.master = static_cast<unsigned>(index);
  ext.info = &infos_.at(index);
  auto* prev = trans.get_extension<PciRequesterExt>();
  if (prev) trans.clear_extension(prev);
  trans.set_extension(&ext);
  upstream->b_transport(trans, delay);
  trans.clear_extension(&ext);
  if (prev) trans.set_extension(prev);
}

unsigned PciSegment::dbg_dma(int, tlm::tlm_generic_payload& trans) { return upstream->transport_dbg(trans); }

int PciSegment::decode(uint64_t addr, unsigned len) const {
  for (size_t d = 0; d < devs_.size(); ++d)
    for (unsigned fn = 0; fn < infos_[d].functions; ++fn) {
      uint64_t base = devs_[d]->bar(fn);
      if (base != 0 && addr >= base && addr + len <= base + infos_[d].bar_size) return static_cast<int>(d);
    }
  return -1;
}

int PciSegment::decode(PciSpace space, uint64_t addr, unsigned len) const {
  if (space == PciSpace::Memory) return decode(addr, len);
  for (size_t d = 0; d < devs_.size(); ++d) {
    const uint64_t size = infos_[d].io_bar_size;
    if (size == 0) continue;
    for (unsigned fn = 0; fn < infos_[d].functions; ++fn) {
      uint64_t base = devs_[d]->io_bar(fn);
      if (base != 0 && addr >= base && addr + len <= base + size) return static_cast<int>(d);
    }
  }
  return -1;
}

void PciSegment::b_mmio(tlm::tlm_generic_payload& trans, sc_time& delay) {
  const sc_time t0 = now() + delay;
  const uint64_t addr = trans.get_address();
  const unsigned len = trans.get_data_length();
  const bool read = trans.is_read();
  const bool io = is_io_space(trans);
  // An I/O cycle has the phases of a single-data-phase memory cycle (address, [attribute,]
  // DEVSEL#, data: PCI 2.2 §3.2.2, PCI-X 1.0 §2.3); only the command and the decode differ.
  int d = decode(io ? PciSpace::Io : PciSpace::Memory, addr, len);
  if (d < 0) {
    // Nobody claims it: master abort after the DEVSEL# window; reads return all ones.
    PciTenureSpec ts;
    ts.pcix = mode().pcix;
    ts.read = read;
    ts.decode_clocks = p_.master_abort_clocks;
    ts.register_clocks = p_.pcix_register_clocks;
    ts.term = PciTermination::Retry;  // no data phases
    ts.termination_clocks = 0;
    ts.turnaround_clocks = p_.turnaround_clocks;
    PciPhaseList ph = pci_tenure_phases(ts);
    Plan pl = plan(kBridge, t0, ph.total());
    ph.arbitration = pl.arbitration;
    Grant g = commit(pl, ph);
    if (read) std::memset(trans.get_data_ptr(), 0xFF, len);
    ++c_master_aborts_;
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    delay = g.end - now();
    return;
  }
  const PciDeviceInfo& di = infos_[d];
  PciBurstSpec spec = burst_spec(kBridge, read ? PciCommand::MemRead : PciCommand::MemWrite, addr, len, false,
                                 di.width_bits);
  PciBurstTiming bt = burst_clocks(spec);  // register accesses: one tenure
  PciPhaseList ph = bt.phases.front();
  Plan pl = plan(kBridge, t0, ph.total());
  ph.arbitration = pl.arbitration;
  const sc_time data_start = pl.start + clocks(ph.to_first_data());
  // The device sees the access when the bus presents it; its answer time becomes wait states.
  sc_time dd = data_start - now();
  to_devices[d]->b_transport(trans, dd);
  const sc_time device_done = now() + dd;
  if (device_done > data_start) {
    double w = std::ceil((device_done - data_start) / clock_period() - 1e-9);
    ph.initial_wait += static_cast<unsigned>(w);
  }
  Grant g = commit(pl, ph, 0, "", len);
  if (io)
    (read ? c_io_reads_ : c_io_writes_)++;
  else
    (read ? c_mmio_reads_ : c_mmio_writes_)++;
  if (trans.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE) trans.set_response_status(tlm::TLM_OK_RESPONSE);
  delay = g.end - now();
}

}  // namespace nicsim
