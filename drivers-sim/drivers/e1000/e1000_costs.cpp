// The e1000 driver's own cost-table entries (drivers-sim/kernel/driver_costs.h), per cost profile.
// MMIO and skb alloc/free are charged separately (hardware models; the kernel's skb_alloc/skb_free).
#include "core/registry.h"
#include "drivers-sim/drivers/e1000/e1000.h"
#include "drivers-sim/kernel/costs_linux_2_6.h"

namespace nicsim::e1000drv {

const std::vector<std::string>& path_names() {
  // Index = Path; the names are the e1000_main.c functions the entries stand for.
  static const std::vector<std::string> names = {"e1000_intr",         "e1000_xmit_frame",       "e1000_clean_rx_irq",
                                                 "e1000_clean_tx_irq", "e1000_alloc_rx_buffers", "e1000_watchdog",
                                                 "e1000_clean",        "e1000_rx_copybreak"};
  return names;
}

namespace {

// e1000_clean (NAPI poll) and the copybreak block: estimates on both profiles (the 2.4 drivers never
// run them).
const CostEntry kCleanEntry{150, 0, false,
                            "estimate: e1000_clean's min(budget, quota), the exit test and netif_rx_complete "
                            "bookkeeping (~40 instructions + the adapter's line), like e1000_intr's prologue"};
const CostEntry kCopybreakEntry{
    60, 0.57, true,
    "estimate: 6.3.9 copybreak block: skb_reserve + dev->skb fields (~20 instructions) and the memcpy of "
    "length + NET_IP_ALIGN bytes at the cache-resident rate of copy_user_cached's 1.37 cycles/B halved for "
    "the kernel's rep movsl of a short aligned block (no user-access checks); the source lines' misses are "
    "Kernel::load_dma_lines"};

// Linux 2.4.20 on a Pentium 4 Xeon, cycles at 2.4 GHz (the kernel entries: drivers-sim/kernel/costs_linux_2_4_20_p4xeon.cpp).
DriverCostTable p4xeon_2420() {
  // e1000 4.4.x driver paths (e1000_main.c): a few dozen instructions per path. The cache misses on
  // what the NIC wrote by DMA (RX descriptor, frame headers, TX descriptor status) are no longer
  // folded in here (they were ~250 cycles each, an estimate of a ~100 ns DRAM access): the kernel
  // model charges them as line fills through the chipset and DRAM models (Kernel::load_dma_lines,
  // research §7 load-to-use 150-200 ns), only when the line was actually written by the device.
  return driver_cost_table(
      "e1000", "linux-2.4.20-p4xeon",
      {
          {"e1000_intr",
           {150, 0, false, "estimate: e1000_intr prologue and ICR-loop control, a few dozen instructions + adapter cache line"}},
          {"e1000_xmit_frame",
           {250, 0, false,
            "estimate: TXD_USE_COUNT/DESC_UNUSED, tx_map, tx_queue (~80 instructions); was 500 with a ~250-cycle "
            "descriptor line miss, removed: descriptor stores go to the store buffer and the line is normally cached "
            "(e1000_clean_tx_irq loaded it); DMA misses are Kernel::load_dma_lines"}},
          {"e1000_clean_rx_irq",
           {350, 0, false,
            "estimate: unmap, skb_put, rx_checksum, status clear (eth_type_trans is in netif_rx); was 600 with a "
            "~250-cycle descriptor miss, now charged by Kernel::load_dma_lines (research §7 load-to-use)"}},
          {"e1000_clean_tx_irq",
           {150, 0, false,
            "estimate: unmap + dev_kfree_skb_irq queueing; was 400 with a ~250-cycle status-read miss, now charged "
            "by Kernel::load_dma_lines (research §7 load-to-use)"}},
          {"e1000_alloc_rx_buffers",
           {200, 0, false,
            "estimate: skb_reserve, pci_map_single, 16-byte descriptor store per buffer (allocation is skb_alloc)"}},
          {"e1000_watchdog",
           {800, 0, false,
            "estimate: e1000_watchdog/e1000_update_stats bookkeeping (~50 counter accumulations); its ~55 register "
            "reads are MMIO, timed by the hardware model"}},
          {"e1000_clean", kCleanEntry},
          {"e1000_rx_copybreak", kCopybreakEntry},
      },
      "e1000 4.4.x/5.0.x driver paths (e1000_main.c) on Linux 2.4.20 / Pentium 4 Xeon, cycles at 2.4 GHz");
}

// Linux 2.6.11 / 2.6.14 on a Pentium 4 Xeon (the kernel entries: drivers-sim/kernel/costs_linux_2_6.cpp).
// The per-packet paths come from the 2.6.10 forwarding profile with e1000 5.5.4-k2-NAPI
// (research/linux26-forwarding-costs.md §A1, costs_linux_2_6.h): self ticks x 0.12 cycles per
// forwarded packet, less the first touch of each line the NIC wrote, which the model charges as a
// fill through the chipset (Kernel::load_dma_lines) at the note's §A3 155 ns miss (279 cycles of the
// profile's 1.8 GHz CPU): a descriptor is 16 bytes, so one status-line miss per four descriptors.
// Opteron cycles are charged as NetBurst cycles through the kernel parameter linux26_profile_cost_scale
// (an estimate, default 1, argued in costs_linux_2_6.cpp): the entries taken from the profile are in its group.
// e1000_intr, e1000_xmit_frame, e1000_watchdog and e1000_clean keep the 2.4 estimates: the profile
// does not list e1000_xmit_frame, and gives e1000_intr per packet, not per interrupt.
DriverCostTable p4xeon_26() {
  const Desler2004Ticks& t = desler2004_ticks();
  DriverCostTable base = p4xeon_2420();
  std::vector<DriverCostItem> items;
  for (const DriverCostItem& it : base.items) {
    DriverCostItem n = it;
    if (it.path == "e1000_clean_rx_irq")
      n.cost = {desler2004_cycles(t.e1000_clean_rx_irq + t.e1000_rx_checksum + t.eth_type_trans) -
                    kDesler2004DmaMissCycles * (1.0 + 1.0 / 4),
                0, false,
                "research/linux26-forwarding-costs.md §A1: e1000_clean_rx_irq 2852 + e1000_rx_checksum 70 + "
                "eth_type_trans 2692 ticks x 0.12 cycles/pkt/tick, less the header line's miss and a quarter "
                "descriptor line's (1.25 x 279 cycles, §A3's 155 ns at 1.8 GHz), which Kernel::load_dma_lines charges"};
    else if (it.path == "e1000_clean_tx_irq")
      n.cost = {desler2004_cycles(t.e1000_clean_tx_irq) - kDesler2004DmaMissCycles / 4, 0, false,
                "research/linux26-forwarding-costs.md §A1: e1000_clean_tx_irq 3100 ticks x 0.12 cycles/pkt/tick, "
                "less a quarter status line's miss (279 cycles, §A3's 155 ns at 1.8 GHz), which "
                "Kernel::load_dma_lines charges"};
    else if (it.path == "e1000_alloc_rx_buffers")
      n.cost = {desler2004_cycles(t.e1000_alloc_rx_buffers), 0, false,
                "research/linux26-forwarding-costs.md §A1: e1000_alloc_rx_buffers 674 ticks x 0.12 cycles/pkt/tick "
                "(one buffer per packet; the allocation is skb_alloc)"};
    if (n.cost.source != it.cost.source) n.cost.group = kDesler2004Group;  // taken from the profile
    items.push_back(std::move(n));
  }
  return driver_cost_table("e1000", "linux-2.6-p4xeon", std::move(items),
                           "e1000 5.6.10.1-k2 / 6.0.60-k2 / 6.2.15 driver paths (NAPI) on Linux 2.6 / Pentium 4 Xeon: "
                           "per-packet paths from the 2.6.10 forwarding profile (K. Desler, LKML 2004-12-06)");
}

Registrar<DriverCostTable> reg_p4xeon_2420{p4xeon_2420()};
Registrar<DriverCostTable> reg_p4xeon_26{p4xeon_26()};

}  // namespace
}  // namespace nicsim::e1000drv
