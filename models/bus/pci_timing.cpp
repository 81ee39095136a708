#include "models/bus/pci_timing.h"
#include <algorithm>
#include <stdexcept>

namespace nicsim {

double pci_clock_ns(unsigned mhz) {
  switch (mhz) {
    case 0: throw std::invalid_argument("pci_clock_ns: 0 MHz");
    case 33: return 30.0;   // 33.33 MHz
    case 66: return 15.0;   // 66.67 MHz
    case 133: return 7.5;   // 133.33 MHz
    default: return 1000.0 / mhz;
  }
}

unsigned pci_data_phases(uint64_t addr, uint32_t bytes, unsigned bytes_per_clock) {
  if (bytes == 0) return 0;
  if (bytes_per_clock == 0) throw std::invalid_argument("pci_data_phases: 0 bytes per clock");
  uint64_t first = addr / bytes_per_clock;
  uint64_t last = (addr + bytes - 1) / bytes_per_clock;
  return static_cast<unsigned>(last - first + 1);
}

boost::container::small_vector<PostedPiece, 8> posted_pieces(uint64_t addr, uint32_t bytes, uint32_t chunk,
                                                              unsigned bytes_per_clock) {
  if (chunk == 0 || bytes_per_clock == 0) throw std::invalid_argument("posted_pieces: chunk and bytes per clock must be > 0");
  boost::container::small_vector<PostedPiece, 8> v;
  for (uint32_t off = 0; off < bytes;) {
    const uint64_t a = addr + off;
    const uint32_t c = std::min<uint32_t>(chunk - static_cast<uint32_t>(a % chunk), bytes - off);
    v.push_back({a, c, pci_data_phases(addr, off + c, bytes_per_clock)});
    off += c;
  }
  return v;
}

unsigned PciPhaseList::total() const {
  return arbitration + address + attribute + read_turnaround + decode + register_stage + initial_wait + data +
         termination + turnaround;
}

unsigned PciPhaseList::to_first_data() const {
  return arbitration + address + attribute + read_turnaround + decode + register_stage + initial_wait;
}

PciPhaseList pci_tenure_phases(const PciTenureSpec& s) {
  PciPhaseList p;
  p.arbitration = s.arbitration_clocks;
  p.address = s.dac ? 2 : 1;
  p.attribute = s.pcix ? 1 : 0;
  p.read_turnaround = s.read ? s.read_turnaround_clocks : 0;
  p.decode = s.decode_clocks;
  p.register_stage = s.pcix ? s.register_clocks : 0;
  if (s.term == PciTermination::Data) {
    p.initial_wait = s.initial_wait_clocks;
    p.data = s.data_phases;
  } else {
    p.termination = s.termination_clocks;
  }
  p.turnaround = s.turnaround_clocks;
  return p;
}

static bool is_read(PciCommand c) {
  return c == PciCommand::MemRead || c == PciCommand::MemReadLine || c == PciCommand::MemReadMultiple;
}

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

static PciBurstTiming burst_clocks(const PciBurstSpec& s, bool pcix) {
  if ((s.device_width_bits != 32 && s.device_width_bits != 64) || (s.bus_width_bits != 32 && s.bus_width_bits != 64))
    throw std::invalid_argument("PCI width must be 32 or 64 bits");
  if (s.bytes == 0) throw std::invalid_argument("PCI burst of 0 bytes");
  if (s.cmd == PciCommand::MemWriteInvalidate &&
      (s.cache_line_bytes == 0 || s.addr % s.cache_line_bytes != 0 || s.bytes % s.cache_line_bytes != 0))
    throw std::invalid_argument("MWI must start on a cache line and move whole cache lines");
  if (pcix && s.adb_bytes == 0) throw std::invalid_argument("PCI-X ADB of 0 bytes");
  const unsigned bpc = std::min(s.bus_width_bits, s.device_width_bits) / 8;
  const bool read = is_read(s.cmd);
  const bool dac = (s.addr >> 32) != 0;
  const uint64_t end = s.addr + s.bytes;

  PciBurstTiming t;
  uint64_t pos = s.addr;
  while (pos < end) {
    uint64_t chunk_end = end;
    if (s.disconnect_bytes) {
      uint64_t ce;
      if (pcix) {
        uint64_t next_adb = (pos / s.adb_bytes + 1) * s.adb_bytes;
        uint64_t within = (pos + s.disconnect_bytes) / s.adb_bytes * s.adb_bytes;
        ce = std::max(next_adb, within);
      } else {
        ce = (pos / s.disconnect_bytes + 1) * s.disconnect_bytes;
      }
      chunk_end = std::min(chunk_end, ce);
    }
    PciTenureSpec ts;
    ts.pcix = pcix;
    ts.read = read;
    ts.dac = dac;
    ts.arbitration_clocks = s.arbitration_clocks;
    ts.decode_clocks = s.decode_clocks;
    ts.register_clocks = s.register_clocks;
    ts.read_turnaround_clocks = s.read_turnaround_clocks;
    ts.initial_wait_clocks = s.initial_wait_clocks;
    ts.turnaround_clocks = s.turnaround_clocks;
    if (s.latency_timer_clocks) {
      // The timer runs from FRAME# (the address phase); arbitration is before it.
      PciPhaseList over = pci_tenure_phases(ts);
      unsigned before_data = over.to_first_data() - over.arbitration;
      unsigned max_data = s.latency_timer_clocks > before_data ? s.latency_timer_clocks - before_data : 1;
      uint64_t lt_end = (pos / bpc + max_data) * bpc;
      if (s.cmd == PciCommand::MemWriteInvalidate) lt_end = round_up(lt_end, s.cache_line_bytes);
      if (pcix) lt_end = round_up(lt_end, s.adb_bytes);
      chunk_end = std::min(chunk_end, std::max(lt_end, pos + 1));
    }
    ts.data_phases = pci_data_phases(pos, static_cast<uint32_t>(chunk_end - pos), bpc);
    PciPhaseList p = pci_tenure_phases(ts);
    t.clocks += p.total();
    t.data_phases += p.data;
    t.tenure_bytes.push_back(static_cast<uint32_t>(chunk_end - pos));
    t.phases.push_back(p);
    ++t.tenures;
    pos = chunk_end;
  }
  return t;
}

PciBurstTiming pci_burst_clocks(const PciBurstSpec& s) { return burst_clocks(s, false); }
PciBurstTiming pcix_burst_clocks(const PciBurstSpec& s) { return burst_clocks(s, true); }

std::string PciSegmentMode::describe() const {
  return std::string(pcix ? "PCI-X " : "PCI ") + std::to_string(mhz) + " MHz";
}

PciSegmentMode resolve_segment_mode(const std::vector<PciDeviceInfo>& devices, unsigned max_pcix_mhz,
                                    unsigned max_pci_mhz) {
  PciSegmentMode m{true, max_pcix_mhz};
  for (auto& d : devices)
    if (!d.pcix_capable) m.pcix = false;
  if (m.pcix) {
    for (auto& d : devices) m.mhz = std::min(m.mhz, d.max_mhz);
  } else {
    m.mhz = max_pci_mhz;
    for (auto& d : devices) m.mhz = std::min(m.mhz, std::min(d.max_mhz, 66u));
  }
  return m;
}

double pci_peak_mb_per_s(unsigned width_bits, unsigned mhz) {
  return (width_bits / 8.0) * 1000.0 / pci_clock_ns(mhz);
}

}  // namespace nicsim
