// The eepro100 module parameters (names, defaults, ranges, units, sources) and the DriverEntry.
#include "drivers-sim/drivers/eepro100/eepro100.h"
#include "drivers-sim/driver_entry.h"
#include "drivers-sim/driver_traits.h"
#include "drivers-sim/kernel/skb_truesize.h"
#include <fmt/format.h>

namespace nicsim::eepro100drv {

namespace {
const char* kSrc =
    "eepro100.c v1.09j-t / rev 1.36 (Linux 2.4.18-2.4.20; oct-month/linux-kernel-2.4.18 drivers/net/eepro100.c "
    "@375b8653): static int defaults and MODULE_PARM_DESC; research/seeds-001-004-platforms-drivers.md §2.3";
}  // namespace

ParamSchema param_schema() {
  const std::string src = kSrc;
  return {
      int_param("rx_copybreak", 200, 0, 1518, "bytes",
                "frames shorter than this are copied into a right-sized skb and the ring buffer is reused; longer "
                "ones pass the ring skb up (200 on x86, 1518 on alpha/sparc/mips/arm)",
                src),
      int_param("max_interrupt_work", 20, 0, 1000, "passes",
                "status-loop passes per speedo_interrupt before 'Too much work at interrupt' (outw 0xfc00 and leave)",
                src),
      int_param("txfifo", 8, 0, 15, "4-byte units", "Tx FIFO threshold, configure byte 1 bits 7:4", src),
      int_param("rxfifo", 8, 0, 15, "4-byte units", "Rx FIFO threshold, configure byte 1 bits 3:0", src),
      int_param("txdmacount", 128, 0, 128, "0-128",
                "Tx DMA burst length, configure byte 5 = txdmacount + 0x80; 128 = disabled (the NIC model does not "
                "use the DMA counts: dma_burst_bytes)",
                src),
      int_param("rxdmacount", 0, 0, 128, "0-128", "Rx DMA burst length, configure byte 4 (not used by the NIC model)",
                src),
      int_param("multicast_filter_limit", 64, 0, 1000, "addresses",
                "above this many multicast addresses the filter accepts all multicast", src),
      int_param("full_duplex", -1, -1, 1, "-1/0/1",
                "full_duplex[card]: 1 forces full duplex (configure byte 19 bit 6); -1 = options bit 4", src),
      int_param("options", -1, -1, 63, "bit mask",
                "options[card]: bits 3:0 transceiver, bit 4 full duplex, bit 5 100 Mb/s; bits 4/5 force the PHY "
                "(mdio_write BMCR) at probe; -1 = none",
                src),
  };
}

Options options_from(const ParamValues& v) {
  Options o;
  o.rx_copybreak = int(v.i("rx_copybreak"));
  o.max_interrupt_work = int(v.i("max_interrupt_work"));
  o.txfifo = int(v.i("txfifo"));
  o.rxfifo = int(v.i("rxfifo"));
  o.txdmacount = int(v.i("txdmacount"));
  o.rxdmacount = int(v.i("rxdmacount"));
  o.multicast_filter_limit = int(v.i("multicast_filter_limit"));
  o.full_duplex = int(v.i("full_duplex"));
  o.options = int(v.i("options"));
  return o;
}

namespace {
DriverEntry entry() {
  DriverEntry e;
  e.name = "eepro100";
  e.summary =
      "Linux 2.4.18-2.4.20 eepro100 (Becker v1.09j-t, rev 1.36) for Intel 8255x: rings 64/64, flexible TxCBs each "
      "with CmdSuspend + CU Resume, CmdIntr every 16th, CX/FR/CNA/RNR interrupts, no mitigation, rx_copybreak 200, "
      "SCB in memory space";
  e.params = param_schema();
  e.devices = {"82557", "82558A4", "82558B0", "82559"};
  e.probe = [](Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors, const ProbeTarget& nic,
               const ParamValues& params) { return probe(k, dev, vectors, nic, params); };
  // Forcing the PHY (options bits 4/5 -> BMCR at probe) or half duplex is not acted on by the 8255x
  // model (it links full duplex at the cable's speed): refuse it rather than ignore it.
  e.check = [](const ParamValues& v) {
    std::vector<ParamProblem> out;
    const int64_t o = v.i("options");
    if (o >= 0 && (o & 0x30) != 0 && (o & 0x30) != 0x30)
      out.push_back({"options", fmt::format("{} forces {} on the PHY, which the 8255x model does not act on (it links "
                                            "full duplex at the cable's speed): set links.N.speed_mbps instead",
                                            o, (o & 0x20) ? "100 Mb/s half duplex" : "10 Mb/s full duplex")});
    if (v.i("full_duplex") == 0)
      out.push_back({"full_duplex", "0 (half duplex) is not modelled: the 8255x model and the cable are full duplex"});
    return out;
  };
  return e;
}
Registrar<DriverEntry> reg{entry()};
// speedo_init_rx_ring: dev_alloc_skb(PKT_BUF_SZ + sizeof(struct RxFD)) per receive buffer.
Registrar<DriverTraits> traits{DriverTraits{
    "eepro100", kCostDriver, [](const ParamValues&) { return dev_alloc_skb_truesize(PKT_BUF_SZ + kRxFDBytes); }}};
}  // namespace

}  // namespace nicsim::eepro100drv
