// The sungem DriverEntries: "sungem-0.95" (LH@2.4.16) and "sungem-0.96" (LH@2.4.17), with the
// module parameters each version declares (MODULE_PARM).
#include "core/registry.h"
#include "drivers-sim/drivers/sungem/sungem.h"
#include "drivers-sim/drivers/gem_whatif/rx_blank.h"
#include "drivers-sim/driver_traits.h"
#include "drivers-sim/kernel/skb_truesize.h"

namespace nicsim::sungemdrv {

namespace {

DriverEntry entry_095() {
  DriverEntry e;
  e.name = kDriverName095;
  e.summary =
      "Sun GEM / Apple GMAC driver sungem v0.95 (16 Oct 2001, Linux 2.4.13-2.4.16): rings 128/128, MAC event "
      "masks written as enables (XMIT/RCV unmasked: TXMAC/RXMAC per frame), no TX INTME, RX_BLANK 6 pkts / 4 or "
      "2 units, CHECKSUM_HW, copybreak 256";
  // gem_debug is declared "(ignored)": no module parameter has an effect; only the RX_BLANK what-if.
  e.params = gem_whatif::rx_blank_params(6, "sungem.c v0.95 gem_init_dma (RXDMA_BLANK)",
                                         "4 units on a 66 MHz bus (GREG_BIFCFG_M66EN), 2 on 33 MHz");
  e.devices = {"GMAC"};
  e.probe = [](Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors, const ProbeTarget& nic,
               const ParamValues& params) { return probe(k, dev, vectors, nic, params, Version::v0_95); };
  return e;
}

DriverEntry entry_096() {
  DriverEntry e;
  e.name = kDriverName096;
  e.summary =
      "Sun GEM / Apple GMAC driver sungem v0.96 (17 Nov 2001, Linux 2.4.17): MAC masks XMIT/RCV masked, INTME "
      "every 64th TX descriptor, RX_BLANK 5 pkts / 8 or 4 units, PHY and autonegotiation at probe, link timer "
      "every 1.2 s, CHECKSUM_HW, copybreak 256";
  e.params = {int_param("link_mode", 0, 0, 6, "",
                        "link_modes[] index: 0 autoneg, 1 10 HD, 2 100 HD, 3 1000 HD, 4 10 FD, 5 100 FD, 6 1000 FD "
                        "(gp->link_cntl; other values: autoneg)",
                        "LH@2.4.17 drivers/net/sungem.c MODULE_PARM(link_mode), link_modes[]")};
  for (auto& spec : gem_whatif::rx_blank_params(5, "sungem.c v0.96 gem_init_dma (RXDMA_BLANK)",
                                                "8 units on a 66 MHz bus (GREG_BIFCFG_M66EN), 4 on 33 MHz"))
    e.params.push_back(std::move(spec));
  e.devices = {"GMAC"};
  e.probe = [](Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors, const ProbeTarget& nic,
               const ParamValues& params) { return probe(k, dev, vectors, nic, params, Version::v0_96); };
  return e;
}

Registrar<DriverEntry> reg095{entry_095()};
Registrar<DriverEntry> reg096{entry_096()};
// gem_alloc_skb: alloc_skb(RX_BUF_ALLOC_SIZE(gp) + 64) per receive buffer, MTU 1500.
uint32_t rx_truesize(const ParamValues&) { return alloc_skb_truesize(rx_buf_alloc_size(1500) + 64); }
Registrar<DriverTraits> traits095{DriverTraits{kDriverName095, cost_driver(Version::v0_95), rx_truesize}};
Registrar<DriverTraits> traits096{DriverTraits{kDriverName096, cost_driver(Version::v0_96), rx_truesize}};

}  // namespace
}  // namespace nicsim::sungemdrv
