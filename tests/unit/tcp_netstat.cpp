// `netstat -s` text for the Linux 2.4 MIB, against the lines quoted in seed 004.
#include "core/counters.h"
#include "drivers-sim/net/mib.h"

#include <catch2/catch.hpp>

#include <sstream>
#include <vector>

// This file's own names, apart from the other files of a unity batch.
namespace tcp_netstat_test {
using namespace nicsim;

namespace {
std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}
bool has_line(const std::string& text, const std::string& line) {
  for (auto& l : lines(text))
    if (l == line) return true;
  return false;
}
size_t index_of(const std::string& text, const std::string& line) {
  auto v = lines(text);
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] == line) return i;
  return size_t(-1);
}
}  // namespace

TEST_CASE("netstat -s prints seed 004's single-interface counters in net-tools' words",
          "[net][netstat]") {
  NetMib m;
  // ../shared/reference/seed004_bonding_netstat.csv, column "single"
  m[TcpMib::RetransSegs] = 0;
  m[TcpExtMib::TCPPrequeued] = 109616;
  m[TcpExtMib::TCPDirectCopyFromBacklog] = 52249581;
  m[TcpExtMib::TCPDirectCopyFromPrequeue] = 125694404;
  m[TcpExtMib::TCPHPHits] = 78;
  m[TcpExtMib::TCPHPHitsToUser] = 124999;
  m[TcpExtMib::TCPPureAcks] = 93;
  m[TcpExtMib::TCPHPAcks] = 22981;
  std::string s = netstat_s(m);
  const std::vector<std::string> seed = {
      "    109616 packets directly queued to recvmsg prequeue.",
      "    52249581 packets directly received from backlog",
      "    125694404 packets directly received from prequeue",
      "    78 packets header predicted",
      "    124999 packets header predicted and directly queued to user",
      "    TCPPureAcks: 93",
      "    TCPHPAcks: 22981"};
  size_t last = 0;
  for (auto& l : seed) {
    size_t i = index_of(s, l);
    REQUIRE(i != size_t(-1));
    CHECK(i > last);  // in the seed's (= the kernel's) order
    last = i;
  }
  CHECK(has_line(s, "Tcp:"));
  CHECK(has_line(s, "    0 segments retransmited"));  // a "number": printed even when zero
  CHECK(index_of(s, "TcpExt:") < index_of(s, seed[0]));
  // opt_number fields are suppressed when zero.
  CHECK(s.find("delayed acks sent") == std::string::npos);
  CHECK(s.find("Quick ack mode") == std::string::npos);
  // Fields net-tools 1.60 has no label for print raw, zeros included.
  CHECK(has_line(s, "    TCPRenoReorder: 0"));
  CHECK(has_line(s, "    ArpFilter: 0"));
}

TEST_CASE("netstat -s prints seed 004's bonded-interface counters", "[net][netstat]") {
  NetMib m;
  m[TcpMib::RetransSegs] = 234;
  m[TcpExtMib::DelayedACKs] = 1;
  m[TcpExtMib::DelayedACKLost] = 234;
  m[TcpExtMib::TCPHPHits] = 6232;
  m[TcpExtMib::TCPPureAcks] = 25708;
  std::string s = netstat_s(m);
  CHECK(has_line(s, "    234 segments retransmited"));
  CHECK(has_line(s, "    1 delayed acks sent"));
  CHECK(has_line(s, "    Quick ack mode was activated 234 times"));
  CHECK(index_of(s, "    1 delayed acks sent") < index_of(s, "    Quick ack mode was activated 234 times"));
  CHECK(has_line(s, "    6232 packets header predicted"));
  CHECK(has_line(s, "    TCPPureAcks: 25708"));
}

TEST_CASE("MIB counters export under Linux names", "[net][netstat]") {
  NetMib m;
  m[TcpMib::InSegs] = 5;
  m[TcpExtMib::DelayedACKs] = 2;
  Counters c;
  export_counters(m, c, "alpha.netstat");
  CHECK(c.get("alpha.netstat.Tcp.InSegs") == 5);
  CHECK(c.get("alpha.netstat.TcpExt.DelayedACKs") == 2);
  CHECK(c.get("alpha.netstat.Ip.DefaultTTL") == 64);
  CHECK(std::string(mib_name(TcpExtMib::TCPHPHitsToUser)) == "TCPHPHitsToUser");
}

}  // namespace tcp_netstat_test
