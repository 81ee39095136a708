// The tg3 driver's own cost-table entries (drivers-sim/kernel/driver_costs.h), per cost profile.
// MMIO (readl/writel: every send BD word and mailbox is a posted write through the chipset), DMA-line
// misses and skb alloc/free are charged separately (hardware models; Kernel::load_dma_lines; the
// kernel's skb_alloc/skb_free). Nothing here is fitted to a seed: each entry is set from the e1000
// entry of the same role (drivers/e1000/e1000_costs.cpp) and the relative length of the tg3 0.99
// code path.
#include "core/registry.h"
#include "drivers-sim/drivers/tg3/tg3.h"

namespace nicsim::tg3drv {

const std::vector<std::string>& path_names() {
  static const std::vector<std::string> names = {"tg3_interrupt", "tg3_start_xmit",   "tg3_rx",         "tg3_rx_copy",
                                                 "tg3_tx",        "tg3_alloc_rx_skb", "tg3_rate_sample",
                                                 "tg3_timer"};
  return names;
}

namespace {

DriverCostTable p4xeon_2420() {
  return driver_cost_table(
      "tg3", "linux-2.4.20-p4xeon",
      {
          {"tg3_interrupt",
           {150, 0, false, "estimate: e1000_intr's 150 (spin_lock, status word test, loop bookkeeping)"}},
          {"tg3_start_xmit",
           {200, 0, false,
            "estimate: below e1000_xmit_frame's 250: one BD, no context descriptor, no host ring stores (the BD "
            "words are writel, charged as MMIO)"}},
          {"tg3_rx",
           {300, 0, false,
            "estimate: e1000_clean_rx_irq's 350 less the descriptor write-back clear (the return ring is "
            "read-only for the driver): opaque decode, length, checksum flags"}},
          {"tg3_rx_copy",
           {40, 0.5, true,
            "estimate: the copybreak memcpy of a frame just DMA'd (out of cache): as csum_partial's 40 cycles + "
            "0.5 cycles/byte, a streaming pass over the bytes; the line misses are charged by load_dma_lines"}},
          {"tg3_tx", {150, 0, false, "estimate: e1000_clean_tx_irq's 150 (unmap + dev_kfree_skb_irq queueing)"}},
          {"tg3_alloc_rx_skb",
           {150, 0, false,
            "estimate: below e1000_alloc_rx_buffers' 200: two address stores into the std BD (allocation is "
            "skb_alloc)"}},
          {"tg3_rate_sample",
           {200, 0, false, "estimate: two 64-bit counter reads, a division and the band comparison"}},
          {"tg3_timer",
           {100, 0, false,
            "estimate: spin_lock_irq, the counter test and add_timer (its MAC_STATUS read is MMIO, timed by the "
            "hardware model; tg3_setup_phy's MI frames likewise)"}},
      },
      "tg3 0.99 driver paths (tg3.c) on Linux 2.4.20 / Pentium 4 Xeon, cycles at 2.4 GHz");
}

Registrar<DriverCostTable> reg_p4xeon_2420{p4xeon_2420()};

}  // namespace
}  // namespace nicsim::tg3drv
