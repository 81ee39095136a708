// The TCP sysctls a scenario may set per host, under their /proc/sys names (as sysctl(8) and
// /etc/sysctl.conf spell them): `[hosts.alpha.sysctl] "net.ipv4.tcp_reordering" = 10`, or the
// nested form `[hosts.alpha.sysctl.net.ipv4] tcp_reordering = 10`. Ranges are those 2.4.20 makes
// meaningful: tcp_reordering 3..127 (TCP_FASTRETRANS_THRESH .. TCP_MAX_REORDERING; bonding.txt
// "usual default value is 3, and the maximum useful value is 127"), the switches 0/1.
#pragma once
#include "core/params.h"
#include "drivers-sim/net/tcp_params.h"

namespace nicsim {

/// One ParamSpec per sysctl, named "net.ipv4.<name>", defaults from TcpParams (2.4.20 values).
ParamSchema tcp_sysctl_schema();
/// `p` with every sysctl present in `v` (values of tcp_sysctl_schema()) applied; absent ones keep p's.
TcpParams apply_tcp_sysctls(TcpParams p, const ParamValues& v);

}  // namespace nicsim
