// The e100 driver's own cost-table entries (drivers-sim/kernel/driver_costs.h), per cost profile.
// MMIO (readw/writeb/...), DMA-line misses and skb alloc/free are charged separately (hardware
// models; Kernel::load_dma_lines; the kernel's skb_alloc/skb_free). Nothing here is fitted to a
// seed: each entry is set from the e1000 entry of the same role (drivers/e1000/e1000_costs.cpp) and
// the relative length of the e100 2.1.6-k1 code path.
#include "core/registry.h"
#include "drivers-sim/drivers/e100/e100.h"

namespace nicsim::e100drv {

const std::vector<std::string>& path_names() {
  static const std::vector<std::string> names = {"e100intr",    "e100_xmit_frame", "e100_rx_srv",
                                                 "e100_tx_srv", "e100_alloc_skb",  "e100_watchdog"};
  return names;
}

namespace {

DriverCostTable p4xeon_2420() {
  return driver_cost_table(
      "e100", "linux-2.4.20-p4xeon",
      {
          {"e100intr",
           {200, 0, false,
            "estimate: e1000_intr's 150 (prologue, status decode) + isolate_lock read_lock/unlock and the "
            "netif_running check (~20 instructions more)"}},
          {"e100_xmit_frame",
           {300, 0, false,
            "estimate: e1000_xmit_frame's 250 (descriptor stores, map) + e100's isolate read_lock, "
            "bd_non_tx_lock trylock and bd_lock irqsave in e100_start_cu (~3 locked operations)"}},
          {"e100_rx_srv",
           {350, 0, false,
            "estimate: e1000_clean_rx_irq's 350 (list_del/list_add of rx_list_elem replace the ring index; "
            "unmap, skb_put; eth_type_trans is in netif_rx)"}},
          {"e100_tx_srv",
           {150, 0, false, "estimate: e1000_clean_tx_irq's 150 (unmap + dev_kfree_skb_irq queueing)"}},
          {"e100_alloc_skb",
           {250, 0, false,
            "estimate: e1000_alloc_rx_buffers' 200 + e100_add_skb_to_end's RFD header stores and the link/EL "
            "update of the previous RFD (allocation is skb_alloc)"}},
          {"e100_watchdog",
           {600, 0, false,
            "estimate: below e1000_watchdog's 800: e100_update_stats accumulates ~20 counters from memory "
            "(the dump is a DMA, not ~55 register reads)"}},
      },
      "e100 2.1.6-k1 driver paths (e100_main.c) on Linux 2.4.20 / Pentium 4 Xeon, cycles at 2.4 GHz");
}

Registrar<DriverCostTable> reg_p4xeon_2420{p4xeon_2420()};

}  // namespace
}  // namespace nicsim::e100drv
