// What differs between the 8255x parts this model covers. One table; i8255x.cpp registers one
// DeviceEntry per row.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace nicsim::i8255x {

/// Where the CPU-Saver parameters sit in a revision's microcode image: the dword whose low 16
/// bits the e100 driver patches (e100_main.c e100_load_microcode: `ucode_dword[opts->timer_dword]`
/// etc.), from the per-revision *_CPUSAVER_*_DWORD macros of e100_ucode.h (dmgerman/history-token
/// drivers/net/e100/e100_ucode.h). nullopt: that revision's image has no such parameter (the D101
/// images define BUNDLE and MIN_SIZE as UCODE_MAX_DWORDS, i.e. none).
struct CpuSaverLayout {
  std::optional<unsigned> timer_dword, bundle_dword, min_size_dword;
};

struct Variant {
  std::string_view name;
  uint8_t revision_id;   ///< PCI revision ID as Linux reads it (e100.h D101*_REV_ID; e100.c enum mac)
  bool specific_masks;   ///< SCB command high byte bits 7:2 mask CX/FR/CNA/RNR/ER/FCP (82558+, e100.h)
  bool flow_control;     ///< 802.3x registers at 0x19/0x1A (82558+, e100.h d101_scb_ext)
  unsigned io_bar_bytes; ///< I/O BAR size: the CSR window the part decodes in I/O space
  unsigned stat_dwords;  ///< counters in a dump: 16 (82557), 19 (82558), 20 (82559: +TCO) [e100.h stat_mode_t]
  std::optional<CpuSaverLayout> cpusaver;  ///< the CPU-Saver image's parameter words; nullopt: no microcode
  std::string_view summary;
};

inline constexpr uint16_t kVendorIntel = 0x8086;
inline constexpr uint16_t kDeviceId = 0x1229;  ///< 82557/8/9 PCI device id (e100 id table, 0x1229)

// io_bar_bytes: 82557: the registers up to the receive DMA byte count end at 0x18 → a 32-byte
// window; 82558+: d101_scb_ext/d101m_scb_ext end at 0x1C/0x40 → 64 bytes. estimate: OpenSDM §4.1
// gives the I/O BAR size; not read, derived from the register layout in e100.h scb_t.
inline constexpr Variant kVariants[] = {
    {"82557", 2, false, false, 32, 16, std::nullopt,
     "Intel 82557 (D100 C-step, rev 2) 10/100 MAC, 32-bit PCI 33 MHz; no specific interrupt masks, no microcode"},
    {"82558A4", 4, true, true, 64, 19, CpuSaverLayout{72, std::nullopt, std::nullopt},
     "Intel 82558 A4-step (D101A4, rev 4) 10/100 MAC, 32-bit PCI 33 MHz; CPU-Saver: dead-man timer only"},
    {"82558B0", 5, true, true, 64, 19, CpuSaverLayout{72, std::nullopt, std::nullopt},
     "Intel 82558 B0-step (D101B0, rev 5) 10/100 MAC, 32-bit PCI 33 MHz; CPU-Saver: dead-man timer only"},
    {"82559", 8, true, true, 64, 20, CpuSaverLayout{78, 65, 126},
     "Intel 82559 (D101M, rev 8) 10/100 MAC+PHY, 32-bit PCI 33 MHz; CPU-Saver: timer, BundleMax, min-size mask"},
};

/// The variant named `name`. Throws std::invalid_argument naming the known ones.
inline const Variant& variant(std::string_view name) {
  for (const auto& v : kVariants)
    if (v.name == name) return v;
  std::string known;
  for (const auto& v : kVariants) known += (known.empty() ? "" : ", ") + std::string(v.name);
  throw std::invalid_argument("unknown 8255x variant '" + std::string(name) + "' (known: " + known + ")");
}

}  // namespace nicsim::i8255x
