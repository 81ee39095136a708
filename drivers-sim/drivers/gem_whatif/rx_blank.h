// RXDMA_BLANK as a what-if for the two GMAC drivers (gmac v1.5k4, sungem 0.95/0.96).
//
// Neither driver has a module parameter for receive interrupt blanking: gmac_mac_init (gmac.c
// v1.5k4) and gem_init_dma (sungem.c 0.95/0.96) write constants, the time chosen by the M66EN bit
// of GREG_BIFCFG / GM_BIF_CFG. A user who wants other values edits the #define and rebuilds the
// module; these two driver parameters stand for that edit so a scenario or `nicsim sweep` can vary
// RX_BLANK. Their defaults are what each version writes, so a scenario that leaves them alone runs
// the driver's source as shipped. Field widths: RXDMA_BLANK IPKTS bits 0-8 (0-511 frames), ITIME
// bits 12-19 (0-255 units of 2048 PCI clocks) (sungem.h RXDMA_BLANK_IPKTS/ITIME, gmac.h GM_RX_BLANK).
#pragma once
#include <cstdint>
#include <string>

#include "core/params.h"
#include <fmt/format.h>

namespace nicsim::gem_whatif {

inline constexpr const char* kRxBlankPkts = "rx_blank_pkts";
inline constexpr const char* kRxBlankTime = "rx_blank_time";

/// The two parameter specs. `pkts_default`: the frame count the version writes; `written_by`: the
/// function and file that write RXDMA_BLANK (for the help and the source); `units_text`: what the
/// version writes for the time, e.g. "8 on a 66 MHz bus (M66EN), 4 on 33 MHz".
inline ParamSchema rx_blank_params(unsigned pkts_default, const std::string& written_by,
                                   const std::string& units_text) {
  // fmt::format rather than std::string operator+: GCC 12's -Warray-bounds misfires on the latter
  // (GCC bug 105329).
  const std::string edit =
      fmt::format(" (what-if: a constant in {}, not a module parameter; setting it stands for editing the source)",
                  written_by);
  return {int_param(kRxBlankPkts, int64_t(pkts_default), 0, 511, "frames",
                    fmt::format("RXDMA_BLANK IPKTS: RX_DONE after this many frames since the previous one; 0 = every "
                                "frame{}",
                                edit),
                    written_by),
          int_param(kRxBlankTime, -1, -1, 255, "2048-PCI-clock units",
                    fmt::format("RXDMA_BLANK ITIME: RX_DONE when this much time has passed since the previous one; "
                                "-1 = as the driver writes it ({}), 0 = every frame{}",
                                units_text, edit),
                    written_by)};
}

/// The RXDMA_BLANK word to write: IPKTS | ITIME << 12, from the parameters where set (`params`
/// may lack them, e.g. a test that builds ParamValues from an older schema) or the driver's own
/// `pkts` and `units` (already chosen by M66EN) otherwise.
inline uint32_t rx_blank_word(const ParamValues& params, uint32_t pkts, uint32_t units) {
  if (params.has(kRxBlankPkts)) pkts = uint32_t(params.i(kRxBlankPkts));
  if (params.has(kRxBlankTime) && params.i(kRxBlankTime) >= 0) units = uint32_t(params.i(kRxBlankTime));
  return (pkts & 0x1ffu) | ((units << 12) & 0x000ff000u);
}

}  // namespace nicsim::gem_whatif
