#include "drivers-sim/net/ip_input.h"

namespace nicsim {

bool ip_rcv_checks(const uint8_t* p, size_t len, uint32_t addr, NetMib& mib, TcpEffects& fx, Ipv4Header* ip) {
  fx.path(TcpPath::ip_rcv);
  ++mib[IpMib::InReceives];
  bool ip_ok = false;
  if (!parse_ipv4_header(p, len, ip, &ip_ok) || !ip_ok) {
    ++mib[IpMib::InHdrErrors];
    fx.dropped = true;
    return false;
  }
  if (ip->daddr != addr) {
    ++mib[IpMib::InAddrErrors];
    fx.dropped = true;
    return false;
  }
  return true;
}

}  // namespace nicsim
