#include "drivers-sim/net/tcp_sysctl.h"
#include <type_traits>

namespace nicsim {

ParamSchema tcp_sysctl_schema() {
  const TcpParams d;
  auto sw = [](const char* name, bool def, const char* doc, const char* src) {
    return int_param(name, def ? 1 : 0, 0, 1, "0/1", doc, src);
  };
  return {
      int_param("net.ipv4.tcp_reordering", d.tcp_reordering, 3, d.tcp_max_reordering, "segments",
                "initial reordering degree tp->reordering: dupacks/SACKed segments before fast retransmit",
                "2.4.20 sysctl_tcp_reordering = TCP_FASTRETRANS_THRESH = 3; TCP_MAX_REORDERING = 127"),
      sw("net.ipv4.tcp_sack", d.tcp_sack, "SACK (RFC 2018) offered and used", "2.4.20 sysctl_tcp_sack = 1"),
      sw("net.ipv4.tcp_fack", d.tcp_fack, "forward acknowledgement (FACK) loss estimation", "2.4.20 sysctl_tcp_fack = 1"),
      sw("net.ipv4.tcp_dsack", d.tcp_dsack, "D-SACK (RFC 2883) reports of duplicate segments", "2.4.20 sysctl_tcp_dsack = 1"),
      sw("net.ipv4.tcp_timestamps", d.tcp_timestamps, "RFC 1323 timestamps", "2.4.20 sysctl_tcp_timestamps = 1"),
  };
}

TcpParams apply_tcp_sysctls(TcpParams p, const ParamValues& v) {
  auto i = [&](const char* name, auto& field) {
    if (v.has(name)) field = static_cast<std::remove_reference_t<decltype(field)>>(v.i(name));
  };
  i("net.ipv4.tcp_reordering", p.tcp_reordering);
  i("net.ipv4.tcp_sack", p.tcp_sack);
  i("net.ipv4.tcp_fack", p.tcp_fack);
  i("net.ipv4.tcp_dsack", p.tcp_dsack);
  i("net.ipv4.tcp_timestamps", p.tcp_timestamps);
  return p;
}

}  // namespace nicsim
