#include "drivers-sim/net/ip_input.h"

namespace nicsim {

bool ip_rcv_checks(const uint8_t* p, size_t len, uint32_t addr, NetMib& mib, TcpEffects& fx, Ipv4Header* ip) {
  LocalAddrs l;
  l.primary = addr;
  return ip_rcv_checks(p, len, l, mib, fx, ip);
}

bool LocalAddrs::has(uint32_t a) const {
  if (a == primary) return true;
  for (uint32_t e : extra)
    if (e == a) return true;
  return false;
}

void LocalAddrs::add(uint32_t a) {
  if (!has(a)) extra.push_back(a);
}

uint32_t LocalAddrs::source_for(uint32_t daddr) const {
  if (has(daddr) && daddr != 0) return daddr;
  if ((daddr >> 24) == 127) {
    for (uint32_t e : extra)
      if ((e >> 24) == 127) return e;
  }
  return primary;
}

bool ip_rcv_checks(const uint8_t* p, size_t len, const LocalAddrs& local, NetMib& mib, TcpEffects& fx, Ipv4Header* ip) {
  fx.path(TcpPath::ip_rcv);
  ++mib[IpMib::InReceives];
  bool ip_ok = false;
  if (!parse_ipv4_header(p, len, ip, &ip_ok) || !ip_ok) {
    ++mib[IpMib::InHdrErrors];
    fx.dropped = true;
    return false;
  }
  if (!local.has(ip->daddr)) {
    ++mib[IpMib::InAddrErrors];
    fx.dropped = true;
    return false;
  }
  return true;
}

}  // namespace nicsim
