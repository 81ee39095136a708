// The CPU-Saver microcode images as the driver model sends them (e100_ucode.h of e100 2.x).
//
// ABSTRACT PLACEHOLDER: the real D101A4/D101B0/D101M images are 134 dwords of Intel microcode
// (e100_ucode.h D101_A_RCVBUNDLE_UCODE, D101_B0_RCVBUNDLE_UCODE, D101M_B_RCVBUNDLE_UCODE). The
// model does not copy them: every word is zero except the instruction words that
// e100_load_microcode patches, which carry their opcode half as in the images (the timer word
// 0x0008xxxx, the bundle and min-size words 0x000Cxxxx; research intel-8254x-e1000-e100.md §3 and
// models/nic/i8255x/cpusaver.h describe what they do). Only those words carry meaning for the NIC
// model, which recognises the image by them; a real 8255x would need the real image.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace nicsim::e100drv {

/// e100_load_microcode's ucode_opts entry of one revision: where the patched words are.
/// Positions of e100_ucode.h: D101_CPUSAVER_TIMER_DWORD 72, D101_CPUSAVER_BUNDLE_DWORD and
/// D101_CPUSAVER_MIN_SIZE_DWORD = UCODE_MAX_DWORDS (134: the slot after the image, patched but not
/// sent); D101M_CPUSAVER_TIMER_DWORD 78, _BUNDLE_DWORD 65, _MIN_SIZE_DWORD 126.
struct UcodeOpts {
  uint8_t rev_id;
  unsigned timer_dword, bundle_dword, min_size_dword;
};
/// The entry for `rev_id`, or nullopt when the driver has no image for it (82557 rev 2, ...).
std::optional<UcodeOpts> ucode_opts(uint8_t rev_id);
/// The UCODE_MAX_DWORDS + 1 dwords after patching (e100_load_microcode): timer <- int_delay,
/// bundle <- bundle_max, min-size <- 0xFFFF with bundle_small_fr, else 0xFF80. The CB carries the
/// first UCODE_MAX_DWORDS of them.
std::vector<uint32_t> ucode_image(const UcodeOpts& o, uint16_t int_delay, uint16_t bundle_max, bool bundle_small_fr);

}  // namespace nicsim::e100drv
