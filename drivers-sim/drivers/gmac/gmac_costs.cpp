// The gmac driver's own cost-table entries (drivers-sim/kernel/driver_costs.h), per cost profile.
// MMIO (every GM_OUT / GM_IN: the status read, the kicks, one GM_TX_COMP read per cleanup
// iteration), DMA-line misses (Kernel::load_dma_lines), skb alloc/free and netif_rx are charged
// elsewhere (hardware models; the kernel's entries). Nothing here is fitted to seed 001.
//
// Method: the one the kernel table linux-2.4-ppc7450 states for generic C (drivers-sim/kernel/
// costs_linux_2_4_ppc7450.cpp, calibration (a)): the same 2.4 C compiles to about as many PowerPC
// instructions as i386 ones and the two cores retire kernel code at a similar rate per clock, so a
// path costs the cycles of the same-role entry of the calibrated P4 driver tables (e1000, tg3,
// eepro100: drivers-sim/drivers/*/..._costs.cpp), scaled by the length of the v1.5k4 code
// (LH@2.4.16:drivers/net/gmac.c) against theirs. The copy is the kernel table's
// copy_user_cached rate (arch/ppc/lib/string.S).
#include "core/registry.h"
#include "drivers-sim/drivers/gmac/gmac.h"

namespace nicsim::gmacdrv {

const std::vector<std::string>& path_names() {
  static const std::vector<std::string> names = {"gmac_interrupt",    "gmac_xmit_start", "gmac_receive",
                                                 "gmac_receive_copy", "gmac_alloc_skb",  "gmac_tx_cleanup",
                                                 "gmac_stats"};
  return names;
}

namespace {

DriverCostTable ppc7450_24() {
  return driver_cost_table(
      "gmac", "linux-2.4-ppc7450",
      {
          {"gmac_interrupt",
           {100, 0, false,
            "estimate: two thirds of e1000_intr's / tg3_interrupt's 150: gmac_interrupt has no loop, only five "
            "status tests and three call sites around its single GM_IN (spin_lock is empty on UP)"}},
          {"gmac_xmit_start",
           {200, 0, false,
            "estimate: as tg3_start_xmit / speedo_start_xmit (200): spin_lock_irqsave, the two tx_buff tests, "
            "next_tx, four descriptor stores (two stwbrx) around two mb() (sync), trans_start; no mapping call "
            "(virt_to_bus), no context descriptor; the kick is MMIO"}},
          {"gmac_receive",
           {300, 0, false,
            "estimate: as tg3_rx / speedo_rx (300): per descriptor three ld_le32 of size and one of flags, the "
            "length/CRC/skb tests, the copybreak branch, the refill (stw, two stwbrx, mb()), the ip_summed pair, "
            "stats, jiffies, ring index; the descriptor's line miss is load_dma_lines"}},
          {"gmac_receive_copy",
           {40, 0.8, false,
            "estimate: the copybreak memcpy of <= 256 B just DMA'd, at linux-2.4-ppc7450's copy_user_cached rate "
            "(arch/ppc/lib/string.S line loop, 40 + 0.8 cycles/B); the lines' misses are load_dma_lines"}},
          {"gmac_alloc_skb",
           {100, 0, false,
            "estimate: half of e1000_alloc_rx_buffers' 200 per buffer: gmac_alloc_skb's alignment arithmetic and "
            "skb_reserve, skb->dev, skb_put and skb_reserve, no mapping call; the allocation is skb_alloc, the "
            "descriptor stores are in gmac_receive"}},
          {"gmac_tx_cleanup",
           {150, 0, false,
            "estimate: as e1000_clean_tx_irq / tg3_tx (150) per freed skb: tx_buff load/clear, tx_packets/tx_bytes, "
            "dev_kfree_skb_irq's queueing, index wrap; the GM_TX_COMP read per iteration is MMIO"}},
          {"gmac_stats",
           {100, 0, false, "estimate: gmac_stats' tests and five accumulations (an eighth of e1000_watchdog's 800, "
                           "which accumulates ~50 counters); the counter reads and clears are MMIO"}},
      },
      "gmac v1.5k4 (gmac.c) driver paths on Linux 2.4 / PowerPC MPC7450, cycles at 733 MHz (the profile's ref_mhz)");
}

Registrar<DriverCostTable> reg_ppc7450{ppc7450_24()};

}  // namespace
}  // namespace nicsim::gmacdrv
