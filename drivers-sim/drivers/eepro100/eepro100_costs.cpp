// The eepro100 driver's own cost-table entries (drivers-sim/kernel/driver_costs.h), per cost profile.
// Register accesses, skb alloc/free, netif_rx and cache misses on DMA'd lines are charged elsewhere
// (hardware models; the kernel's entries; Kernel::load_dma_lines).
#include "core/registry.h"
#include "drivers-sim/drivers/eepro100/eepro100.h"

namespace nicsim::eepro100drv {

const std::vector<std::string>& path_names() {
  // Index = Path; the names are the eepro100.c functions the entries stand for.
  static const std::vector<std::string> names = {
      "speedo_interrupt",    "speedo_interrupt_pass", "speedo_start_xmit",    "speedo_rx",
      "eth_copy_and_sum",    "speedo_tx_buffer_gc",   "speedo_refill_rx_buf", "speedo_timer"};
  return names;
}

namespace {

// Linux 2.4.20 on a Pentium 4 Xeon, cycles at 2.4 GHz. No entry is fitted to a seed: each is set
// from the e1000 entries of the same profile (drivers-sim/drivers/e1000/e1000_costs.cpp) scaled by
// the length of the eepro100.c code it stands for.
DriverCostTable p4xeon_2420() {
  return driver_cost_table(
      "eepro100", "linux-2.4.20-p4xeon",
      {
          {"speedo_interrupt",
           {150, 0, false,
            "estimate: as e1000_intr (150): prologue, test_and_set_bit(in_interrupt), exit; a few dozen instructions"}},
          {"speedo_interrupt_pass",
           {60, 0, false,
            "estimate: one pass of the status loop beyond its two register accesses: the 0x5000/0xA400 tests, the RUS "
            "switch, spin_lock/unlock, the boguscnt test (~20 instructions, 1/3 of e1000_intr's per-call 150)"}},
          {"speedo_start_xmit",
           {200, 0, false,
            "estimate: spin_lock_irqsave, 7 TxFD stores, pci_map_single, clear_suspend, two ring tests (~60 "
            "instructions; e1000_xmit_frame's ~80 are 250); wait_for_cmd_done's udelay(1) and register accesses are "
            "timed separately"}},
          {"speedo_rx",
           {300, 0, false,
            "estimate: per frame: status/count load, the RxErrTooBig|RxOK|0x0f90 test, copybreak decision, skb_put or "
            "unmap, stats (e1000_clean_rx_irq 350 less its checksum handling)"}},
          {"eth_copy_and_sum",
           {50, 1.37, true,
            "estimate: 2.4 i386 eth_copy_and_sum is memcpy; per byte as copy_user_cached (1.37 cycles/B, "
            "drivers-sim/kernel/costs_linux_2_4_20_p4xeon.cpp) since the frame's lines were just filled (Kernel::load_dma_lines), per "
            "call as its call overhead"}},
          {"speedo_tx_buffer_gc",
           {150, 0, false,
            "estimate: per reaped TxFD: status test, pci_unmap_single, dev_kfree_skb_irq, stats (as "
            "e1000_clean_tx_irq 150)"}},
          {"speedo_refill_rx_buf",
           {150, 0, false,
            "estimate: speedo_rx_alloc (skb_reserve, pci_map_single, 1 store) when the entry has no skb, "
            "speedo_rx_link (5 RxFD stores + the previous RxFD's link/status) always; e1000_alloc_rx_buffers is 200 "
            "per buffer; the allocation itself is skb_alloc"}},
          {"speedo_timer",
           {400, 0, false,
            "estimate: speedo_timeout bookkeeping + timer re-arm (half of e1000_watchdog's 800, which accumulates ~50 "
            "counters); its MDI register accesses are timed by the NIC model"}},
      },
      "eepro100 v1.09j-t (eepro100.c) driver paths on Linux 2.4.20 / Pentium 4 Xeon, cycles at 2.4 GHz");
}

Registrar<DriverCostTable> reg_p4xeon_2420{p4xeon_2420()};

}  // namespace
}  // namespace nicsim::eepro100drv
