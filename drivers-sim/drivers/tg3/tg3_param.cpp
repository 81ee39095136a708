// tg3 0.99's coalescing settings as a scenario sets them per NIC, under the names ethtool -C gives
// them (ETHTOOL_SCOALESCE, which 0.96-0.99 implement in tg3_from_ethtool_coal; research
// tg3-bonding-tcp-gmac-formats.md §1.2), with tg3.h's defaults; and the DriverEntry.
#include "core/registry.h"
#include "drivers-sim/drivers/tg3/tg3.h"
#include "drivers-sim/driver_traits.h"
#include "drivers-sim/kernel/skb_truesize.h"
#include <fmt/format.h>

namespace nicsim::tg3drv {

namespace {
constexpr const char* kSrc =
    "tg3.h 0.96-0.99 DEFAULT_/LOW_/HIGH_ constants, research/tg3-bonding-tcp-gmac-formats.md §1.2 (BK 95ac8b440c)";
}

Coalesce coalesce_1_0() {
  Coalesce c;
  c.rx_usecs = 0;       // "tw32(HOSTCC_RXCOL_TICKS, 0)"
  c.rx_frames = 1;      // "tw32(HOSTCC_RXMAX_FRAMES, 1)"
  c.rx_usecs_irq = 0;
  c.rx_frames_irq = 1;
  c.tx_usecs = 150;     // LOW_TXCOL_TICKS
  c.tx_frames = 5;      // LOW_RXMAX_FRAMES, apparently meant as LOW_TXMAX_FRAMES (research §1.2)
  c.tx_usecs_irq = 0;
  c.tx_frames_irq = 0;
  c.adaptive_rx = c.adaptive_tx = false;
  c.napi = true;
  return c;
}

ParamSchema param_schema(const Coalesce& d, bool adaptive) {
  const std::string s = adaptive ? std::string(kSrc)
                                 : std::string("RH 2.4.18-14 tg3.c v1.0 tg3_reset_hw, research/tg3-bonding-tcp-gmac-formats.md §1.2");
  const double kTicksMax = 1e6, kFramesMax = 1023;  // ticks: µs; frames: BDs (the 1024-entry return ring)
  // The help names 0.99's tg3.h constant, or the value tg3 1.0's tg3_reset_hw writes.
  auto txt = [&](const char* reg, const char* c099, unsigned v10) {
    return adaptive ? fmt::format("{} ({})", reg, c099) : fmt::format("{} (tg3 1.0 tg3_reset_hw writes {})", reg, v10);
  };
  ParamSchema out = {
      int_param("rx-usecs", d.rx_usecs, 0, kTicksMax, "µs", txt("HOSTCC_RXCOL_TICKS", "DEFAULT_RXCOL_TICKS 0x48", d.rx_usecs), s),
      int_param("rx-frames", d.rx_frames, 0, kFramesMax, "BDs", txt("HOSTCC_RXMAX_FRAMES", "DEFAULT_RXMAX_FRAMES 8", d.rx_frames), s),
      int_param("rx-usecs-irq", d.rx_usecs_irq, 0, kTicksMax, "µs",
                txt("HOSTCC_RXCOAL_TICK_INT, while Interrupt Mailbox 0 is non-zero", "DEFAULT_RXCOAL_TICK_INT 0x19", d.rx_usecs_irq), s),
      int_param("rx-frames-irq", d.rx_frames_irq, 0, kFramesMax, "BDs",
                txt("HOSTCC_RXCOAL_MAXF_INT", "DEFAULT_RXCOAL_MAXF_INT 5", d.rx_frames_irq), s),
      int_param("tx-usecs", d.tx_usecs, 0, kTicksMax, "µs", txt("HOSTCC_TXCOL_TICKS", "DEFAULT_TXCOL_TICKS 0x12c", d.tx_usecs), s),
      int_param("tx-frames", d.tx_frames, 0, kFramesMax, "BDs", txt("HOSTCC_TXMAX_FRAMES", "DEFAULT_TXMAX_FRAMES 0x4b", d.tx_frames), s),
      int_param("tx-usecs-irq", d.tx_usecs_irq, 0, kTicksMax, "µs", txt("HOSTCC_TXCOAL_TICK_INT", "DEFAULT_TXCOAL_TICK_INT 0x19", d.tx_usecs_irq), s),
      int_param("tx-frames-irq", d.tx_frames_irq, 0, kFramesMax, "BDs", txt("HOSTCC_TXCOAL_MAXF_INT", "DEFAULT_TXCOAL_MAXF_INT 5", d.tx_frames_irq), s),
      int_param("stats-block-usecs", d.stats_block_usecs, 0, 3.6e9, "µs",
                txt("HOSTCC_STAT_COAL_TICKS: statistics block DMA interval", "DEFAULT_STAT_COAL_TICKS 0xf4240", d.stats_block_usecs), s),
  };
  if (!adaptive) return out;
  const ParamSchema more = {
      bool_param("adaptive-rx", d.adaptive_rx, "adaptive RX coalescing by packet rate (tg3_rate_sample; default on)", s),
      bool_param("adaptive-tx", d.adaptive_tx, "adaptive TX coalescing (default off)", s),
      int_param("pkt-rate-low", d.pkt_rate_low, 0, 1e7, "packets/s", "below it the LOW set applies (22000)", s),
      int_param("pkt-rate-high", d.pkt_rate_high, 0, 1e7, "packets/s", "above it the HIGH set applies (61000)", s),
      int_param("rx-usecs-low", d.rx_usecs_low, 0, kTicksMax, "µs", "LOW_RXCOL_TICKS 0x32", s),
      int_param("rx-frames-low", d.rx_frames_low, 0, kFramesMax, "BDs", "LOW_RXMAX_FRAMES 5", s),
      int_param("tx-usecs-low", d.tx_usecs_low, 0, kTicksMax, "µs", "LOW_TXCOL_TICKS 0x96", s),
      int_param("tx-frames-low", d.tx_frames_low, 0, kFramesMax, "BDs", "LOW_TXMAX_FRAMES 0x35", s),
      int_param("rx-usecs-high", d.rx_usecs_high, 0, kTicksMax, "µs", "HIGH_RXCOL_TICKS 0x96", s),
      int_param("rx-frames-high", d.rx_frames_high, 0, kFramesMax, "BDs", "HIGH_RXMAX_FRAMES 0x12", s),
      int_param("tx-usecs-high", d.tx_usecs_high, 0, kTicksMax, "µs", "HIGH_TXCOL_TICKS 0x145", s),
      int_param("tx-frames-high", d.tx_frames_high, 0, kFramesMax, "BDs", "HIGH_TXMAX_FRAMES 0x52", s),
  };
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

Coalesce coalesce_from(const ParamValues& v, const Coalesce& base) {
  Coalesce c = base;
  auto u = [&](const char* n) { return unsigned(v.i(n)); };
  c.rx_usecs = u("rx-usecs");
  c.rx_frames = u("rx-frames");
  c.rx_usecs_irq = u("rx-usecs-irq");
  c.rx_frames_irq = u("rx-frames-irq");
  c.tx_usecs = u("tx-usecs");
  c.tx_frames = u("tx-frames");
  c.tx_usecs_irq = u("tx-usecs-irq");
  c.tx_frames_irq = u("tx-frames-irq");
  c.stats_block_usecs = u("stats-block-usecs");
  if (!v.has("adaptive-rx")) return c;  // 1.0: no adaptive scheme
  c.adaptive_rx = v.b("adaptive-rx");
  c.adaptive_tx = v.b("adaptive-tx");
  c.pkt_rate_low = u("pkt-rate-low");
  c.pkt_rate_high = u("pkt-rate-high");
  c.rx_usecs_low = u("rx-usecs-low");
  c.rx_frames_low = u("rx-frames-low");
  c.tx_usecs_low = u("tx-usecs-low");
  c.tx_frames_low = u("tx-frames-low");
  c.rx_usecs_high = u("rx-usecs-high");
  c.rx_frames_high = u("rx-frames-high");
  c.tx_usecs_high = u("tx-usecs-high");
  c.tx_frames_high = u("tx-frames-high");
  return c;
}

namespace {
std::vector<ParamProblem> check_params(const ParamValues& v) {
  std::vector<ParamProblem> out;
  // tg3_from_ethtool_coal copies the values; a setting that can never raise an RX update would
  // leave received frames in the return ring until a TX update carries them.
  // Later tg3 set_coalesce refuses the same pairs ("No rx interrupts will be generated if both are
  // zero", likewise tx); here every set the driver may write to the chip is checked, so a band the
  // adaptive scheme switches to later cannot stop the chip reporting.
  // rx-usecs 0 with rx-frames N is not refused: tg3 accepts it and the chip coalesces by frame
  // count alone (HOSTCC_RXCOL_TICKS 0 = tick timer off, as tg3 1.0 writes with RXMAX_FRAMES 1), so
  // traffic of fewer than N frames in flight (a ping-pong, a connect) stalls as on the real chip
  // (docs/scenarios.md says so).
  auto never = [&](const char* usecs, const char* frames, const char* what) {
    if (v.i(usecs) == 0 && v.i(frames) == 0)
      out.push_back({frames, fmt::format("{} and {} are both 0: the chip would never report a {}", usecs, frames, what)});
  };
  never("rx-usecs", "rx-frames", "received frame");
  never("tx-usecs", "tx-frames", "sent frame (no TX completion, the send ring fills)");
  if (!v.has("adaptive-rx")) return out;
  if (v.i("pkt-rate-low") > v.i("pkt-rate-high"))
    out.push_back({"pkt-rate-low", fmt::format("{} is above pkt-rate-high {}", v.i("pkt-rate-low"), v.i("pkt-rate-high"))});
  if (v.b("adaptive-rx")) {
    never("rx-usecs-low", "rx-frames-low", "received frame in the LOW band (adaptive-rx on)");
    never("rx-usecs-high", "rx-frames-high", "received frame in the HIGH band (adaptive-rx on)");
  }
  if (v.b("adaptive-tx")) {
    never("tx-usecs-low", "tx-frames-low", "sent frame in the LOW band (adaptive-tx on)");
    never("tx-usecs-high", "tx-frames-high", "sent frame in the HIGH band (adaptive-tx on)");
  }
  return out;
}

DriverEntry entry() {
  DriverEntry e;
  e.name = kDriverName;
  e.summary =
      "Broadcom Tigon3 driver tg3 0.99 (Jun 11 2002, Linux 2.4.19): non-NAPI ISR loop on SD_STATUS_UPDATED, "
      "send BDs in NIC SRAM by PIO, copybreak 256, adaptive RX coalescing bands by packet rate";
  e.params = param_schema();
  e.devices = {"BCM5701"};
  e.probe = [](Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors, const ProbeTarget& nic,
               const ParamValues& params) { return probe(k, dev, vectors, nic, params); };
  e.check = [](const ParamValues& params) { return check_params(params); };
  return e;
}
DriverEntry entry_1_0() {
  DriverEntry e;
  e.name = kDriverName10;
  e.summary =
      "Broadcom Tigon3 driver tg3 1.0 (Jul 18 2002, Red Hat 8.0 2.4.18-14): NAPI (weight 64, tg3_poll), an RX "
      "status update on every frame (rx-frames 1), TX after 5 BDs or 150 us; needs a NAPI kernel profile";
  e.params = param_schema(coalesce_1_0(), false);
  e.devices = {"BCM5701"};
  e.probe = [](Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors, const ProbeTarget& nic,
               const ParamValues& params) { return probe(k, dev, vectors, nic, params, true); };
  e.check = [](const ParamValues& params) { return check_params(params); };
  e.needs_napi = true;
  return e;
}
Registrar<DriverEntry> reg{entry()};
Registrar<DriverEntry> reg10{entry_1_0()};
// dev_alloc_skb(RX_PKT_BUF_SZ) per standard ring slot, RX_PKT_BUF_SZ = 1536 + rx_offset + 64 with
// rx_offset 2 (0 only on a 5701 in PCI-X mode, which the bus decides at probe: 2 is the larger
// truesize; both give the same number of 1500-byte fragments in 65535 bytes).
uint32_t rx_truesize(const ParamValues&) { return dev_alloc_skb_truesize(1536 + 2 + 64); }
Registrar<DriverTraits> traits{DriverTraits{kDriverName, kCostDriver, rx_truesize}};
Registrar<DriverTraits> traits10{DriverTraits{kDriverName10, kCostDriver, rx_truesize}};
}  // namespace

}  // namespace nicsim::tg3drv
