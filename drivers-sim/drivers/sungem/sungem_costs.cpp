// The sungem driver's own cost-table entries (drivers-sim/kernel/driver_costs.h), one table per
// version for the PowerPC 7450 cost profile "linux-2.4-ppc7450". MMIO (every readl/writel, the
// MIF polling), DMA-line misses (descriptor status words, frames) and skb alloc/free, netif_rx and
// eth_type_trans are charged separately (the platform's bus models, Kernel::load_dma_lines, the
// kernel's own entries). Nothing here is fitted to a seed: each entry is an estimate from the
// length of the 2.4.16 / 2.4.17 sungem.c code path (instructions counted from the C, at a CPI of
// about 1.5 for cache-resident kernel code on the 7450 (three instructions dispatched per cycle) with its branch and load-use
// stalls) plus the execution-serialising MSR writes (mtmsr, ~20 cycles each: MPC7450 RM
// Table 6-7 lists mtmsr as execution-serialised) of spin_lock_irq / local_irq_save on PPC.
// The two versions run the same paths; v0.96's gem_intme test (three instructions in
// gem_start_xmit) is inside the estimate, so the tables carry the same numbers.
#include "core/registry.h"
#include "drivers-sim/drivers/sungem/sungem.h"

namespace nicsim::sungemdrv {

const std::vector<std::string>& path_names() {
  static const std::vector<std::string> names = {"gem_interrupt", "gem_abnormal_irq", "gem_start_xmit",
                                                 "gem_tx",        "gem_rx",           "gem_rx_copy",
                                                 "gem_rx_refill", "gem_post_rxds",    "gem_link_timer"};
  return names;
}

namespace {

std::vector<DriverCostItem> ppc7450_items() {
  return {
      {"gem_interrupt",
       {60, 0, false,
        "estimate: ~40 instructions (dev->priv, the spin_lock a UP kernel compiles away, three tests of "
        "gem_status, the calls) at CPI 1.5; the readl(GREG_STAT) is MMIO"}},
      {"gem_abnormal_irq",
       {90, 0, false,
        "estimate: ~60 instructions: eight status-bit tests and gem_txmac_interrupt / gem_rxmac_interrupt's "
        "bit tests and counter updates (the MAC_TXSTAT / MAC_RXSTAT readl are MMIO)"}},
      {"gem_start_xmit",
       {200, 0, false,
        "estimate: ~90 instructions (CHECKSUM_HW start/stuff offsets, TX_BUFFS_AVAIL twice, pci_map_page = "
        "virt_to_bus on the coherent PowerMac, two cpu_to_le64 byte swaps and 64-bit stores, NEXT_TX, "
        "trans_start) at CPI 1.5, plus spin_lock_irq/spin_unlock_irq's two mtmsr (~20 cycles each)"}},
      {"gem_tx",
       {120, 0, false,
        "estimate: per reaped skb ~50 instructions (nr_frags test, two le64_to_cpu descriptor loads the CPU "
        "wrote, pci_unmap_page (empty on PPC), stats) plus dev_kfree_skb_irq's local_irq_save/restore "
        "(two mtmsr)"}},
      {"gem_rx",
       {110, 0, false,
        "estimate: per descriptor ~70 instructions (status and buffer byte swaps, length/BAD tests, the "
        "copybreak branch, csum = ntohs(field ^ 0xffff), ip_summed, stats, last_rx); eth_type_trans and "
        "netif_rx are the kernel's entries"}},
      {"gem_rx_copy",
       {40, 0.5, true,
        "estimate: the copybreak memcpy (arch/ppc/lib/string.S: 16 bytes per lwz/stw loop of ~8 "
        "instructions, 0.5 cycle/byte) plus its call and alignment prologue; the DMA'd lines' misses are "
        "charged by load_dma_lines"}},
      {"gem_rx_refill",
       {60, 0, false,
        "estimate: ~40 instructions per buffer: gem_alloc_skb's ALIGNED_RX_SKB_ADDR and skb_reserve, skb_put, "
        "pci_map_page, the cpu_to_le64 buffer store, skb_reserve(RX_OFFSET) (alloc_skb is skb_alloc)"}},
      {"gem_post_rxds",
       {80, 0, false,
        "estimate: per call the cluster walk (~5 instructions per entry over the entries gem_rx consumed) and "
        "four cpu_to_le64(RXDCTRL_FRESH) stores per full cluster: ~50 instructions for the usual one or two "
        "clusters; the RXDMA_KICK writel is MMIO"}},
      {"gem_link_timer",
       {50, 0, false, "estimate: ~30 instructions of link-state tests per tick; the MIF frame and its polling are MMIO"}},
  };
}

DriverCostTable table(Version v) {
  return driver_cost_table(cost_driver(v), "linux-2.4-ppc7450", ppc7450_items(),
                           std::string(cost_driver(v)) +
                               " driver paths (sungem.c) on Linux 2.4 / PowerPC 7450, cycles (estimates from code-path "
                               "length)");
}

Registrar<DriverCostTable> reg095{table(Version::v0_95)};
Registrar<DriverCostTable> reg096{table(Version::v0_96)};

}  // namespace
}  // namespace nicsim::sungemdrv
