#include "platforms/e7500_host.h"
#include <fmt/core.h>
#include <sstream>
#include <stdexcept>

namespace nicsim {

ChipsetBoardSpec chipset_spec_of(const E7500BoardSpec& e) {
  ChipsetBoardSpec c;
  c.name = e.name;
  c.title = e.title;
  c.cpus = e.cpus;
  c.cpu_mhz = e.cpu_mhz;
  c.north_name = "mch";
  c.north_part = "E7500 MCH";
  c.north = e.mch;
  c.dram = e.dram;
  ChipsetBridgeSpec b;
  b.name = "p64h2";
  b.part = "P64H2";
  b.link_name = "hub";
  b.link_part = "Hub Interface 2.0";
  b.port = e.hub_port;
  b.link = e.hub;
  b.bridge = e.bridge;
  b.segment[0] = e.segment[0];
  b.segment[1] = e.segment[1];
  b.apic = e.apic;
  c.bridges.push_back(b);
  c.mmio_base = e.mmio_base;
  c.segment_window_bytes = e.segment_window_bytes;
  c.io_base = e.io_base;
  c.segment_io_bytes = e.segment_io_bytes;
  c.first_vector = e.first_vector;
  c.vector_step = e.vector_step;
  c.irq_dest_apic = e.irq_dest_apic;
  for (auto& sl : e.slots) {
    ChipsetSlot x;
    x.name = sl.name;
    x.bridge = 0;
    x.segment = sl.segment;
    x.description = sl.description;
    x.onboard = sl.onboard;
    x.onboard_devices = sl.onboard_devices;
    x.first_pin = sl.first_pin;
    x.builtin = sl.builtin;
    c.slots.push_back(std::move(x));
  }
  c.notes = e.notes;
  return c;
}

E7500Host::E7500Host(const std::string& host_name, const E7500BoardSpec& spec, nlohmann::json params_used)
    : ChipsetHost(host_name, chipset_spec_of(spec), std::move(params_used)), spec_(spec) {}

E7500Host::~E7500Host() = default;

const E7500BoardSlot& E7500Host::slot(const std::string& name) const {
  ChipsetHost::slot(name);  // throws the "no slot ... did you mean" error for an unknown name
  for (auto& s : spec_.slots)
    if (s.name == name) return s;
  throw std::logic_error("E7500Host: slot lists differ");
}

std::string E7500Host::slot_bus(const std::string& s) const {
  const E7500BoardSlot& sl = slot(s);
  return "P64H2 " + const_cast<E7500Host*>(this)->bridge().segment(sl.segment).summary();
}

nlohmann::json E7500Host::params_json() const {
  nlohmann::json j = ChipsetHost::params_json();
  j.erase("segments");
  P64H2& b = const_cast<E7500Host*>(this)->bridge();  // segment() is non-const; current_mode() only reads
  for (unsigned i = 0; i < 2; ++i) j["segments"][i == 0 ? "segA" : "segB"] = b.segment(i).current_mode().describe();
  return j;
}

std::string describe_e7500_board(const E7500BoardSpec& s) {
  std::ostringstream o;
  static const char* hub_names[3] = {"HI_B", "HI_C", "HI_D"};
  const double fsb_gbs = s.mch.fsb_mhz * s.mch.fsb_bytes_per_clock / 1000.0;
  const double dram_mbs = s.dram.channels * s.dram.channel_bytes * s.dram.transfers_per_clock * s.dram.clock_mhz;
  const double hub_mbs = s.hub.width_bits / 8.0 * s.hub.clock_mhz * s.hub.transfers_per_clock;
  o << s.name << "  " << s.title << "\n";
  o << fmt::format("├─ CPUs: {} × Xeon {:.0f} MHz on a {:.0f} MT/s 64-bit front-side bus ({:.1f} GB/s)\n", s.cpus,
                   s.cpu_mhz, s.mch.fsb_mhz * 4, fsb_gbs);
  o << "└─ E7500 MCH\n";
  o << fmt::format("   ├─ DRAM: {} MB, {}-channel DDR{:.0f} lock-step, {}-bit, {:.0f} MB/s (tCL {} tRCD {} tRP {} tRD {} clocks)\n",
                   s.dram.size_bytes >> 20, s.dram.channels, s.dram.clock_mhz * 2,
                   s.dram.channels * s.dram.channel_bytes * 8, dram_mbs, s.dram.tCL_clocks, s.dram.tRCD_clocks,
                   s.dram.tRP_clocks, s.dram.tRD_clocks);
  for (unsigned p = 0; p < 3; ++p) {
    bool last = p == 2;
    const char* br = last ? "   └─ " : "   ├─ ";
    const char* cont = last ? "      " : "   │  ";
    if (p != s.hub_port) {
      o << br << hub_names[p] << ": Hub Interface 2.0, empty\n";
      continue;
    }
    o << br << hub_names[p]
      << fmt::format(": Hub Interface 2.0, {}-bit {:.2f} MHz ×{} = {:.0f} MB/s raw, {}-byte header per ≤{}-byte packet, {}, {:.0f} ns per crossing\n",
                     s.hub.width_bits, s.hub.clock_mhz, s.hub.transfers_per_clock, hub_mbs, s.hub.header_bytes,
                     s.hub.max_payload_bytes, s.hub.shared_pipe ? "one pipe for both directions" : "one pipe per direction",
                     s.hub.crossing_ns);
    o << cont << "└─ P64H2 (82870P2) PCI/PCI-X bridge\n";
    for (unsigned k = 0; k < 2; ++k) {
      const PciSegmentParams& sp = s.segment[k];
      bool lastseg = k == 1;
      std::string sbr = std::string(cont) + (lastseg ? "   └─ " : "   ├─ ");
      std::string scont = std::string(cont) + (lastseg ? "      " : "   │  ");
      std::vector<PciDeviceInfo> fixed;
      bool has_open_slot = false;
      for (auto& sl : s.slots) {
        if (sl.segment != k) continue;
        if (sl.has_typical && sl.onboard) fixed.push_back(sl.typical);
        if (!sl.onboard) has_open_slot = true;
      }
      std::string mode;
      if (!fixed.empty()) {
        PciSegmentMode m = resolve_segment_mode(fixed, sp.max_pcix_mhz, sp.max_pci_mhz);
        mode = fmt::format("{}, {}-bit, peak {:.0f} MB/s", m.describe(), sp.width_bits, pci_peak_mb_per_s(sp.width_bits, m.mhz));
        bool forced = false;
        for (auto& d : fixed)
          if (!d.pcix_capable) forced = true;
        if (forced) mode += " (conventional-PCI parts on it force PCI mode)";
      } else if (has_open_slot) {
        mode = fmt::format("PCI-X {} MHz, {}-bit, peak {:.0f} MB/s with a PCI-X card; PCI ≤{} MHz with a conventional card",
                           sp.max_pcix_mhz, sp.width_bits, pci_peak_mb_per_s(sp.width_bits, sp.max_pcix_mhz),
                           std::min(66u, sp.max_pci_mhz));
      }
      o << sbr << "segment " << sp.label << ": " << mode << "\n";
      std::vector<const E7500BoardSlot*> mine;
      for (auto& sl : s.slots)
        if (sl.segment == k) mine.push_back(&sl);
      for (auto* sl : mine) {
        std::string what = sl->description;
        if (!sl->builtin.empty()) what += " [built in]";
        else if (sl->onboard) {
          what += " [onboard position:";
          for (auto& d : sl->onboard_devices) what += " " + d;
          what += "]";
        }
        o << scont << "├─ slot " << sl->name << ": " << what
          << fmt::format("; INTA# → I/OxAPIC {} input {}\n", sp.label, sl->first_pin);
      }
      o << scont << fmt::format("└─ I/OxAPIC {}: {} redirection entries, level-triggered INTx#, messages up the hub link\n",
                                sp.label, s.apic.redirection_entries);
    }
  }
  for (auto& n : s.notes) o << "   (" << n << ")\n";
  return o.str();
}

}  // namespace nicsim
