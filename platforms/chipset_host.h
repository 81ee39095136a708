// A data-driven host of the north bridge + packet links + dual-segment PCI-X bridges family: one
// HostBridge (models/chipset/host_bridge.h) with DRAM, and any number of PcixBridges
// (models/bridge/pcix_bridge.h), each on its own HubLink (models/bus/hub_link.h) to one port of the
// north bridge; slots on the bridges' segments. A board (platforms/dell_pe2650.cpp) is a
// ChipsetBoardSpec; ChipsetHost builds the SystemC modules and implements HostHw.
//
// SystemC names are scenario spellings: "<host>.<north>", "<host>.<link>", "<host>.<bridge>",
// "<host>.<bridge>.seg<label>" (so counters read e.g. alpha.ciob1.segA.split_completions).
#pragma once
#include "models/bridge/pcix_bridge.h"
#include "models/bus/hub_link.h"
#include "models/bus/pci_dma_master.h"
#include "models/chipset/host_bridge.h"
#include "models/mem/dram.h"
#include "platforms/host_introspection.h"
#include "platforms/testbed.h"
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace nicsim {

/// One I/O bridge of a board and the link that joins it to the north bridge.
struct ChipsetBridgeSpec {
  std::string name;         ///< module name, e.g. "ciob0"
  std::string part;         ///< what describe() calls it, e.g. "ServerWorks CIOB-X2"
  std::string link_name;    ///< module name of its link, e.g. "imb0"
  std::string link_part;    ///< e.g. "IMBus"
  unsigned port = 0;        ///< north-bridge port it hangs off
  HubLinkParams link;
  PcixBridgeParams bridge;
  PciSegmentParams segment[2];
  std::string segment_bus[2];  ///< what the OS calls each segment, e.g. "PCI bus 3"
  IoxApicParams apic;
};

/// A slot or onboard position on one segment of one bridge.
struct ChipsetSlot {
  std::string name;          ///< scenario slot name
  unsigned bridge = 0;       ///< index into ChipsetBoardSpec::bridges
  unsigned segment = 0;      ///< 0 = A, 1 = B
  std::string description;
  bool onboard = false;
  std::vector<std::string> onboard_devices;  ///< what a scenario may put there (onboard positions)
  unsigned first_pin = 0;    ///< I/OxAPIC input of the slot's INTA# (INTB# = +1, ...)
  std::string location;      ///< e.g. "bus 03 device 06, IRQ 28" (describe only)
  /// A device the board always carries there (e.g. "AIC-7899", make_builtin_device), built and
  /// attached with the host; "" = none.
  std::string builtin;
};

/// Factory for built-in onboard devices by name ("AIC-7899"); throws std::invalid_argument naming
/// an unknown one.
std::unique_ptr<PciDmaMaster> make_builtin_device(const std::string& device, const std::string& inst_name);

struct ChipsetBoardSpec {
  std::string name, title;
  unsigned cpus = 2;
  double cpu_mhz = 2400;
  std::string cpu_part = "Xeon";
  std::string north_name = "nb";       ///< module name of the north bridge
  std::string north_part;              ///< e.g. "ServerWorks CMIC-LE (GC-LE)"
  HostBridgeParams north;
  DramParams dram;
  std::vector<ChipsetBridgeSpec> bridges;
  /// PCI memory hole: segment windows are laid out from mmio_base, segment_window_bytes each, in
  /// (bridge, segment) order. estimate: BIOS-assigned, as in platforms/e7500_host.h.
  uint64_t mmio_base = 0xF0000000;
  uint64_t segment_window_bytes = 0x02000000;
  /// I/O windows, segment_io_bytes per segment from io_base, in the same order (4 KB: bridge
  /// I/O base/limit granularity; above Linux 2.4's PCIBIOS_MIN_IO 0x1000).
  uint64_t io_base = 0x2000;
  uint64_t segment_io_bytes = 0x1000;
  unsigned first_vector = 0x39;   ///< Linux 2.4 i386 assign_irq_vector: 0x31 + 8 (IRQ0 took 0x31)
  unsigned vector_step = 8;       ///< Linux 2.4 assign_irq_vector() steps vectors by 8
  /// The vector is the interrupt controller input itself (first_vector/vector_step unused): Linux/PPC
  /// numbers an OpenPIC source's irq by the source (irq 41 = source 41 on the Power Mac G4).
  bool vector_is_input = false;
  unsigned irq_dest_apic = 0;     ///< P4 SMP 2.4 kernels sent all IRQs to CPU0 (research e7500 §4 [S39])
  /// The interrupt controller of the device lines, by its hardware name (IrqIntrospection).
  std::string irq_chip = "IO-APIC";
  std::vector<ChipsetSlot> slots;
  std::vector<std::string> notes;  ///< extra lines for describe()
};

class ChipsetHost : public HostHw, public SlotIntrospection, public IrqIntrospection {
 public:
  /// Build the host's modules under an sc_module named `host_name` (before sc_start). Throws
  /// std::invalid_argument for an inconsistent spec (DRAM over the PCI hole, a bridge on a port the
  /// north bridge lacks or shares, a slot on a bridge that does not exist).
  ChipsetHost(const std::string& host_name, const ChipsetBoardSpec& spec, nlohmann::json params_used);
  ~ChipsetHost() override;

  // HostHw
  const std::string& name() const override { return name_; }
  std::vector<unsigned> attach(const std::string& slot, PciDevice& dev) override;
  tlm::tlm_target_socket<>& fsb_target() override;
  sc_core::sc_port<apic_msg_if>& apic_out() override;
  eoi_if& eoi_in() override;
  void mem_write(uint64_t addr, const void* src, size_t len) override;
  void mem_read(uint64_t addr, void* dst, size_t len) const override;
  uint64_t dram_bytes() const override;
  void set_dma_write_observer(std::function<void(uint64_t addr, size_t len)> observer) override;
  /// The platform parameters plus `segments`: {"<bridge>.seg<label>": mode} for every segment.
  nlohmann::json params_json() const override;

  // SlotIntrospection
  PciDevice* device_in(const std::string& slot) const override;
  std::string slot_bus(const std::string& slot) const override;
  SlotSharing sharing(const std::string& a, const std::string& b) const override;
  // IrqIntrospection
  std::string irq_chip() const override { return spec_.irq_chip; }

  HostBridge& north();
  Dram& dram();
  HubLink& link(unsigned bridge);
  PcixBridge& bridge(unsigned bridge);
  const ChipsetBoardSpec& spec() const { return spec_; }
  const ChipsetSlot& slot(const std::string& name) const;  ///< throws std::invalid_argument

 private:
  struct Top;
  uint64_t window_base(unsigned bridge, unsigned seg) const;
  uint64_t io_window_base(unsigned bridge, unsigned seg) const;
  std::string name_;
  ChipsetBoardSpec spec_;
  nlohmann::json params_;
  std::unique_ptr<Top> top_;
  std::map<std::string, PciDevice*> occupant_;
  std::map<std::pair<unsigned, unsigned>, uint64_t> next_bar_, next_io_bar_;   ///< (bridge, segment)
  std::map<std::pair<const IoxApic*, unsigned>, unsigned> vectors_;  ///< (APIC, input) -> vector
  unsigned next_vector_;
};

}  // namespace nicsim

namespace nicsim {

/// The topology tree of a board spec (for PlatformEntry::describe), without building modules.
/// `fixed` gives, per slot name, the bus interface of the part soldered there (onboard
/// positions), used to show the mode that segment runs at; slots absent from it are open.
std::string describe_chipset_board(const ChipsetBoardSpec& spec, const std::map<std::string, PciDeviceInfo>& fixed);

}  // namespace nicsim

namespace nicsim {

/// A board parameter's value from `v`, or `def` when `v` lacks it.
double board_real(const ParamValues& v, const char* name, double def);
int64_t board_int(const ParamValues& v, const char* name, int64_t def);
bool board_bool(const ParamValues& v, const char* name, bool def);

/// The load-time checks the boards of this family share, on `host.params` (keys
/// "hosts.<host>.<param>"): irq_dest_cpu / process_cpu name an existing CPU (< cpus), the kernel
/// and CPU profile names exist (profile_problems), pci_cache_line_bytes is a power of two (PCI 2.2
/// §6.2.4), and each of `pcix_clock_keys` is a PCI-X clock, 66, 100 or 133 MHz (PCI-X 1.0 §1.1),
/// where 0 also passes for a key listed in `zero_means_auto`.
std::vector<ParamProblem> board_problems(const HostConfig& host, const std::vector<std::string>& pcix_clock_keys,
                                         const std::vector<std::string>& zero_means_auto = {});

}  // namespace nicsim
