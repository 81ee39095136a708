#include "platforms/supermicro_p4dpr_6gm.h"
#include "core/calib.h"
#include "drivers-sim/kernel/kernel.h"
#include "models/scsi/aic7899.h"
#include <fmt/format.h>

namespace nicsim {

ParamSchema p4dpr_param_schema() {
  ParamSchema s = {
      real_param("cpu_mhz", 2400, 2000, 2400, "MHz", "Xeon (Prestonia) core clock",
                 "board takes 400 MT/s-FSB Xeons 2.0–2.4 GHz; seed 000, research §1/§5"),
      int_param("cpus", 2, 1, 2, "CPUs", "populated Xeon sockets", "P4DPR-6GM+ is a dual-socket board (seed 000)"),
      int_param("dram_mb", 1024, 256, 3072, "MB", "installed DDR200 registered ECC memory",
                "estimate: typical 2002 cluster node; kept below the 3 GB PCI hole"),
      real_param("dram_tcl_clocks", 2.0, 1.5, 2.5, "DRAM clocks", "CAS latency programmed in the DRT register",
                 "coreboot e7501 raminit: tCL 2.0/2.5, 1.5 on E7500 only [S7] research §1"),
      int_param("pci_cache_line_bytes", 64, 32, 128, "bytes", "PCI Cache Line Size register value used by MRL/MRM/MWI",
                "Linux 2.4.20 expects 16 DW on this board, BIOS wrote 32 B [S10]; 128 B after the 2003 patch [S41]"),
      calibratable(
          int_param("p64h2_mr_fetch_bytes", 8, 8, 4096, "bytes",
                    "what the P64H2 reads from memory for one inbound Memory Read in PCI mode (delayed transaction), "
                    "up to the next multiple of this size",
                    "estimate: one QWORD (MR not prefetchable, PCI 2.2 command semantics); the 82870P2 datasheet's "
                    "prefetch rules were not found. Analog bridges prefetch an upstream MR (Intel 21150/21152 and "
                    "Pericom PI7C8150 read-prefetching tables: upstream MR prefetched, to the cache-line boundary; "
                    "Intel 413808 ATU: host memory prefetchable): what-if 64 (scenarios/seed002/*-mrline.full.toml)"),
          8, "one QWORD, a data phase of the 64-bit bus: a delayed read fetches at least the data it completes",
          128,
          "the largest PCI Cache Line Size the kernels program on this board (128 B, research e7500-p64h2-pcix.md "
          "[S41]): the analog bridges prefetch an upstream Memory Read only to the cache-line boundary (Intel "
          "21150/21152, Pericom PI7C8150); reading further is what Memory Read Line/Multiple exist to ask for",
          "the P64H2's upstream prefetch for a PCI Memory Read: how many delayed-transaction round trips a device "
          "that reads with MR (eepro100/e100 descriptors and frames) needs per byte"),
      calibratable(
          real_param("hub_crossing_ns", 100.0, 50.0, 150.0, "ns", "Hub Interface 2.0 one-way latency per crossing",
                     "estimate: research §1: 50–150 ns; calibrated once vs CPU MMIO read 0.7–0.9 µs (§4)"),
          50.0,
          "research e7500-p64h2-pcix.md §1's lower end: a request packet (8-16 B header) takes 8-16 ns on the "
          "~1 GB/s link, and each chip's 66 MHz core adds clock-domain synchronisers of a few 15 ns clocks",
          150.0,
          "research §1's upper end: a CPU MMIO read crosses twice and measured 0.7-0.9 µs in all (§4); at more than "
          "150 ns per crossing the link alone would take over a third of it, leaving too little for the PCI-X "
          "read and the FSB",
          "the one-way latency of a Hub Interface 2.0 crossing between the MCH and the P64H2: every MMIO read, "
          "delayed or split read completion and posted write pays it"),
      bool_param("hub_shared_pipe", true, "HI 2.0 directions share one pipe (half duplex)",
                 "estimate: research §1: same data wires [S2]; S32 985 MB/s read+write cap fits"),
      bool_param("onboard_scsi", true, "the onboard AIC-7899 SCSI controller is fitted (it forces segment A to PCI mode)",
                 "seed 000 / [S9] research §1"),
      int_param("pcix_slot_mhz", 100, 66, 133, "MHz", "fastest clock of the 64-bit PCI-X slot on segment B",
                "[S9]: one 64-bit PCI-X 100 MHz slot"),
      bool_param("detailed_dma", false,
                 "forward every posted 128-byte piece through hub link, MCH and DRAM as its own call instead of one "
                 "train per tenure (same results, slower; for comparison)",
                 "simulation speed switch, not hardware: PcixBridgeParams::detailed_dma"),
  };
  // The host runs Linux 2.4.20 i386 on Prestonia Xeons (seed 000): the board's kernel and CPU
  // profiles (drivers-sim/kernel/profile_linux_2_4_20.cpp); its kernel-model parameters, the
  // profile names included, are host parameters too.
  for (auto& k : kernel_param_schema("linux-2.4.20-i386", "xeon-prestonia")) s.push_back(k);
  return s;
}

E7500BoardSpec p4dpr_board(const ParamValues& v) {
  E7500BoardSpec s;
  s.name = kP4dprName;
  s.title = "SuperMicro P4DPR-6GM+ (1U, dual Xeon, Intel E7500 chipset)";
  s.cpu_mhz = board_real(v, "cpu_mhz", 2400);
  s.cpus = static_cast<unsigned>(board_int(v, "cpus", 2));
  s.dram.size_bytes = uint64_t(board_int(v, "dram_mb", 1024)) << 20;
  s.dram.tCL_clocks = board_real(v, "dram_tcl_clocks", 2.0);
  s.hub.crossing_ns = board_real(v, "hub_crossing_ns", 100.0);
  s.hub.shared_pipe = board_bool(v, "hub_shared_pipe", true);
  s.bridge.detailed_dma = board_bool(v, "detailed_dma", false);
  s.bridge.mr_fetch_bytes = static_cast<uint32_t>(board_int(v, "p64h2_mr_fetch_bytes", 8));
  s.hub_port = 1;  // HI_C: a similar E7500 board has its P64H2 there [S12]; P4DPR port unknown (estimate)
  const uint32_t cls = static_cast<uint32_t>(board_int(v, "pci_cache_line_bytes", 64));

  PciSegmentParams a;
  a.label = "A";
  a.cache_line_bytes = cls;
  a.max_pcix_mhz = 133;  // P64H2 limit; the onboard parts decide [S1]
  PciSegmentParams b = a;
  b.label = "B";
  b.max_pcix_mhz = static_cast<unsigned>(board_int(v, "pcix_slot_mhz", 100));  // [S9]
  s.segment[0] = a;
  s.segment[1] = b;

  E7500BoardSlot gbe;
  gbe.name = "onboard-gbe";
  gbe.segment = 0;
  gbe.description = "onboard Intel 82544GC gigabit Ethernet position (32-bit PCI 33/66)";
  gbe.onboard = true;
  gbe.onboard_devices = {"82544GC"};
  gbe.first_pin = 0;
  gbe.typical.name = "82544GC";  // 32-bit PCI 33/66 only [S11]
  gbe.typical.width_bits = 32;
  gbe.typical.pcix_capable = false;
  gbe.typical.max_mhz = 66;
  gbe.has_typical = true;
  s.slots.push_back(gbe);

  if (board_bool(v, "onboard_scsi", true)) {
    E7500BoardSlot scsi;
    scsi.name = "onboard-scsi";
    scsi.segment = 0;
    scsi.description = "onboard AIC-7899-class dual Ultra160 SCSI (64-bit PCI 66, idle unless loaded)";
    scsi.onboard = true;
    scsi.onboard_devices = {"AIC-7899"};
    scsi.first_pin = 2;
    scsi.builtin = "AIC-7899";
    scsi.typical = pci_dma_master_info(aic7899_params());
    scsi.has_typical = true;
    s.slots.push_back(scsi);
  }

  E7500BoardSlot px;
  px.name = "pcix";
  px.segment = 1;
  px.description = "64-bit PCI-X slot (one slot on the segment)";
  px.first_pin = 0;
  s.slots.push_back(px);

  s.notes = {"HI 1.5 (8-bit, 266 MB/s) to the ICH3-S with the onboard 8255x 10/100 and Rage XL: not modelled",
             "the hub port of the P64H2 (HI_C) is an estimate from a similar E7500 board [S12]"};
  return s;
}

std::vector<SlotSpec> p4dpr_slots() {
  std::vector<SlotSpec> v;
  for (auto& sl : p4dpr_board(ParamValues(p4dpr_param_schema())).slots) {
    SlotSpec s;
    s.name = sl.name;
    s.segment = std::string("P64H2 segment ") + (sl.segment == 0 ? "A" : "B");
    s.description = sl.description;
    s.onboard = sl.onboard;
    s.onboard_devices = sl.onboard_devices;
    v.push_back(std::move(s));
  }
  return v;
}

static std::vector<ParamProblem> p4dpr_check(const HostConfig& host) {
  return board_problems(host, {"pcix_slot_mhz"});
}

static Registrar<PlatformEntry> p4dpr_reg{PlatformEntry{
    kP4dprName,
    "SuperMicro P4DPR-6GM+: dual Xeon, E7500 MCH, HI 2.0, one P64H2 (segment A PCI 66 onboard 82544GC + SCSI; "
    "segment B one PCI-X 100 slot)",
    p4dpr_param_schema(),
    p4dpr_slots(),
    [](const HostConfig& host) -> std::unique_ptr<HostHw> {
      ParamValues v(p4dpr_param_schema());
      for (auto& [k, val] : host.params.all()) v.set(k, val);
      return std::make_unique<E7500Host>(host.name, p4dpr_board(v), v.to_json());
    },
    [](const ParamValues& params) { return describe_e7500_board(p4dpr_board(params)) + describe_profiles(params); },
    p4dpr_check,
}};

}  // namespace nicsim
