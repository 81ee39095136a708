#include "platforms/chipset_host.h"
#include "drivers-sim/kernel/kernel.h"
#include "models/scsi/aic7899.h"
#include <algorithm>
#include <cctype>
#include <fmt/core.h>
#include <stdexcept>

namespace nicsim {

std::unique_ptr<PciDmaMaster> make_builtin_device(const std::string& device, const std::string& inst_name) {
  if (device == "AIC-7899") return std::make_unique<Aic7899>(inst_name.c_str());
  throw std::invalid_argument("unknown built-in device '" + device + "'");
}

static std::string module_safe(std::string s) {
  for (auto& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) c = '_';
  return s;
}

struct ChipsetHost::Top : sc_core::sc_module {
  Dram dram;
  HostBridge north;
  std::vector<std::unique_ptr<HubLink>> links;
  std::vector<std::unique_ptr<PcixBridge>> bridges;
  std::vector<std::unique_ptr<PciDmaMaster>> builtins;

  Top(sc_core::sc_module_name n, const ChipsetBoardSpec& s)
      : sc_module(n), dram("dram", s.dram), north(s.north_name.c_str(), s.north, s.dram.size_bytes) {
    north.mem_initiator.bind(dram.target);
    for (auto& b : s.bridges) {
      links.push_back(std::make_unique<HubLink>(b.link_name.c_str(), b.link));
      bridges.push_back(std::make_unique<PcixBridge>(b.name.c_str(), b.bridge, b.segment[0], b.segment[1], b.apic));
      HubLink& l = *links.back();
      PcixBridge& br = *bridges.back();
      north.hub_down.at(b.port)->bind(l.down_target);
      l.up_initiator.bind(*north.hub_up.at(b.port));
      l.down_initiator.bind(br.hub_target);
      br.hub_initiator.bind(l.up_target);
      north.eoi_down.bind(l.eoi_in);
      l.eoi_out.bind(br.eoi_in);
    }
    // Slot names become module names of built-ins: keep them SystemC-safe.
    for (auto& sl : s.slots)
      if (!sl.builtin.empty()) builtins.push_back(make_builtin_device(sl.builtin, sl.name == "" ? "builtin" : module_safe(sl.name)));
  }
};

uint64_t ChipsetHost::window_base(unsigned b, unsigned k) const {
  return spec_.mmio_base + (2 * b + k) * spec_.segment_window_bytes;
}
uint64_t ChipsetHost::io_window_base(unsigned b, unsigned k) const {
  return spec_.io_base + (2 * b + k) * spec_.segment_io_bytes;
}

ChipsetHost::ChipsetHost(const std::string& host_name, const ChipsetBoardSpec& spec, nlohmann::json params_used)
    : name_(host_name), spec_(spec), params_(std::move(params_used)), next_vector_(spec.first_vector) {
  const unsigned nb = static_cast<unsigned>(spec_.bridges.size());
  if (spec_.dram.size_bytes > spec_.mmio_base) throw std::invalid_argument(spec_.name + ": DRAM overlaps the PCI memory hole");
  if (window_base(nb, 0) > (1ull << 32) || io_window_base(nb, 0) > kIoSpaceBytes)
    throw std::invalid_argument(spec_.name + ": the segments' memory or I/O windows do not fit below 4 GB / 64 KB");
  std::vector<bool> used(spec_.north.port_names.size(), false);
  for (auto& b : spec_.bridges) {
    if (b.port >= used.size() || used[b.port])
      throw std::invalid_argument(spec_.name + ": bridge " + b.name + " on a missing or shared north-bridge port");
    used[b.port] = true;
  }
  for (auto& sl : spec_.slots)
    if (sl.bridge >= nb || sl.segment > 1) throw std::invalid_argument(spec_.name + ": slot " + sl.name + " on no segment");
  top_ = std::make_unique<Top>(module_safe(host_name).c_str(), spec_);
  for (unsigned b = 0; b < nb; ++b) {
    const ChipsetBridgeSpec& bs = spec_.bridges[b];
    PcixBridge& br = *top_->bridges[b];
    for (unsigned k = 0; k < 2; ++k) {
      br.set_window(k, window_base(b, k), spec_.segment_window_bytes);
      br.set_io_window(k, io_window_base(b, k), spec_.segment_io_bytes);
      next_bar_[{b, k}] = window_base(b, k);
      next_io_bar_[{b, k}] = io_window_base(b, k);
    }
    top_->north.map_hub_window(bs.port, window_base(b, 0), 2 * spec_.segment_window_bytes);
    top_->north.map_hub_io_window(bs.port, io_window_base(b, 0), 2 * spec_.segment_io_bytes);
  }
  size_t n = 0;
  for (auto& sl : spec_.slots)
    if (!sl.builtin.empty()) attach(sl.name, *top_->builtins.at(n++));
}

ChipsetHost::~ChipsetHost() = default;

HostBridge& ChipsetHost::north() { return top_->north; }
Dram& ChipsetHost::dram() { return top_->dram; }
HubLink& ChipsetHost::link(unsigned b) { return *top_->links.at(b); }
PcixBridge& ChipsetHost::bridge(unsigned b) { return *top_->bridges.at(b); }

const ChipsetSlot& ChipsetHost::slot(const std::string& name) const {
  for (auto& s : spec_.slots)
    if (s.name == name) return s;
  std::vector<std::string> names;
  for (auto& s : spec_.slots) names.push_back(s.name);
  std::string near = nearest_name(name, names);
  throw std::invalid_argument("platform " + spec_.name + " has no slot '" + name + "'" +
                              (near.empty() ? "" : " (did you mean '" + near + "'?)"));
}

std::vector<unsigned> ChipsetHost::attach(const std::string& slot_name, PciDevice& dev) {
  const ChipsetSlot& sl = slot(slot_name);
  if (occupant_.count(slot_name)) throw std::invalid_argument("slot '" + slot_name + "' of " + name_ + " is taken");
  const PciDeviceInfo& info = dev.info();
  PcixBridge& br = *top_->bridges[sl.bridge];
  br.segment(sl.segment).plug(dev);
  occupant_[slot_name] = &dev;
  const auto key = std::make_pair(sl.bridge, sl.segment);
  const uint64_t window_end = window_base(sl.bridge, sl.segment) + spec_.segment_window_bytes;
  const uint64_t io_end = io_window_base(sl.bridge, sl.segment) + spec_.segment_io_bytes;
  std::vector<unsigned> vectors;
  for (unsigned fn = 0; fn < info.functions; ++fn) {
    uint64_t size = info.bar_size;
    uint64_t base = (next_bar_[key] + size - 1) / size * size;  // BARs are naturally aligned
    if (base + size > window_end) throw std::runtime_error("segment window exhausted in " + name_);
    dev.set_bar(fn, base);
    next_bar_[key] = base + size;
    if (uint64_t io_size = info.io_bar_size) {
      uint64_t io = (next_io_bar_[key] + io_size - 1) / io_size * io_size;
      if (io + io_size > io_end) throw std::runtime_error("segment I/O window exhausted in " + name_);
      dev.set_io_bar(fn, io);
      next_io_bar_[key] = io + io_size;
    }
    // INTx routing: function fn uses INTA#..INTD# (fn mod 4) into the slot's I/OxAPIC inputs.
    const unsigned pin = sl.first_pin + fn % 4;
    IoxApic& apic = br.ioxapic(sl.segment);
    dev.irq_out(fn).bind(apic.pin(pin));
    auto it = vectors_.find({&apic, pin});
    if (it == vectors_.end()) {
      if (spec_.vector_is_input) {
        it = vectors_.emplace(std::make_pair(&apic, pin), pin).first;
      } else {
        it = vectors_.emplace(std::make_pair(&apic, pin), next_vector_).first;
        next_vector_ += spec_.vector_step;
      }
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

tlm::tlm_target_socket<>& ChipsetHost::fsb_target() { return top_->north.fsb_target; }
sc_core::sc_port<apic_msg_if>& ChipsetHost::apic_out() { return top_->north.apic_out; }
eoi_if& ChipsetHost::eoi_in() { return top_->north; }
void ChipsetHost::mem_write(uint64_t addr, const void* src, size_t len) { top_->dram.write(addr, src, len); }
void ChipsetHost::mem_read(uint64_t addr, void* dst, size_t len) const { top_->dram.read(addr, dst, len); }
uint64_t ChipsetHost::dram_bytes() const { return top_->dram.size(); }
void ChipsetHost::set_dma_write_observer(std::function<void(uint64_t, size_t)> observer) {
  top_->north.set_inbound_write_observer(std::move(observer));
}

PciDevice* ChipsetHost::device_in(const std::string& s) const {
  auto it = occupant_.find(s);
  return it == occupant_.end() ? nullptr : it->second;
}

std::string ChipsetHost::slot_bus(const std::string& s) const {
  const ChipsetSlot& sl = slot(s);
  const ChipsetBridgeSpec& b = spec_.bridges[sl.bridge];
  return fmt::format("{} {} ({}) {}", b.part, b.name, b.segment_bus[sl.segment],
                     top_->bridges[sl.bridge]->segment(sl.segment).summary());
}

SlotSharing ChipsetHost::sharing(const std::string& a, const std::string& b) const {
  const ChipsetSlot &x = slot(a), &y = slot(b);
  const ChipsetBridgeSpec &bx = spec_.bridges[x.bridge], &by = spec_.bridges[y.bridge];
  const std::string north = "north bridge " + spec_.north_name;
  if (x.bridge == y.bridge && x.segment == y.segment)
    return {SlotSharing::Level::segment, "same segment: the two share the bus",
            fmt::format("the {} {}", bx.link_part, bx.link_name)};
  if (x.bridge == y.bridge)
    return {SlotSharing::Level::bridge_link,
            fmt::format("other segment of the same {} {}: the two share only its {} {} to the {}", bx.part, bx.name,
                        bx.link_part, bx.link_name, north),
            fmt::format("the {} {}", bx.link_part, bx.link_name)};
  return {SlotSharing::Level::north_bridge,
          fmt::format("behind another bridge, {} {} on its own {} {}: the two share only the {} and its memory",
                      by.part, by.name, by.link_part, by.link_name, north),
          fmt::format("the {} {} and {}", bx.link_part, bx.link_name, by.link_name)};
}

nlohmann::json ChipsetHost::params_json() const {
  nlohmann::json j = params_;
  for (unsigned b = 0; b < spec_.bridges.size(); ++b)
    for (unsigned k = 0; k < 2; ++k) {
      // A segment with no slot or onboard position on this board carries nothing: the board leaves
      // it out (e.g. the PE2650's ciob1 segment B), so its clock is not a fact of the run.
      const bool used = std::any_of(spec_.slots.begin(), spec_.slots.end(),
                                    [&](const ChipsetSlot& sl) { return sl.bridge == b && sl.segment == k; });
      if (!used) continue;
      j["segments"][spec_.bridges[b].name + ".seg" + spec_.bridges[b].segment[k].label] =
          top_->bridges[b]->segment(k).current_mode().describe();
    }
  return j;
}

}  // namespace nicsim

namespace nicsim {

std::string describe_chipset_board(const ChipsetBoardSpec& s, const std::map<std::string, PciDeviceInfo>& fixed) {
  std::string o;
  const double fsb_gbs = s.north.fsb_mhz * s.north.fsb_bytes_per_clock / 1000.0;
  const double dram_mbs = s.dram.channels * s.dram.channel_bytes * s.dram.transfers_per_clock * s.dram.clock_mhz;
  o += s.name + "  " + s.title + "\n";
  o += fmt::format("├─ CPUs: {} × {} {:.0f} MHz on a {:.0f} MT/s 64-bit front-side bus ({:.1f} GB/s)\n", s.cpus,
                   s.cpu_part, s.cpu_mhz, s.north.fsb_mhz * 4, fsb_gbs);
  o += "└─ " + s.north_part + "\n";
  o += fmt::format("   ├─ DRAM: {} MB, {}-way interleaved DDR{:.0f}, {}-bit, {:.0f} MB/s (tCL {} tRCD {} tRP {} tRD {} clocks)\n",
                   s.dram.size_bytes >> 20, s.dram.channels, s.dram.clock_mhz * 2,
                   s.dram.channels * s.dram.channel_bytes * 8, dram_mbs, s.dram.tCL_clocks, s.dram.tRCD_clocks,
                   s.dram.tRP_clocks, s.dram.tRD_clocks);
  const size_t np = s.north.port_names.size();
  for (size_t p = 0; p < np; ++p) {
    const bool last = p + 1 == np;
    const std::string br = last ? "   └─ " : "   ├─ ", cont = last ? "      " : "   │  ";
    const ChipsetBridgeSpec* b = nullptr;
    unsigned bi = 0;
    for (unsigned i = 0; i < s.bridges.size(); ++i)
      if (s.bridges[i].port == p) b = &s.bridges[i], bi = i;
    if (!b) {
      o += br + s.north.port_names[p] + ": empty\n";
      continue;
    }
    const HubLinkParams& l = b->link;
    const double mbs = l.width_bits / 8.0 * l.clock_mhz * l.transfers_per_clock;
    o += br + s.north.port_names[p] +
         fmt::format(" ({}): {} {}-bit × {:.0f} MT/s = {:.0f} MB/s {}, {}-byte header per ≤{}-byte packet, {:.0f} ns per crossing\n",
                     b->link_name, b->link_part, l.width_bits, l.clock_mhz * l.transfers_per_clock, mbs,
                     l.shared_pipe ? "shared by both directions" : "per direction (full duplex)", l.header_bytes,
                     l.max_payload_bytes, l.crossing_ns);
    o += cont + "└─ " + b->part + " (" + b->name + ") PCI/PCI-X bridge" +
         (b->bridge.ioxapic_per_segment ? "" : fmt::format(", one I/OxAPIC ({} inputs) for both segments", b->apic.redirection_entries)) +
         "\n";
    for (unsigned k = 0; k < 2; ++k) {
      const PciSegmentParams& sp = b->segment[k];
      const std::string sbr = cont + (k == 1 ? "   └─ " : "   ├─ "), scont = cont + (k == 1 ? "      " : "   │  ");
      std::vector<PciDeviceInfo> parts;
      std::vector<const ChipsetSlot*> mine;
      bool open = false;
      for (auto& sl : s.slots) {
        if (sl.bridge != bi || sl.segment != k) continue;
        mine.push_back(&sl);
        if (auto it = fixed.find(sl.name); it != fixed.end()) parts.push_back(it->second);
        if (!sl.onboard) open = true;
      }
      std::string mode;
      if (!parts.empty()) {
        PciSegmentMode m = resolve_segment_mode(parts, sp.max_pcix_mhz, sp.max_pci_mhz);
        mode = fmt::format("{}, {}-bit, peak {:.0f} MB/s with the onboard parts", m.describe(), sp.width_bits,
                           pci_peak_mb_per_s(sp.width_bits, m.mhz));
      } else if (open) {
        mode = fmt::format("PCI-X {} MHz, {}-bit, peak {:.0f} MB/s with a PCI-X card; PCI ≤{} MHz with a conventional card",
                           sp.max_pcix_mhz, sp.width_bits, pci_peak_mb_per_s(sp.width_bits, sp.max_pcix_mhz),
                           std::min(66u, sp.max_pci_mhz));
      } else {
        mode = "no open slot; the parts soldered here are not in this build";
      }
      o += sbr + "segment " + sp.label + " (" + b->segment_bus[k] + "): " + mode + "\n";
      for (auto* sl : mine) {
        std::string what = sl->description;
        if (sl->onboard) {
          what += " [onboard position:";
          for (auto& d : sl->onboard_devices) what += " " + d;
          what += "]";
        }
        if (!sl->location.empty()) what += "; " + sl->location;
        o += scont + "├─ slot " + sl->name + ": " + what +
             fmt::format("; INTA# → I/OxAPIC {} input {}\n", b->name, sl->first_pin);
      }
      if (b->bridge.ioxapic_per_segment)
        o += scont + fmt::format("└─ I/OxAPIC {}: {} inputs, level-triggered INTx#, messages up the link\n", sp.label,
                                 b->apic.redirection_entries);
    }
  }
  for (auto& n : s.notes) o += "   (" + n + ")\n";
  return o;
}

}  // namespace nicsim

namespace nicsim {

double board_real(const ParamValues& v, const char* n, double d) { return v.has(n) ? v.r(n) : d; }
int64_t board_int(const ParamValues& v, const char* n, int64_t d) { return v.has(n) ? v.i(n) : d; }
bool board_bool(const ParamValues& v, const char* n, bool d) { return v.has(n) ? v.b(n) : d; }

std::vector<ParamProblem> board_problems(const HostConfig& host, const std::vector<std::string>& pcix_clock_keys,
                                         const std::vector<std::string>& zero_means_auto) {
  std::vector<ParamProblem> out;
  const ParamValues& v = host.params;
  const std::string pre = "hosts." + host.name + ".";
  // The kernel delivers interrupts to / runs processes on these CPUs (drivers-sim/kernel/kernel.h):
  // the logical CPUs, packages x threads per core.
  int64_t threads = 1;
  try {
    threads = threads_per_core_of(v);
  } catch (const std::invalid_argument&) {  // an unknown CPU profile: profile_problems names it
  }
  const int64_t cpus = board_int(v, "cpus", 2) * threads;
  const std::string has = threads > 1 ? fmt::format("{} logical CPUs ({} x {} threads)", cpus, cpus / threads, threads)
                                      : fmt::format("cpus = {}", cpus);
  for (const char* k : {"irq_dest_cpu", "process_cpu"})
    if (v.has(k) && v.i(k) >= cpus)
      out.push_back({pre + k, fmt::format("CPU {} does not exist: the host has {} (CPUs 0..{})", v.i(k), has, cpus - 1)});
  if (v.has("cpus_allowed") && v.i("cpus_allowed") > 0 && cpus < 63 && (v.i("cpus_allowed") >> cpus) != 0)
    out.push_back({pre + "cpus_allowed",
                   fmt::format("mask 0x{:x} names a CPU that does not exist: the host has {} (mask bits 0..{})",
                               v.i("cpus_allowed"), has, cpus - 1)});
  if (v.has("cpus_allowed") && v.has("process_cpu") && v.i("cpus_allowed") > 0 && v.i("process_cpu") >= 0)
    out.push_back({pre + "process_cpu", "process_cpu is deprecated and conflicts with cpus_allowed: set only "
                                        "cpus_allowed (process_cpu = n is cpus_allowed = 1 << n)"});
  for (auto& p : profile_problems(host.name, v)) out.push_back(std::move(p));
  // PCI-X 1.0 §1.1 / Table 1-1: a PCI-X segment clocks at 66, 100 or 133 MHz.
  for (auto& key : pcix_clock_keys) {
    if (!v.has(key)) continue;
    const int64_t mhz = v.i(key);
    const bool auto_ok = std::find(zero_means_auto.begin(), zero_means_auto.end(), key) != zero_means_auto.end();
    if (mhz != 66 && mhz != 100 && mhz != 133 && !(auto_ok && mhz == 0))
      out.push_back({pre + key, fmt::format("{} MHz is not a PCI-X segment clock: 66, 100 or 133 (PCI-X 1.0){}", mhz,
                                            auto_ok ? ", or 0 for the board's own rule" : "")});
  }
  // PCI 2.2 §6.2.4: the Cache Line Size register is a power-of-two count of DWORDs.
  const int64_t cls = board_int(v, "pci_cache_line_bytes", 64);
  if (cls <= 0 || (cls & (cls - 1)) != 0)
    out.push_back({pre + "pci_cache_line_bytes",
                   fmt::format("{} bytes is not a power of two: 32, 64 or 128 (PCI 2.2 §6.2.4 Cache Line Size)", cls)});
  return out;
}

}  // namespace nicsim
