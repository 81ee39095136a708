// What differs between the 8254x parts this model covers. One table; e1000.cpp registers one
// DeviceEntry per row.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace nicsim::e1000 {

struct Variant {
  std::string_view name;
  uint16_t device_id;      ///< PCI device id (copper part), e1000_hw.h E1000_DEV_ID_*
  unsigned width_bits;     ///< AD bus width the part drives
  bool pcix_capable;       ///< can run its bus in PCI-X mode
  unsigned max_mhz;        ///< fastest bus clock in its best mode
  unsigned functions;      ///< PCI functions = MACs = Ethernet ports behind the one bus interface
  bool has_itr;            ///< ITR: SDM p=305 footnote "Not applicable to the 82544GC/EI"
  bool has_radv;           ///< RADV: SDM p=319 (same footnote); driver writes it only for >= 82540
  bool has_tadv;           ///< TADV: SDM p=331 footnote
  bool rdtr_absolute;      ///< 82544GC/EI: RDTR is started by the first packet after the timer was
                           ///< written and not restarted (SDM §3.2.8 p=45, §3.2.5.1 p=40)
  bool has_rps;            ///< TDESC.CMD bit 4 = RPS "report packet sent" (82544GC/EI only, SDM §3.3.3.1)
  bool has_eerd;           ///< EERD register (82540 and later)
  unsigned packet_buffer_kb;   ///< on-chip packet buffer per MAC: PBA TXA = 64 − RXA (SDM §13.4.16 p=288)
  unsigned rxa_default_kb;     ///< PBA.RXA reset value: 48 KB (SDM §13.4.16 p=288)
  unsigned rx_desc_cache;      ///< on-chip RX descriptors: 64 (SDM §3.2.4 p=39)
  unsigned tx_desc_cache;      ///< on-chip TX descriptors: assumed 64 like RX (SDM §3.4 same fetch strategy)
  std::string_view summary;
  /// A LAN-on-motherboard part only: sold as a chip for boards (the 82544GC: 32-bit PCI 33/66,
  /// the low-cost LOM member of the 82544 family), never on an add-in card (82544 PRO/1000
  /// adapters carry the 82544EI). The loader then accepts it only at a platform's onboard
  /// position (DeviceEntry::onboard_only). The other parts here were sold on adapters too.
  bool lom_only = false;
};

inline constexpr Variant kVariants[] = {
    {"82544GC", 0x100C, 32, false, 66, 1, false, false, false, true, true, false, 64, 48, 64, 64,
     "Intel 82544GC gigabit MAC+PHY, 32-bit PCI 33/66 MHz (LOM part; no ITR/RADV/TADV)", true},
    {"82544EI", 0x1008, 64, true, 133, 1, false, false, false, true, true, false, 64, 48, 64, 64,
     "Intel 82544EI gigabit MAC+PHY, 64-bit PCI/PCI-X up to 133 MHz (no ITR/RADV/TADV)"},
    {"82540EM", 0x100E, 32, false, 66, 1, true, true, true, false, false, true, 64, 48, 64, 64,
     "Intel 82540EM gigabit MAC+PHY, 32-bit PCI 33/66 MHz (ITR/RADV/TADV)"},
    {"82545EM", 0x100F, 64, true, 133, 1, true, true, true, false, false, true, 64, 48, 64, 64,
     "Intel 82545EM gigabit MAC+PHY, 64-bit PCI/PCI-X up to 133 MHz (ITR/RADV/TADV)"},
    {"82546EB", 0x1010, 64, true, 133, 2, true, true, true, false, false, true, 64, 48, 64, 64,
     "Intel 82546EB dual-port gigabit: two MACs (functions 0/1, INTA#/INTB#) sharing one 64-bit PCI-X interface"},
};

/// The variant named `name` (e.g. "82546EB"). Throws std::invalid_argument naming the known ones.
inline const Variant& variant(std::string_view name) {
  for (const auto& v : kVariants)
    if (v.name == name) return v;
  std::string known;
  for (const auto& v : kVariants) known += (known.empty() ? "" : ", ") + std::string(v.name);
  throw std::invalid_argument("unknown 8254x variant '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace nicsim::e1000
