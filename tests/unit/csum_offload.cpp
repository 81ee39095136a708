// dev->features read where Linux 2.4.20 reads them for the TX checksum (drivers-sim/kernel/csum_offload.h).
#include "drivers-sim/kernel/csum_offload.h"
#include <catch2/catch.hpp>

using namespace nicsim;

TEST_CASE("checksum offload: a segment is CHECKSUM_HW only through a device that checksums TCP/IPv4",
          "[net][csum]") {
  CHECK(tx_ip_summed(0) == CHECKSUM_NONE);
  CHECK(tx_ip_summed(NETIF_F_SG) == CHECKSUM_NONE);
  CHECK(tx_ip_summed(NETIF_F_SG | NETIF_F_HIGHDMA) == CHECKSUM_NONE);
  CHECK(tx_ip_summed(NETIF_F_IP_CSUM) == CHECKSUM_HW);
  CHECK(tx_ip_summed(NETIF_F_SG | NETIF_F_HW_CSUM) == CHECKSUM_HW);  // e1000 on 82543+ (e1000_probe)
  CHECK(tx_ip_summed(NETIF_F_NO_CSUM) == CHECKSUM_HW);               // loopback
}
