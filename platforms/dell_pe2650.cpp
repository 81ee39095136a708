#include "platforms/dell_pe2650.h"
#include "drivers-sim/kernel/kernel.h"
#include "models/bridge/ciobx2.h"
#include "models/chipset/serverworks_cmic.h"
#include <fmt/format.h>

namespace nicsim {

ParamSchema pe2650_param_schema() {
  ParamSchema s = {
      // 2400 MHz: the PE2650 dmesgs of 2002–03 show 2.4–2.8 GHz Xeons on the 400 MT/s bus
      // (tg3-bonding §1.3); 2.4 GHz is the low end of what was seen and the P4DPR-6GM+'s clock, so a
      // comparison of the two boards isolates the chipset.
      // The range is the xeon-prestonia CPU profile's (2.0–2.4 GHz, profile_linux_2_4_20.cpp), which
      // the cost table covers; the board also shipped with 1.8 and 2.6–2.8 GHz parts.
      real_param("cpu_mhz", 2400, 2000, 2400, "MHz",
                 "Xeon DP (Prestonia) core clock (the xeon-prestonia profile covers 2000-2400; the board shipped 1800-2800)",
                 "PE2650 dmesg: Xeon 2.4–2.8 GHz at 400 MT/s FSB (research tg3-bonding §1.3; seeds §4.2: 1.8–2.8)"),
      int_param("cpus", 2, 1, 2, "CPUs", "populated Xeon sockets", "the PE2650 is a dual-socket server (seeds §4.2)"),
      int_param("dram_mb", 1024, 256, 3072, "MB", "installed PC200 DDR registered ECC memory (pairs of DIMMs)",
                "estimate: typical 2002 node; Dell: up to 6 GB in three banks of two; kept below the PCI hole"),
      real_param("dram_tcl_clocks", 2.0, 2.0, 2.5, "DRAM clocks", "CAS latency",
                 "estimate: DDR200 registered DIMMs run CL 2 or 2.5 (as the E7500's DRT, research e7500 §1)"),
      int_param("pci_cache_line_bytes", 64, 32, 128, "bytes", "PCI Cache Line Size register value used by MRL/MRM/MWI",
                "estimate: Linux 2.4 on P4 writes 64 B (research e7500 §2 [S10]); 128 B after the 2003 patch [S41]"),
      real_param("imb_crossing_ns", 100.0, 50.0, 150.0, "ns", "IMBus one-way latency per crossing",
                 "estimate: HI 2.0's 50–150 ns (research e7500 §1); no IMBus latency was published (seeds §4.2)"),
      bool_param("onboard_nics", true,
                 "the two onboard BCM5701 (bus 03, devices 06 and 08) are fitted; false leaves them out (their positions "
                 "then take no NIC and bus 3 is empty)",
                 "PE2650 lspci (research tg3-bonding §1.3)"),
      int_param("riser_bus1_mhz", 0, 0, 133, "MHz",
                "fastest PCI-X clock of riser bus 1 (slots 1 and 2); 0 = as the manual: 100 MHz when slot 1 holds a "
                "card, 133 MHz with slot 2 alone",
                "PE2650 manual: slots 1–2 share bus 1 at ≤100 MHz, 133 MHz if only slot 2 is used (tg3-bonding §1.3)"),
      bool_param("detailed_dma", false,
                 "forward every posted 128-byte piece through IMBus, CMIC and DRAM as its own call instead of one "
                 "train per tenure (same results, slower; for comparison)",
                 "simulation speed switch, not hardware: PcixBridgeParams::detailed_dma"),
  };
  // The seed's kernel (2.4.18/2.4.19, not stated) has no profile of its own: the 2.4.20 i386
  // profiles, as the P4DPR-6GM+ (drivers-sim/kernel/profile_linux_2_4_20.cpp).
  for (auto& k : kernel_param_schema("linux-2.4.20-i386", "xeon-prestonia")) s.push_back(k);
  return s;
}

ChipsetBoardSpec pe2650_board(const ParamValues& v, bool slot1_used) {
  ChipsetBoardSpec s;
  s.name = kPe2650Name;
  s.title = "Dell PowerEdge 2650 (2U, dual Xeon, ServerWorks GC-LE chipset)";
  s.cpu_part = "Xeon DP (Prestonia)";
  s.cpu_mhz = board_real(v, "cpu_mhz", 2400);
  s.cpus = static_cast<unsigned>(board_int(v, "cpus", 2));
  s.north_name = "cmic";
  s.north_part = "ServerWorks CMIC-LE north bridge (GC-LE; lspci: CMIC-WS/CMIC-LE at 00:00.x)";
  s.north = serverworks_cmic_params();
  // DDR200, two-way interleaved: two identical DIMMs per bank (Dell PE2650 training, memory.html);
  // 2 channels × 1.6 GB/s = 3.2 GB/s (tecchannel, research seeds §4.2). DRAM timings: the E7500
  // model's DDR200 values (estimate: no GC-LE memory-controller timing found).
  s.dram.size_bytes = uint64_t(board_int(v, "dram_mb", 1024)) << 20;
  s.dram.channels = 2;
  s.dram.clock_mhz = 100.0;
  s.dram.tCL_clocks = board_real(v, "dram_tcl_clocks", 2.0);
  const uint32_t cls = static_cast<uint32_t>(board_int(v, "pci_cache_line_bytes", 64));
  const double crossing = board_real(v, "imb_crossing_ns", 100.0);

  auto bridge = [&](const char* name, const char* link, unsigned port, const char* busA, const char* busB) {
    ChipsetBridgeSpec b;
    b.name = name;
    b.part = "ServerWorks CIOB-X2";
    b.link_name = link;
    b.link_part = "IMBus";
    b.port = port;
    b.link = imbus_link_params();
    b.link.crossing_ns = crossing;
    b.bridge = ciobx2_params();
    b.bridge.detailed_dma = board_bool(v, "detailed_dma", false);
    b.apic = ciobx2_ioxapic_params();
    b.segment[0] = ciobx2_segment_params("A");
    b.segment[1] = ciobx2_segment_params("B");
    for (auto& sg : b.segment) sg.cache_line_bytes = cls;
    b.segment_bus[0] = busA;
    b.segment_bus[1] = busB;
    return b;
  };
  // lspci: two CIOB-X2, 00:10.0/.2 and 00:11.0/.2. Which one carries the risers and which the
  // NICs follows the bus numbers (buses 1–2 behind the first, 3–4 behind the second: estimate from
  // the depth-first numbering a BIOS does).
  ChipsetBridgeSpec risers = bridge("ciob0", "imb0", 0, "PCI bus 1", "PCI bus 2");
  const int64_t bus1 = board_int(v, "riser_bus1_mhz", 0);
  risers.segment[0].max_pcix_mhz = bus1 ? static_cast<unsigned>(bus1) : (slot1_used ? 100u : 133u);
  s.bridges.push_back(risers);
  s.bridges.push_back(bridge("ciob1", "imb1", 1, "PCI bus 3", "PCI bus 4"));

  auto slot = [&](const char* name, unsigned br, unsigned seg, const char* desc, unsigned pin, const char* where) {
    ChipsetSlot sl;
    sl.name = name;
    sl.bridge = br;
    sl.segment = seg;
    sl.description = desc;
    sl.first_pin = pin;
    sl.location = where;
    return sl;
  };
  // Riser INTA# inputs: estimate (the board's routing table was not found): each slot takes four
  // inputs of the risers' CIOB-X2 I/OxAPIC in slot order.
  s.slots.push_back(slot("slot1", 0, 0, "riser slot 1, 64-bit PCI-X (shares bus 1 with slot 2)", 0, ""));
  s.slots.push_back(slot("slot2", 0, 0, "riser slot 2, 64-bit PCI-X (shares bus 1 with slot 1)", 4, ""));
  s.slots.push_back(slot("slot3", 0, 1, "riser slot 3, 64-bit PCI-X ≤133 MHz, alone on bus 2", 8, ""));
  // Onboard NICs: lspci bus 03 devices 06 and 08, IRQs 28 and 29 (tg3-bonding §1.3). With the
  // CSB5's IO-APIC first (GSI 0–15) and 16 inputs per CIOB-X2 I/OxAPIC, IRQ 28/29 are inputs 12/13
  // of the NICs' CIOB-X2 (estimate: MP-table order of the two CIOB-X2 APICs not found).
  for (int i = 0; i < 2; ++i) {
    ChipsetSlot n = slot(i == 0 ? "onboard-nic1" : "onboard-nic2", 1, 0,
                         i == 0 ? "onboard gigabit Ethernet 1 (Broadcom BCM5701, 64-bit PCI-X)"
                                : "onboard gigabit Ethernet 2 (Broadcom BCM5701, 64-bit PCI-X)",
                         12u + i, i == 0 ? "bus 03 device 06, IRQ 28" : "bus 03 device 08, IRQ 29");
    n.onboard = true;
    n.onboard_devices = {kPe2650OnboardNic};
    s.slots.push_back(n);
  }
  s.notes = {"onboard NICs: the " + std::string(kPe2650OnboardNic) + " device from the device registry, " +
                 (board_bool(v, "onboard_nics", true) ? "fitted" : "left out (onboard_nics = false)"),
             "bus 4: Intel 80303 I/O processor bridging to the AIC-7899 on bus 05 (PERC): not modelled",
             "CSB5 south bridge, its IO-APIC (GSI 0–15) and its thin IMB: not modelled",
             "CMIC IOQ depth 12 (GC-HE figure): never reached with blocking CPU accesses, not modelled",
             "no GC-LE / CIOB-X2 datasheet timing was found: bridge and link constants are estimates from the "
             "E7500 / P64H2 models (nicsim list platforms --verbose)"};
  return s;
}

std::vector<SlotSpec> pe2650_slots() {
  std::vector<SlotSpec> out;
  ChipsetBoardSpec b = pe2650_board(ParamValues(pe2650_param_schema()), false);
  for (auto& sl : b.slots) {
    SlotSpec s;
    s.name = sl.name;
    s.segment = b.bridges[sl.bridge].part + " " + b.bridges[sl.bridge].name + " segment " +
                b.bridges[sl.bridge].segment[sl.segment].label + " (" + b.bridges[sl.bridge].segment_bus[sl.segment] + ")";
    s.description = sl.description;
    s.onboard = sl.onboard;
    s.onboard_devices = sl.onboard_devices;
    // The onboard BCM5701s carry Dell's PCI subsystem vendor ID (research tg3-bonding §1.3: "rev 15,
    // Dell subsystem"), which tg3 reads to poll their link once a second (link-faults §A3).
    if (sl.onboard) s.device_params["subsystem_vendor_id"] = int64_t(0x1028);
    out.push_back(std::move(s));
  }
  return out;
}

static bool uses_slot(const HostConfig& host, const std::string& slot) {
  for (auto& n : host.nics)
    if (n.slot == slot) return true;
  return false;
}

static std::vector<ParamProblem> pe2650_check(const HostConfig& host) {
  std::vector<ParamProblem> out = board_problems(host, {"riser_bus1_mhz"}, {"riser_bus1_mhz"});
  const ParamValues& v = host.params;
  const std::string pre = "hosts." + host.name + ".";
  const int64_t bus1 = board_int(v, "riser_bus1_mhz", 0);
  if (bus1 == 133 && uses_slot(host, "slot1"))
    out.push_back({pre + "riser_bus1_mhz", "bus 1 runs 133 MHz only with slot 2 alone (PE2650 manual); slot 1 holds a card"});
  const bool onboard = board_bool(v, "onboard_nics", true);
  if (onboard && !Registry<DeviceEntry>::instance().find(kPe2650OnboardNic)) {
    std::vector<std::string> names;
    for (auto& kv : Registry<DeviceEntry>::instance().all()) names.push_back(kv.first);
    std::string near = nearest_name(kPe2650OnboardNic, names);
    out.push_back({pre + "onboard_nics",
                   fmt::format("the board's onboard NICs (bus 03 devices 06/08) are device {}, which this build does not "
                               "have{}; set onboard_nics = false to build the board without them",
                               kPe2650OnboardNic, near.empty() ? "" : " (nearest registered: " + near + ")")});
  }
  if (!onboard)
    for (auto& n : host.nics)
      if (n.slot == "onboard-nic1" || n.slot == "onboard-nic2")
        out.push_back({pre + "nics." + n.name + ".slot",
                       "slot '" + n.slot + "' is an onboard NIC position, but the host has onboard_nics = false"});
  return out;
}

static std::map<std::string, PciDeviceInfo> pe2650_fixed(const ParamValues& v) {
  std::map<std::string, PciDeviceInfo> fixed;
  if (!board_bool(v, "onboard_nics", true)) return fixed;
  if (auto* d = Registry<DeviceEntry>::instance().find(kPe2650OnboardNic)) {
    fixed["onboard-nic1"] = d->info;
    fixed["onboard-nic2"] = d->info;
  }
  return fixed;
}

static Registrar<PlatformEntry> pe2650_reg{PlatformEntry{
    kPe2650Name,
    "Dell PowerEdge 2650: dual Xeon, ServerWorks GC-LE (CMIC-LE, two IMBus links to two CIOB-X2, four PCI-X "
    "segments); onboard BCM5701 × 2 on bus 3, riser slots 1–2 on bus 1, slot 3 on bus 2",
    pe2650_param_schema(),
    pe2650_slots(),
    [](const HostConfig& host) -> std::unique_ptr<HostHw> {
      ParamValues v(pe2650_param_schema());
      for (auto& [k, val] : host.params.all()) v.set(k, val);
      return std::make_unique<ChipsetHost>(host.name, pe2650_board(v, uses_slot(host, "slot1")), v.to_json());
    },
    [](const ParamValues& params) {
      std::string d = describe_chipset_board(pe2650_board(params, true), pe2650_fixed(params));
      if (board_bool(params, "onboard_nics", true) && pe2650_fixed(params).empty())
        d += std::string("   (") + kPe2650OnboardNic + " is not a registered device in this build: bus 3's mode is unknown)\n";
      return d + describe_profiles(params);
    },
    pe2650_check,
}};

}  // namespace nicsim
