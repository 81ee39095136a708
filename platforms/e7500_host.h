// A data-driven E7500 host: MCH + DRAM + one P64H2 on a hub port, slots on the P64H2's two
// segments, built-in onboard devices. A board (platforms/supermicro_p4dpr_6gm.cpp) is an
// E7500BoardSpec; E7500Host is the one-bridge ChipsetHost (platforms/chipset_host.h) it stands for.
#pragma once
#include "models/bridge/p64h2.h"
#include "models/bus/hub_link.h"
#include "models/bus/pci_dma_master.h"
#include "models/chipset/e7500_mch.h"
#include "models/mem/dram.h"
#include "platforms/chipset_host.h"
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nicsim {

struct E7500BoardSlot {
  std::string name;                          ///< scenario slot name
  unsigned segment = 0;                      ///< P64H2 segment: 0 = A, 1 = B
  std::string description;
  bool onboard = false;
  std::vector<std::string> onboard_devices;  ///< what a scenario may put there (onboard positions)
  unsigned first_pin = 0;                    ///< I/OxAPIC input of the slot's INTA# (INTB# = +1, ...)
  /// A device the board always carries there (e.g. "AIC-7899"), built with the host; "" = none.
  std::string builtin;
  /// Bus interface of the part normally found there (for describe() without building), e.g.
  /// 82544GC: 32-bit PCI 66 [S11].
  PciDeviceInfo typical;
  bool has_typical = false;
};

struct E7500BoardSpec {
  std::string name, title;
  unsigned cpus = 2;
  double cpu_mhz = 2400;
  unsigned hub_port = 1;                     ///< MCH port of the P64H2: 0 HI_B, 1 HI_C, 2 HI_D
  E7500MchParams mch;
  DramParams dram;
  HubLinkParams hub;
  P64H2Params bridge;
  PciSegmentParams segment[2];
  IoxApicParams apic;
  uint64_t mmio_base = 0xF0000000;           ///< estimate: PCI memory hole below 4 GB (BIOS-assigned)
  uint64_t segment_window_bytes = 0x04000000;  ///< 64 MB bridge memory window per segment (estimate)
  /// I/O windows, as a BIOS leaves them: segment k's P64H2 I/O base/limit is
  /// [io_base + k * segment_io_bytes, +segment_io_bytes), the MCH's Host-HI bridge window covers
  /// both. estimate: the board's BIOS assignment is not documented; above 0x1000 because Linux 2.4
  /// i386 keeps ports below PCIBIOS_MIN_IO = 0x1000 for legacy ISA/chipset use
  /// (arch/i386/kernel/pci-i386.h) and the ICH3's ACPI/SMBus blocks sit low, 4 KB per segment
  /// because that is the P64H2's window granularity (82870P2 DS §4.4.1).
  uint64_t io_base = 0x2000;
  uint64_t segment_io_bytes = 0x1000;
  /// First vector handed to a device: Linux 2.4 i386 assign_irq_vector starts at
  /// FIRST_DEVICE_VECTOR 0x31 in steps of 8, and IRQ0 (the PIT timer, set up first) takes 0x31
  /// (arch/i386 io_apic.c), so devices start at 0x39. The kernel model owns 0x31 for its tick.
  unsigned first_vector = 0x39;
  unsigned vector_step = 8;                  ///< Linux 2.4 assign_irq_vector() steps vectors by 8
  unsigned irq_dest_apic = 0;                ///< P4 SMP 2.4 kernels sent all IRQs to CPU0 [S39] §4
  std::vector<E7500BoardSlot> slots;
  std::vector<std::string> notes;            ///< extra lines for describe()
};

/// An E7500 board as a ChipsetHost (platforms/chipset_host.h) with one bridge: the MCH ("mch"),
/// the Hub Interface 2.0 link ("hub") on `hub_port`, the P64H2 ("p64h2"). What it adds is the
/// E7500 board spec's view (slot(), spec()) and the names results have always used (params_json
/// `segments.segA/segB`, slot_bus "P64H2 segment ...").
class E7500Host : public ChipsetHost {
 public:
  /// Build the host's modules under an sc_module named `host_name` (before sc_start).
  E7500Host(const std::string& host_name, const E7500BoardSpec& spec, nlohmann::json params_used);
  ~E7500Host() override;

  /// The platform parameters, plus `segments`: the mode each P64H2 segment resolved to from what
  /// is plugged in (e.g. {"segA": "PCI 66 MHz", "segB": "PCI 33 MHz"} with a 33 MHz card in B).
  nlohmann::json params_json() const override;
  std::string slot_bus(const std::string& slot) const override;

  // Model access for tests and workloads.
  E7500Mch& mch() { return north(); }
  HubLink& hub() { return link(0); }
  P64H2& bridge() { return ChipsetHost::bridge(0); }
  const E7500BoardSpec& spec() const { return spec_; }
  const E7500BoardSlot& slot(const std::string& name) const;  ///< throws std::invalid_argument

 private:
  E7500BoardSpec spec_;
};

/// The ChipsetBoardSpec an E7500 board spec stands for (one bridge, module names mch/hub/p64h2).
ChipsetBoardSpec chipset_spec_of(const E7500BoardSpec& spec);

/// The topology tree of a board spec (for PlatformEntry::describe), without building modules.
std::string describe_e7500_board(const E7500BoardSpec& spec);

}  // namespace nicsim
