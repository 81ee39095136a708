#include "drivers-sim/net/mib.h"

#include "core/counters.h"

#include <cinttypes>
#include <cstdio>

namespace nicsim {

namespace {

const char* const kIpNames[] = {
    "Forwarding", "DefaultTTL", "InReceives", "InHdrErrors", "InAddrErrors", "ForwDatagrams",
    "InUnknownProtos", "InDiscards", "InDelivers", "OutRequests", "OutDiscards", "OutNoRoutes",
    "ReasmTimeout", "ReasmReqds", "ReasmOKs", "ReasmFails", "FragOKs", "FragFails", "FragCreates"};
static_assert(sizeof(kIpNames) / sizeof(kIpNames[0]) == size_t(IpMib::Count));

const char* const kTcpNames[] = {
    "RtoAlgorithm", "RtoMin", "RtoMax", "MaxConn", "ActiveOpens", "PassiveOpens", "AttemptFails",
    "EstabResets", "CurrEstab", "InSegs", "OutSegs", "RetransSegs", "InErrs", "OutRsts"};
static_assert(sizeof(kTcpNames) / sizeof(kTcpNames[0]) == size_t(TcpMib::Count));

const char* const kTcpExtNames[] = {
    "SyncookiesSent", "SyncookiesRecv", "SyncookiesFailed", "EmbryonicRsts", "PruneCalled",
    "RcvPruned", "OfoPruned", "OutOfWindowIcmps", "LockDroppedIcmps", "ArpFilter", "TW",
    "TWRecycled", "TWKilled", "PAWSPassive", "PAWSActive", "PAWSEstab", "DelayedACKs",
    "DelayedACKLocked", "DelayedACKLost", "ListenOverflows", "ListenDrops", "TCPPrequeued",
    "TCPDirectCopyFromBacklog", "TCPDirectCopyFromPrequeue", "TCPPrequeueDropped", "TCPHPHits",
    "TCPHPHitsToUser", "TCPPureAcks", "TCPHPAcks", "TCPRenoRecovery", "TCPSackRecovery",
    "TCPSACKReneging", "TCPFACKReorder", "TCPSACKReorder", "TCPRenoReorder", "TCPTSReorder",
    "TCPFullUndo", "TCPPartialUndo", "TCPDSACKUndo", "TCPLossUndo", "TCPLoss",
    "TCPLostRetransmit", "TCPRenoFailures", "TCPSackFailures", "TCPLossFailures",
    "TCPFastRetrans", "TCPForwardRetrans", "TCPSlowStartRetrans", "TCPTimeouts",
    "TCPRenoRecoveryFail", "TCPSackRecoveryFail", "TCPSchedulerFailed", "TCPRcvCollapsed",
    "TCPDSACKOldSent", "TCPDSACKOfoSent", "TCPDSACKRecv", "TCPDSACKOfoRecv", "TCPAbortOnSyn",
    "TCPAbortOnData", "TCPAbortOnClose", "TCPAbortOnMemory", "TCPAbortOnTimeout",
    "TCPAbortOnLinger", "TCPAbortFailed", "TCPMemoryPressures"};
static_assert(sizeof(kTcpExtNames) / sizeof(kTcpExtNames[0]) == size_t(TcpExtMib::Count));

const char* const kUdpNames[] = {"InDatagrams", "NoPorts", "InErrors", "OutDatagrams"};
static_assert(sizeof(kUdpNames) / sizeof(kUdpNames[0]) == size_t(UdpMib::Count));

// net-tools 1.60 statistics.c entry kinds.
enum Kind { kNumber, kOptNumber, kHidden };
struct Label {
  Kind kind;
  const char* fmt;  // one "%s" for the value
};

// Ip: labels (I_STATIC Forwarding/DefaultTTL are not printed by default).
const Label kIpLabels[] = {
    {kHidden, ""},
    {kHidden, ""},
    {kNumber, "%s total packets received"},
    {kOptNumber, "%s with invalid headers"},
    {kOptNumber, "%s with invalid addresses"},
    {kNumber, "%s forwarded"},
    {kOptNumber, "%s with unknown protocol"},
    {kNumber, "%s incoming packets discarded"},
    {kNumber, "%s incoming packets delivered"},
    {kNumber, "%s requests sent out"},
    {kOptNumber, "%s outgoing packets dropped"},
    {kOptNumber, "%s dropped because of missing route"},
    {kOptNumber, "%s fragments dropped after timeout"},
    {kOptNumber, "%s reassemblies required"},
    {kOptNumber, "%s packets reassembled ok"},
    {kOptNumber, "%s packet reassembles failed"},
    {kOptNumber, "%s fragments received ok"},
    {kOptNumber, "%s fragments failed"},
    {kOptNumber, "%s fragments created"}};

// Tcp: RtoAlgorithm is I_STATIC; RtoMin, RtoMax, MaxConn have empty titles and are skipped.
const Label kTcpLabels[] = {
    {kHidden, ""},
    {kHidden, ""},
    {kHidden, ""},
    {kHidden, ""},
    {kNumber, "%s active connections openings"},
    {kNumber, "%s passive connection openings"},
    {kNumber, "%s failed connection attempts"},
    {kNumber, "%s connection resets received"},
    {kNumber, "%s connections established"},
    {kNumber, "%s segments received"},
    {kNumber, "%s segments send out"},
    {kNumber, "%s segments retransmited"},
    {kNumber, "%s bad segments received."},
    {kNumber, "%s resets sent"}};

// Udp: labels (net-tools 1.60 statistics.c, udp_snmp).
const Label kUdpLabels[] = {
    {kNumber, "%s packets received"},
    {kNumber, "%s packets to unknown port received."},
    {kNumber, "%s packet receive errors"},
    {kNumber, "%s packets sent"}};

// TcpExt: the fields net-tools labels (up to TCPHPHitsToUser); nullptr = printed raw.
const Label* tcpext_label(TcpExtMib f) {
  static const Label kSyncookiesSent{kOptNumber, "%s SYN cookies sent"};
  static const Label kSyncookiesRecv{kOptNumber, "%s SYN cookies received"};
  static const Label kSyncookiesFailed{kOptNumber, "%s invalid SYN cookies received"};
  static const Label kEmbryonicRsts{kOptNumber, "%s resets received for embryonic SYN_RECV sockets"};
  static const Label kPruneCalled{kOptNumber,
                                  "%s packets pruned from receive queue because of socket buffer overrun"};
  static const Label kRcvPruned{kOptNumber, "%s packets pruned from receive queue"};
  static const Label kOfoPruned{kOptNumber,
                                "%s packets dropped from out-of-order queue because of socket buffer overrun"};
  static const Label kOutOfWindowIcmps{kOptNumber, "%s ICMP packets dropped because they were out-of-window"};
  static const Label kLockDroppedIcmps{kOptNumber, "%s ICMP packets dropped because socket was locked"};
  static const Label kTW{kOptNumber, "%s TCP sockets finished time wait in fast timer"};
  static const Label kTWRecycled{kOptNumber, "%s time wait sockets recycled by time stamp"};
  static const Label kTWKilled{kOptNumber, "%s TCP sockets finished time wait in slow timer"};
  static const Label kPAWSPassive{kOptNumber, "%s passive connections rejected because of time stamp"};
  static const Label kPAWSActive{kOptNumber, "%s active connections rejected because of time stamp"};
  static const Label kPAWSEstab{kOptNumber,
                                "%s packets rejects in established connections because of timestamp"};
  static const Label kDelayedACKs{kOptNumber, "%s delayed acks sent"};
  static const Label kDelayedACKLocked{kOptNumber, "%s delayed acks further delayed because of locked socket"};
  static const Label kDelayedACKLost{kOptNumber, "Quick ack mode was activated %s times"};
  static const Label kListenOverflows{kOptNumber, "%s times the listen queue of a socket overflowed"};
  static const Label kListenDrops{kOptNumber, "%s SYNs to LISTEN sockets ignored"};
  static const Label kTCPPrequeued{kOptNumber, "%s packets directly queued to recvmsg prequeue."};
  static const Label kTCPDirectCopyFromBacklog{kOptNumber, "%s packets directly received from backlog"};
  static const Label kTCPDirectCopyFromPrequeue{kOptNumber, "%s packets directly received from prequeue"};
  static const Label kTCPPrequeueDropped{kOptNumber, "%s packets dropped from prequeue"};
  static const Label kTCPHPHits{kNumber, "%s packets header predicted"};
  static const Label kTCPHPHitsToUser{kOptNumber, "%s packets header predicted and directly queued to user"};
  switch (f) {
    case TcpExtMib::SyncookiesSent: return &kSyncookiesSent;
    case TcpExtMib::SyncookiesRecv: return &kSyncookiesRecv;
    case TcpExtMib::SyncookiesFailed: return &kSyncookiesFailed;
    case TcpExtMib::EmbryonicRsts: return &kEmbryonicRsts;
    case TcpExtMib::PruneCalled: return &kPruneCalled;
    case TcpExtMib::RcvPruned: return &kRcvPruned;
    case TcpExtMib::OfoPruned: return &kOfoPruned;
    case TcpExtMib::OutOfWindowIcmps: return &kOutOfWindowIcmps;
    case TcpExtMib::LockDroppedIcmps: return &kLockDroppedIcmps;
    case TcpExtMib::TW: return &kTW;
    case TcpExtMib::TWRecycled: return &kTWRecycled;
    case TcpExtMib::TWKilled: return &kTWKilled;
    case TcpExtMib::PAWSPassive: return &kPAWSPassive;
    case TcpExtMib::PAWSActive: return &kPAWSActive;
    case TcpExtMib::PAWSEstab: return &kPAWSEstab;
    case TcpExtMib::DelayedACKs: return &kDelayedACKs;
    case TcpExtMib::DelayedACKLocked: return &kDelayedACKLocked;
    case TcpExtMib::DelayedACKLost: return &kDelayedACKLost;
    case TcpExtMib::ListenOverflows: return &kListenOverflows;
    case TcpExtMib::ListenDrops: return &kListenDrops;
    case TcpExtMib::TCPPrequeued: return &kTCPPrequeued;
    case TcpExtMib::TCPDirectCopyFromBacklog: return &kTCPDirectCopyFromBacklog;
    case TcpExtMib::TCPDirectCopyFromPrequeue: return &kTCPDirectCopyFromPrequeue;
    case TcpExtMib::TCPPrequeueDropped: return &kTCPPrequeueDropped;
    case TcpExtMib::TCPHPHits: return &kTCPHPHits;
    case TcpExtMib::TCPHPHitsToUser: return &kTCPHPHitsToUser;
    default: return nullptr;
  }
}

constexpr const char* kIndent = "    ";

void print_labelled(std::string& out, const Label& l, uint64_t v) {
  if (l.kind == kHidden) return;
  if (l.kind == kOptNumber && v == 0) return;
  char num[32];
  std::snprintf(num, sizeof num, "%" PRIu64, v);
  char line[256];
  std::snprintf(line, sizeof line, l.fmt, num);
  out += kIndent;
  out += line;
  out += '\n';
}

}  // namespace

const char* mib_name(IpMib f) { return kIpNames[size_t(f)]; }
const char* mib_name(TcpMib f) { return kTcpNames[size_t(f)]; }
const char* mib_name(TcpExtMib f) { return kTcpExtNames[size_t(f)]; }
const char* mib_name(UdpMib f) { return kUdpNames[size_t(f)]; }

NetMib::NetMib() {
  (*this)[IpMib::Forwarding] = 2;    // 2 = not forwarding (RFC 1213 ipForwarding)
  (*this)[IpMib::DefaultTTL] = 64;   // sysctl_ip_default_ttl = IPDEFTTL
  (*this)[TcpMib::RtoAlgorithm] = 1; // "other" (net/ipv4/proc.c)
  (*this)[TcpMib::RtoMin] = 200;             // TCP_RTO_MIN = HZ/5 jiffies, reported in ms
  (*this)[TcpMib::RtoMax] = 120 * 1000;      // TCP_RTO_MAX = 120*HZ jiffies, reported in ms
  (*this)[TcpMib::MaxConn] = uint64_t(-1);   // -1: dynamic
}

std::string netstat_s(const NetMib& m) {
  std::string out;
  out += "Ip:\n";
  for (size_t i = 0; i < size_t(IpMib::Count); ++i) print_labelled(out, kIpLabels[i], m.ip[i]);
  out += "Icmp:\n";
  out += "    0 ICMP messages received\n";
  out += "    0 input ICMP message failed.\n";
  out += "    ICMP input histogram:\n";
  out += "    0 ICMP messages sent\n";
  out += "    0 ICMP messages failed\n";
  out += "    ICMP output histogram:\n";
  out += "Tcp:\n";
  for (size_t i = 0; i < size_t(TcpMib::Count); ++i) print_labelled(out, kTcpLabels[i], m.tcp[i]);
  out += "Udp:\n";
  for (size_t i = 0; i < size_t(UdpMib::Count); ++i) print_labelled(out, kUdpLabels[i], m.udp[i]);
  out += "TcpExt:\n";
  for (size_t i = 0; i < size_t(TcpExtMib::Count); ++i) {
    const Label* l = tcpext_label(TcpExtMib(i));
    if (l) {
      print_labelled(out, *l, m.tcpext[i]);
    } else {
      char line[128];
      std::snprintf(line, sizeof line, "%s%s: %" PRIu64 "\n", kIndent, kTcpExtNames[i], m.tcpext[i]);
      out += line;
    }
  }
  return out;
}

void export_counters(const NetMib& m, Counters& c, const std::string& prefix) {
  for (size_t i = 0; i < size_t(IpMib::Count); ++i) c.at(prefix + ".Ip." + kIpNames[i]) = m.ip[i];
  for (size_t i = 0; i < size_t(TcpMib::Count); ++i) c.at(prefix + ".Tcp." + kTcpNames[i]) = m.tcp[i];
  // tcpMaxConn is an Integer32 (RFC 2012); Linux prints its "dynamic" value as -1.
  c.set_signed(prefix + ".Tcp." + kTcpNames[size_t(TcpMib::MaxConn)]);
  for (size_t i = 0; i < size_t(TcpExtMib::Count); ++i)
    c.at(prefix + ".TcpExt." + kTcpExtNames[i]) = m.tcpext[i];
  for (size_t i = 0; i < size_t(UdpMib::Count); ++i) c.at(prefix + ".Udp." + kUdpNames[i]) = m.udp[i];
}

}  // namespace nicsim
