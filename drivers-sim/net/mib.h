// Per-host SNMP / Linux MIB counters under Linux 2.4.20's names (/proc/net/snmp "Ip:", "Tcp:" and
// /proc/net/netstat "TcpExt:", in the kernel's order), and a `netstat -s` printer in the format of
// net-tools 1.60 with the 2001-10-24 2.4 labels (research/tg3-bonding-tcp-gmac-formats.md §2.3
// "netstat output format"): labelled fields print "    <n> <label>", opt_number fields are
// suppressed when zero, fields net-tools has no label for print raw as "    Name: <n>".
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace nicsim {

class Counters;

/// /proc/net/snmp "Ip:" fields (include/net/snmp.h struct ip_mib), kernel order.
enum class IpMib : uint8_t {
  Forwarding, DefaultTTL, InReceives, InHdrErrors, InAddrErrors, ForwDatagrams, InUnknownProtos,
  InDiscards, InDelivers, OutRequests, OutDiscards, OutNoRoutes, ReasmTimeout, ReasmReqds, ReasmOKs,
  ReasmFails, FragOKs, FragFails, FragCreates, Count
};

/// /proc/net/snmp "Tcp:" fields (struct tcp_mib), kernel order.
enum class TcpMib : uint8_t {
  RtoAlgorithm, RtoMin, RtoMax, MaxConn, ActiveOpens, PassiveOpens, AttemptFails, EstabResets,
  CurrEstab, InSegs, OutSegs, RetransSegs, InErrs, OutRsts, Count
};

/// /proc/net/snmp "Udp:" fields (struct udp_mib), kernel order.
enum class UdpMib : uint8_t { InDatagrams, NoPorts, InErrors, OutDatagrams, Count };

/// /proc/net/netstat "TcpExt:" fields of Linux 2.4.20 (struct linux_mib), kernel order.
enum class TcpExtMib : uint8_t {
  SyncookiesSent, SyncookiesRecv, SyncookiesFailed, EmbryonicRsts, PruneCalled, RcvPruned,
  OfoPruned, OutOfWindowIcmps, LockDroppedIcmps, ArpFilter, TW, TWRecycled, TWKilled, PAWSPassive,
  PAWSActive, PAWSEstab, DelayedACKs, DelayedACKLocked, DelayedACKLost, ListenOverflows,
  ListenDrops, TCPPrequeued, TCPDirectCopyFromBacklog, TCPDirectCopyFromPrequeue,
  TCPPrequeueDropped, TCPHPHits, TCPHPHitsToUser, TCPPureAcks, TCPHPAcks, TCPRenoRecovery,
  TCPSackRecovery, TCPSACKReneging, TCPFACKReorder, TCPSACKReorder, TCPRenoReorder, TCPTSReorder,
  TCPFullUndo, TCPPartialUndo, TCPDSACKUndo, TCPLossUndo, TCPLoss, TCPLostRetransmit,
  TCPRenoFailures, TCPSackFailures, TCPLossFailures, TCPFastRetrans, TCPForwardRetrans,
  TCPSlowStartRetrans, TCPTimeouts, TCPRenoRecoveryFail, TCPSackRecoveryFail, TCPSchedulerFailed,
  TCPRcvCollapsed, TCPDSACKOldSent, TCPDSACKOfoSent, TCPDSACKRecv, TCPDSACKOfoRecv, TCPAbortOnSyn,
  TCPAbortOnData, TCPAbortOnClose, TCPAbortOnMemory, TCPAbortOnTimeout, TCPAbortOnLinger,
  TCPAbortFailed, TCPMemoryPressures, Count
};

const char* mib_name(IpMib f);
const char* mib_name(TcpMib f);
const char* mib_name(TcpExtMib f);
const char* mib_name(UdpMib f);

/// One host's counters. Static fields (Forwarding, DefaultTTL, RtoAlgorithm, RtoMin, RtoMax,
/// MaxConn) hold the values Linux 2.4 reports for them.
struct NetMib {
  std::array<uint64_t, size_t(IpMib::Count)> ip{};
  std::array<uint64_t, size_t(TcpMib::Count)> tcp{};
  std::array<uint64_t, size_t(TcpExtMib::Count)> tcpext{};
  std::array<uint64_t, size_t(UdpMib::Count)> udp{};

  NetMib();
  uint64_t& operator[](IpMib f) { return ip[size_t(f)]; }
  uint64_t& operator[](TcpMib f) { return tcp[size_t(f)]; }
  uint64_t& operator[](TcpExtMib f) { return tcpext[size_t(f)]; }
  uint64_t& operator[](UdpMib f) { return udp[size_t(f)]; }
  uint64_t operator[](IpMib f) const { return ip[size_t(f)]; }
  uint64_t operator[](TcpMib f) const { return tcp[size_t(f)]; }
  uint64_t operator[](TcpExtMib f) const { return tcpext[size_t(f)]; }
  uint64_t operator[](UdpMib f) const { return udp[size_t(f)]; }
};

/// The text `netstat -s` (net-tools 1.60 + 2.4 labels) prints for these counters: sections Ip,
/// Icmp, Tcp, Udp, TcpExt (Icmp is not modelled and prints as zero).
std::string netstat_s(const NetMib& m);

/// Copy every counter into `c` as "<prefix>.Ip.InReceives", "<prefix>.Tcp.InSegs",
/// "<prefix>.Udp.InDatagrams", "<prefix>.TcpExt.DelayedACKs", ... (values overwrite, so it can be called repeatedly).
void export_counters(const NetMib& m, Counters& c, const std::string& prefix);

}  // namespace nicsim
