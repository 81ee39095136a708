#include "platforms/e7500_host.h"
#include "models/scsi/aic7899.h"
#include <cctype>
#include <fmt/core.h>
#include <sstream>
#include <stdexcept>

namespace nicsim {

std::unique_ptr<PciDmaMaster> make_builtin_device(const std::string& device, const std::string& inst_name) {
  if (device == "AIC-7899") return std::make_unique<Aic7899>(inst_name.c_str());
  throw std::invalid_argument("unknown built-in device '" + device + "'");
}

struct E7500Host::Top : sc_core::sc_module {
  Dram dram;
  E7500Mch mch;
  HubLink hub;
  P64H2 bridge;
  std::vector<std::unique_ptr<PciDmaMaster>> builtins;

  Top(sc_core::sc_module_name n, const E7500BoardSpec& s)
      : sc_module(n),
        dram("dram", s.dram),
        mch("mch", s.mch, s.dram.size_bytes),
        hub("hub", s.hub),
        bridge("p64h2", s.bridge, s.segment[0], s.segment[1], s.apic) {
    mch.mem_initiator.bind(dram.target);
    mch.hub_down.at(s.hub_port)->bind(hub.down_target);
    hub.up_initiator.bind(*mch.hub_up.at(s.hub_port));
    hub.down_initiator.bind(bridge.hub_target);
    bridge.hub_initiator.bind(hub.up_target);
    mch.eoi_down.bind(hub.eoi_in);
    hub.eoi_out.bind(bridge.eoi_in);
    for (unsigned k = 0; k < 2; ++k)
      bridge.set_window(k, s.mmio_base + k * s.segment_window_bytes, s.segment_window_bytes);
    mch.map_hub_window(s.hub_port, s.mmio_base, 2 * s.segment_window_bytes);
    for (unsigned k = 0; k < 2; ++k) bridge.set_io_window(k, s.io_base + k * s.segment_io_bytes, s.segment_io_bytes);
    mch.map_hub_io_window(s.hub_port, s.io_base, 2 * s.segment_io_bytes);
    for (auto& sl : s.slots)
      if (!sl.builtin.empty()) builtins.push_back(make_builtin_device(sl.builtin, sl.name == "" ? "builtin" : sl.name));
  }
};

static std::string module_safe(std::string s) {
  for (auto& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) c = '_';
  return s;
}

E7500Host::E7500Host(const std::string& host_name, const E7500BoardSpec& spec, nlohmann::json params_used)
    : name_(host_name), spec_(spec), params_(std::move(params_used)), next_vector_(spec.first_vector) {
  if (spec_.dram.size_bytes > spec_.mmio_base) throw std::invalid_argument("DRAM overlaps the PCI memory hole");
  // Slot names become module names of built-ins: keep them SystemC-safe.
  E7500BoardSpec safe = spec_;
  for (auto& sl : safe.slots) sl.name = module_safe(sl.name);
  top_ = std::make_unique<Top>(module_safe(host_name).c_str(), safe);
  for (unsigned k = 0; k < 2; ++k) next_bar_[k] = spec_.mmio_base + k * spec_.segment_window_bytes;
  for (unsigned k = 0; k < 2; ++k) next_io_bar_[k] = spec_.io_base + k * spec_.segment_io_bytes;
  size_t b = 0;
  for (auto& sl : spec_.slots)
    if (!sl.builtin.empty()) attach(sl.name, *top_->builtins.at(b++));
}

E7500Host::~E7500Host() = default;

E7500Mch& E7500Host::mch() { return top_->mch; }
Dram& E7500Host::dram() { return top_->dram; }
HubLink& E7500Host::hub() { return top_->hub; }
P64H2& E7500Host::bridge() { return top_->bridge; }

const E7500BoardSlot& E7500Host::slot(const std::string& name) const {
  for (auto& s : spec_.slots)
    if (s.name == name) return s;
  std::vector<std::string> names;
  for (auto& s : spec_.slots) names.push_back(s.name);
  std::string near = nearest_name(name, names);
  throw std::invalid_argument("platform " + spec_.name + " has no slot '" + name + "'" +
                              (near.empty() ? "" : " (did you mean '" + near + "'?)"));
}

std::vector<unsigned> E7500Host::attach(const std::string& slot_name, PciDevice& dev) {
  const E7500BoardSlot& sl = slot(slot_name);
  if (occupant_.count(slot_name)) throw std::invalid_argument("slot '" + slot_name + "' of " + name_ + " is taken");
  const PciDeviceInfo& info = dev.info();
  P64H2& br = top_->bridge;
  PciSegment& seg = br.segment(sl.segment);
  seg.plug(dev);
  occupant_[slot_name] = &dev;
  std::vector<unsigned> vectors;
  const uint64_t window_end = spec_.mmio_base + (sl.segment + 1) * spec_.segment_window_bytes;
  for (unsigned fn = 0; fn < info.functions; ++fn) {
    uint64_t size = info.bar_size;
    uint64_t base = (next_bar_[sl.segment] + size - 1) / size * size;  // BARs are naturally aligned
    if (base + size > window_end) throw std::runtime_error("segment window exhausted in " + name_);
    dev.set_bar(fn, base);
    next_bar_[sl.segment] = base + size;
    if (uint64_t io_size = info.io_bar_size) {  // like a BIOS: naturally aligned, inside the segment's I/O window
      const uint64_t io_end = spec_.io_base + (sl.segment + 1) * spec_.segment_io_bytes;
      uint64_t io = (next_io_bar_[sl.segment] + io_size - 1) / io_size * io_size;
      if (io + io_size > io_end) throw std::runtime_error("segment I/O window exhausted in " + name_);
      dev.set_io_bar(fn, io);
      next_io_bar_[sl.segment] = io + io_size;
    }
    // INTx routing: function fn uses INTA#..INTD# (fn mod 4) into the slot's I/OxAPIC inputs.
    unsigned pin = sl.first_pin + fn % 4;
    IoxApic& apic = br.ioxapic(sl.segment);
    dev.irq_out(fn).bind(apic.pin(pin));
    auto key = std::make_pair(sl.segment, pin);
    auto it = vectors_.find(key);
    if (it == vectors_.end()) {
      it = vectors_.emplace(key, next_vector_).first;
      next_vector_ += spec_.vector_step;
      RedirectionEntry e;
      e.vector = it->second;
      e.masked = false;
      e.level = true;  // PCI INTx# is level-triggered, active low
      e.dest = spec_.irq_dest_apic;
      apic.program(pin, e);
    }
    vectors.push_back(it->second);
  }
  return vectors;
}

tlm::tlm_target_socket<>& E7500Host::fsb_target() { return top_->mch.fsb_target; }
sc_core::sc_port<apic_msg_if>& E7500Host::apic_out() { return top_->mch.apic_out; }
eoi_if& E7500Host::eoi_in() { return top_->mch; }
void E7500Host::mem_write(uint64_t addr, const void* src, size_t len) { top_->dram.write(addr, src, len); }
void E7500Host::mem_read(uint64_t addr, void* dst, size_t len) const { top_->dram.read(addr, dst, len); }
uint64_t E7500Host::dram_bytes() const { return top_->dram.size(); }
void E7500Host::set_dma_write_observer(std::function<void(uint64_t, size_t)> observer) {
  top_->mch.set_inbound_write_observer(std::move(observer));
}

PciDevice* E7500Host::device_in(const std::string& s) const {
  auto it = occupant_.find(s);
  return it == occupant_.end() ? nullptr : it->second;
}

std::string E7500Host::slot_bus(const std::string& s) const {
  const E7500BoardSlot& sl = slot(s);
  return "P64H2 " + top_->bridge.segment(sl.segment).summary();
}

nlohmann::json E7500Host::params_json() const {
  nlohmann::json j = params_;
  P64H2& b = const_cast<E7500Host*>(this)->bridge();  // segment() is non-const; current_mode() only reads
  for (unsigned i = 0; i < 2; ++i) j["segments"][i == 0 ? "segA" : "segB"] = b.segment(i).current_mode().describe();
  return j;
}

bool E7500Host::same_segment(const std::string& a, const std::string& b) const {
  return slot(a).segment == slot(b).segment;
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
