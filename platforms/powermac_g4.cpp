// The Power Mac G4 of seed 001. Where the research has a gap, the choice is argued here:
//
// CPU clock (research §1.1 [GAP]: Bill Fink's model is not in the thread). The 7450 machines with
// built-in gigabit by Nov 2001 are the Digital Audio (Jan 2001: 667/733 MHz) and the QuickSilver (Jul
// 2001: 733, 867, dual 800 MHz). 733 MHz is the one clock both lines sold (the Digital Audio's top
// model and the QuickSilver's base model), so it is the default; cpu_mhz covers 667-867 (the ppc7450
// profile's range) and cpus = 2 the dual 800.
//
// The internal PCI bus (research §1.1 [GAP]: 33 or 66 MHz not established). The facts: the GMAC is
// on UniNorth's own die ("The Uni-N IC includes an Ethernet media access controller", Apple developer
// note Dec 2000) behind the third of UniNorth's identical host bridges, with no connector and no
// other load but UniNorth's FireWire; the earlier UniNorth drove its one PCI bus at 66 MHz, 32 bits
// (Sawtooth developer note, Jun 2000: "66-MHz, 32-bit bus" to the boot ROM and the PCI-PCI bridge);
// the GEM core senses M66EN and both drivers read it and program RXDMA_BLANK for either clock, so
// their authors met (or expected) both. Default: 66 MHz and 32 bits (estimate: the bridge design's
// known mode; the bus has nothing on it that would force 33). internal_pci_mhz = 33 is the other
// reading (M66EN clear, the GMAC's clock and RXDMA_BLANK unit halve), internal_pci_bits = 64 a
// what-if.
#include "platforms/powermac_g4.h"
#include "core/calib.h"
#include "drivers-sim/kernel/kernel.h"
#include "models/bus/pci_timing.h"
#include "models/chipset/uninorth.h"
#include <fmt/format.h>

namespace nicsim {

namespace {
constexpr unsigned kSlotCount = 4;       // research §1.1: 4 × 64-bit/33 MHz PCI slots
constexpr unsigned kSlotFirstIrq = 56;   // estimate: OpenPIC sources of slots 1-4 (KeyLargo's routing not read)
}  // namespace

ParamSchema powermac_g4_param_schema() {
  ParamSchema s = {
      real_param("cpu_mhz", 733, 667, 867, "MHz",
                 "MPC7450 core clock (Digital Audio 667/733, QuickSilver 733/867 or dual 800)",
                 "research seeds §1.1 (macinfo.de, CNN/Macworld 2001-01-12); default argued in platforms/powermac_g4.cpp"),
      int_param("cpus", 1, 1, 2, "CPUs", "populated processors (2: the dual-800 QuickSilver)",
                "research seeds §1.1: dual 800 MHz QuickSilver, single otherwise"),
      int_param("dram_mb", 256, 64, 1536, "MB", "installed PC133 SDRAM (three DIMM sockets of up to 512 MB)",
                "estimate: a typical 2001 configuration; research §1.1: 3 DIMMs, PC133"),
      real_param("dram_tcl_clocks", 3.0, 2.0, 3.0, "SDRAM clocks", "CAS latency of the PC133 DIMMs",
                 "PC133 DIMMs are CL2 or CL3; estimate: CL3, the slower parts"),
      int_param("internal_pci_mhz", 66, 33, 66, "MHz",
                "clock of UniNorth's internal PCI bus, the GMAC's (33 or 66; sets the GMAC's M66EN)",
                "estimate, argued in platforms/powermac_g4.cpp (research §1.1 [GAP])"),
      int_param("internal_pci_bits", 32, 32, 64, "bits", "width of UniNorth's internal PCI bus (32 or 64)",
                "estimate: the earlier UniNorth's PCI bus was 32-bit (Apple Sawtooth developer note, Jun 2000)"),
      calibratable(
          int_param("uninorth_mr_fetch_bytes", 32, 32, 4096, "bytes",
                    "what a UniNorth PCI host bridge reads from SDRAM for one Memory Read (the GMAC's read command)",
                    "estimate: the rest of one 32-byte line, as Apple's earlier host bridges read (Bandit: MR 8 B, "
                    "MRL/MRM one 32 B line then disconnect, Apple 'Designing PCI Cards and Drivers for Power Macintosh', "
                    "Bursting from PCI to PowerPC; MPC106 PCMRB 32 B to the end of the line, PCIB/MC UM 8.1.3.1); no "
                    "UniNorth figure found (models/chipset/uninorth.cpp)"),
          32,
          "one 32-byte line: the PC133 SDRAM burst of four 64-bit beats and the MPX bus's line, the least "
          "UniNorth's memory controller reads",
          512,
          "the Memory Read Multiple prefetch (uninorth_mrm_prefetch_bytes, 512 B): by PCI 2.2 §3.1.1's command "
          "usage a bridge reads no more for a Memory Read than for the command that exists to ask for more",
          "how much a UniNorth PCI host bridge fetches for one Memory Read: how many retried delayed reads the "
          "GMAC's transmit DMA (Memory Read only) pays per frame"),
      string_param("uninorth_pci_reads", "delayed", {"delayed", "wait-states"},
                   "how a UniNorth PCI host bridge answers a device's memory read: delayed = Retry at once, the "
                   "request latched and fetched (a delayed transaction); wait-states = holds the master up to "
                   "PCI's 16-clock initial latency, streaming the fetch if its first data comes in time, Retry at "
                   "the 16th clock otherwise",
                   "estimate: no UniNorth figure; PCI 2.2 3.5.1.1 (16 clocks); MPC106 and Bandit stream a line "
                   "(models/chipset/uninorth.cpp)"),
      int_param("uninorth_mrm_prefetch_bytes", 512, 32, 4096, "bytes",
                "what a UniNorth PCI host bridge reads from SDRAM for one Memory Read Multiple",
                "estimate: the P64H2 model's 512 B (no UniNorth figure)"),
  };
  for (auto& k : kernel_param_schema(kPowerMacKernelProfile, kPowerMacCpuProfile)) s.push_back(k);
  return s;
}

ChipsetBoardSpec powermac_g4_board(const ParamValues& v) {
  ChipsetBoardSpec s;
  s.name = kPowerMacG4Name;
  s.title = "Apple Power Mac G4 (Digital Audio / QuickSilver, 2001): MPC7450, UniNorth, built-in gigabit Ethernet";
  s.cpu_part = "Motorola MPC7450";
  s.cpu_mhz = board_real(v, "cpu_mhz", 733);
  s.cpus = static_cast<unsigned>(board_int(v, "cpus", 1));
  s.north_name = "uninorth";
  s.north_part = "Apple UniNorth system controller (MPX bus, PC133 SDRAM controller, PCI host bridges)";
  s.north = uninorth_params();
  s.dram = pc133_sdram_params(uint64_t(board_int(v, "dram_mb", 256)) << 20, board_real(v, "dram_tcl_clocks", 3.0));
  const uint32_t mr = static_cast<uint32_t>(board_int(v, "uninorth_mr_fetch_bytes", 32));
  const uint32_t mrm = static_cast<uint32_t>(board_int(v, "uninorth_mrm_prefetch_bytes", 512));
  const bool wait_states = v.has("uninorth_pci_reads") && v.s("uninorth_pci_reads") == "wait-states";

  auto host_bridge = [&](const char* name, const char* part, const char* port_name, unsigned port, const char* bus,
                         unsigned bits, unsigned mhz) {
    ChipsetBridgeSpec b;
    b.name = name;
    b.part = part;
    b.link_name = port_name;
    b.link_part = "UniNorth on-die port";
    b.port = port;
    b.link = uninorth_pci_port_params();
    b.bridge = uninorth_pci_bridge_params(mr, mrm, wait_states);
    b.apic = openpic_params();
    b.segment[0] = uninorth_pci_bus_params("A", bits, mhz);
    b.segment[1] = uninorth_pci_bus_params("B", 32, 33);  // unused: a host bridge drives one bus (PcixBridge has two)
    b.segment_bus[0] = bus;
    b.segment_bus[1] = "(none)";
    return b;
  };
  s.bridges.push_back(host_bridge("pci_f4", "UniNorth internal PCI host bridge, pci@f4000000", "port_f4", 0,
                                  "internal PCI bus", static_cast<unsigned>(board_int(v, "internal_pci_bits", 32)),
                                  static_cast<unsigned>(board_int(v, "internal_pci_mhz", 66))));
  // research §1.1: 4 × 64-bit/33 MHz PCI slots; KeyLargo (mac-io) sits on this bus too (not modelled).
  s.bridges.push_back(host_bridge("pci_f2", "UniNorth PCI host bridge, pci@f2000000", "port_f2", 1, "PCI slot bus",
                                  64, 33));
  // PCI memory above DRAM (Open Firmware's exact assignment is not modelled; timing does not depend on it).
  s.mmio_base = 0x80000000;
  s.segment_window_bytes = 0x02000000;
  s.vector_is_input = true;  // Linux/PPC: irq = OpenPIC source number (the seed's "41: ... OpenPIC")
  s.irq_chip = "OpenPIC";     // KeyLargo's MPIC, an OpenPIC (models/chipset/uninorth.cpp openpic_params)
  s.irq_dest_apic = 0;

  ChipsetSlot gmac;
  gmac.name = "onboard-gmac";
  gmac.bridge = 0;
  gmac.segment = 0;
  gmac.description = "built-in Ethernet (Apple GMAC, 10/100/1000BASE-T)";
  gmac.onboard = true;
  gmac.onboard_devices = {kPowerMacOnboardNic};
  gmac.first_pin = kPowerMacGmacIrq;
  gmac.location = "/pci@f4000000/ethernet@f (device 15)";
  s.slots.push_back(gmac);
  for (unsigned i = 0; i < kSlotCount; ++i) {
    ChipsetSlot sl;
    sl.name = fmt::format("slot{}", i + 1);
    sl.bridge = 1;
    sl.segment = 0;
    sl.description = fmt::format("PCI slot {}, 64-bit 33 MHz", i + 1);
    sl.first_pin = kSlotFirstIrq + i;
    sl.location = "pci@f2000000";
    s.slots.push_back(sl);
  }
  s.notes = {
      "CPU: default 733 MHz, the one MPC7450 clock of both 2001 lines with built-in gigabit (Fink's model is not "
      "known); L3 by model: 1 MB at 3:1 (Digital Audio 733), 2 MB at 4:1 (QuickSilver 867 / dual 800), none "
      "(QuickSilver 733): not modelled",
      "internal PCI bus: 33 or 66 MHz is not established; default 66 MHz / 32-bit (estimate argued in "
      "platforms/powermac_g4.cpp); the GMAC reads M66EN from its bus and RXDMA_BLANK counts its clock",
      "OpenPIC (KeyLargo MPIC) as the level-triggered I/OxAPIC rule: in service until EOI, delivered again at EOI "
      "while asserted; irq = source; slot sources 56-59 are estimates; the IACK/EOI/mask register accesses of the "
      "interrupt path are the cost table's (linux-2.4-ppc7450 irq_entry, apic_eoi)",
      "not modelled: AGP (pci@f0000000), KeyLargo's other I/O, FireWire, the L3 cache, UniNorth's GMAC clock gate",
      "no UniNorth datasheet timing was found: system controller, port and host bridge constants are estimates "
      "(models/chipset/uninorth.cpp)"};
  return s;
}

std::vector<SlotSpec> powermac_g4_slots() {
  std::vector<SlotSpec> out;
  const ChipsetBoardSpec b = powermac_g4_board(ParamValues(powermac_g4_param_schema()));
  for (auto& sl : b.slots) {
    SlotSpec s;
    s.name = sl.name;
    s.segment = b.bridges[sl.bridge].part + " (" + b.bridges[sl.bridge].segment_bus[sl.segment] + ")";
    s.description = sl.description;
    s.onboard = sl.onboard;
    s.onboard_devices = sl.onboard_devices;
    out.push_back(std::move(s));
  }
  return out;
}

std::string describe_powermac_g4(const ParamValues& v) {
  const ChipsetBoardSpec s = powermac_g4_board(v);
  const auto* gem = Registry<DeviceEntry>::instance().find(kPowerMacOnboardNic);
  std::string o = s.name + "  " + s.title + "\n";
  o += fmt::format("├─ CPUs: {} × {} {:.0f} MHz, big-endian, on a {:.0f} MHz 64-bit MPX bus (MaxBus, {:.0f} MB/s)\n",
                   s.cpus, s.cpu_part, s.cpu_mhz, s.north.fsb_mhz, s.north.fsb_mhz * s.north.fsb_bytes_per_clock);
  o += "└─ " + s.north_part + "\n";
  o += fmt::format("   ├─ SDRAM: {} MB PC133, {} channel (not interleaved), {}-bit, {:.0f} MB/s, {}-byte lines "
                   "(tCL {} tRCD {} tRP {} tRD {} clocks)\n",
                   s.dram.size_bytes >> 20, s.dram.channels, s.dram.channel_bytes * 8,
                   s.dram.channels * s.dram.channel_bytes * s.dram.transfers_per_clock * s.dram.clock_mhz,
                   s.dram.line_bytes, s.dram.tCL_clocks, s.dram.tRCD_clocks, s.dram.tRP_clocks, s.dram.tRD_clocks);
  for (unsigned bi = 0; bi < s.bridges.size(); ++bi) {
    const ChipsetBridgeSpec& b = s.bridges[bi];
    const bool last = bi + 1 == s.bridges.size();
    const std::string br = last ? "   └─ " : "   ├─ ", cont = last ? "      " : "   │  ";
    const HubLinkParams& l = b.link;
    o += br + s.north.port_names[b.port] +
         fmt::format(" ({}): {} {}-bit × {:.0f} MT/s = {:.0f} MB/s per direction, {:.0f} ns per crossing\n",
                     b.link_name, b.link_part, l.width_bits, l.clock_mhz * l.transfers_per_clock,
                     l.width_bits / 8.0 * l.clock_mhz * l.transfers_per_clock, l.crossing_ns);
    o += cont + "└─ " + b.part + " (" + b.name + ")" +
         fmt::format(": inbound reads {} fetching {} B (Memory Read) / {} B (Read Multiple), "
                     "{} B of posted writes\n",
                     b.bridge.target_initial_latency_clocks > 0
                         ? fmt::format("held with wait states when first data is possible within {:.0f} clocks "
                                       "(else delayed transactions),",
                                       b.bridge.target_initial_latency_clocks)
                         : std::string("are delayed transactions"),
                     b.bridge.mr_fetch_bytes, b.bridge.mrm_prefetch_bytes, b.bridge.posted_write_buffer_bytes);
    const PciSegmentParams& sp = b.segment[0];
    std::vector<PciDeviceInfo> parts;
    for (auto& sl : s.slots)
      if (sl.bridge == bi && sl.onboard && gem) parts.push_back(gem->info);
    const PciSegmentMode m = resolve_segment_mode(parts, sp.max_pcix_mhz, sp.max_pci_mhz);
    std::string mode = fmt::format("PCI {} MHz, {}-bit, peak {:.0f} MB/s", m.mhz, sp.width_bits,
                                   pci_peak_mb_per_s(sp.width_bits, m.mhz));
    if (!parts.empty()) mode += m.mhz > 33 ? " (M66EN high: the GMAC senses 66 MHz)" : " (M66EN low: 33 MHz)";
    o += cont + fmt::format("   └─ {}: {}; cache line {} B, latency timer {}\n", b.segment_bus[0], mode,
                            sp.cache_line_bytes, sp.latency_timer_clocks);
    std::vector<const ChipsetSlot*> mine;
    for (auto& sl : s.slots)
      if (sl.bridge == bi) mine.push_back(&sl);
    for (size_t i = 0; i < mine.size(); ++i) {
      const ChipsetSlot& sl = *mine[i];
      std::string what = sl.description;
      if (sl.onboard) {
        what += " [onboard position:";
        for (auto& d : sl.onboard_devices) what += " " + d;
        what += gem ? "]" : ", not a registered device in this build]";
      }
      o += cont + "      " + (i + 1 == mine.size() ? "└─ " : "├─ ") + "slot " + sl.name + ": " + what + "; " +
           sl.location + fmt::format("; INTA# → OpenPIC source {} (level){} = irq {}\n", sl.first_pin,
                                     sl.onboard ? "" : " (estimate)", sl.first_pin);
    }
  }
  for (auto& n : s.notes) o += "   (" + n + ")\n";
  return o;
}

static std::vector<ParamProblem> powermac_check(const HostConfig& host) {
  std::vector<ParamProblem> out = board_problems(host, {});
  const std::string pre = "hosts." + host.name + ".";
  const int64_t mhz = board_int(host.params, "internal_pci_mhz", 66);
  if (mhz != 33 && mhz != 66)
    out.push_back({pre + "internal_pci_mhz", fmt::format("{} MHz is not a clock of a conventional PCI bus: use 33 or 66", mhz)});
  const int64_t bits = board_int(host.params, "internal_pci_bits", 32);
  if (bits != 32 && bits != 64)
    out.push_back({pre + "internal_pci_bits", fmt::format("{} bits is not a PCI bus width: use 32 or 64", bits)});
  return out;
}

static Registrar<PlatformEntry> powermac_g4_reg{PlatformEntry{
    kPowerMacG4Name,
    "Apple Power Mac G4 (2001): MPC7450 on a 133 MHz MPX bus, UniNorth (PC133 SDRAM; internal PCI bus with the "
    "built-in GMAC at OpenPIC 41; PCI slot bus 64-bit/33 MHz)",
    powermac_g4_param_schema(),
    powermac_g4_slots(),
    [](const HostConfig& host) -> std::unique_ptr<HostHw> {
      ParamValues v(powermac_g4_param_schema());
      for (auto& [k, val] : host.params.all()) v.set(k, val);
      return std::make_unique<ChipsetHost>(host.name, powermac_g4_board(v), v.to_json());
    },
    [](const ParamValues& params) {
      std::string d = describe_powermac_g4(params);
      try {
        d += describe_profiles(params);
      } catch (const std::invalid_argument& e) {  // a scenario naming an unknown profile
        d += std::string("profiles: ") + e.what() + "\n";
      }
      return d;
    },
    powermac_check,
}};

}  // namespace nicsim
