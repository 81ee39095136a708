// netperf 2.2 TCP_RR / UDP_RR logic (drivers-sim/apps/netperf_rr_logic.h) against netperf 2.2pl2
// nettest_bsd.c: -r parsing (break_args), banner, result block byte for byte, rate and RTT.
#include "drivers-sim/apps/netperf_rr_logic.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace netperf_rr_logic_test {
using namespace nicsim;


TEST_CASE("netperf -r parsing follows break_args: one value sets both, a lone comma side sets one", "[netperf_rr]") {
  auto both = parse_rr_sizes("64");
  REQUIRE(both);
  CHECK(both->request_bytes == 64);
  CHECK(both->response_bytes == 64);
  auto two = parse_rr_sizes("32,1024");
  REQUIRE(two);
  CHECK(two->request_bytes == 32);
  CHECK(two->response_bytes == 1024);
  auto resp_only = parse_rr_sizes(",512");  // leading comma: just the second parm
  REQUIRE(resp_only);
  CHECK(resp_only->request_bytes == 1);     // req_size = 1 default
  CHECK(resp_only->response_bytes == 512);
  auto req_only = parse_rr_sizes("512,");   // trailing comma: just the first parm
  REQUIRE(req_only);
  CHECK(req_only->request_bytes == 512);
  CHECK(req_only->response_bytes == 1);
  CHECK_FALSE(parse_rr_sizes(""));
  CHECK_FALSE(parse_rr_sizes(","));
  CHECK_FALSE(parse_rr_sizes("0"));
  CHECK_FALSE(parse_rr_sizes("16K"));
  CHECK_FALSE(parse_rr_sizes("-5"));
}

TEST_CASE("netperf RR banner: TCP with and without nodelay, UDP without the nodelay suffix", "[netperf_rr]") {
  CHECK(netperf_rr_banner(NetperfRrTest::TCP_RR, "10.0.1.2", false) == "TCP REQUEST/RESPONSE TEST to 10.0.1.2\n");
  CHECK(netperf_rr_banner(NetperfRrTest::TCP_RR, "10.0.1.2", true) ==
        "TCP REQUEST/RESPONSE TEST to 10.0.1.2 : nodelay\n");
  CHECK(netperf_rr_banner(NetperfRrTest::UDP_RR, "10.0.1.2", true) == "UDP REQUEST/RESPONSE TEST to 10.0.1.2\n");
  CHECK(std::string(netperf_rr_test_name(NetperfRrTest::UDP_RR)) == "UDP_RR");
  CHECK(netperf_rr_test_of("TCP_RR") == NetperfRrTest::TCP_RR);
  CHECK_FALSE(netperf_rr_test_of("tcp_rr"));
}

TEST_CASE("netperf RR result block is tput_title plus tput_fmt_1_line_1 and line_2 byte for byte", "[netperf_rr]") {
  NetperfRrResult r;
  r.local_send_socket_bytes = 16384;
  r.local_recv_socket_bytes = 87380;
  r.remote_send_socket_bytes = 16384;
  r.remote_recv_socket_bytes = 87380;
  r.request_bytes = 64;
  r.response_bytes = 64;
  r.elapsed_s = 10.0;
  r.transactions_per_s = 5593.78;
  // "%-6d %-6d %-6d   %-6d  %-6.2f   %7.2f   \n" and "%-6d %-6d\n" (send_tcp_rr).
  const std::string expected =
      "Local /Remote\n"
      "Socket Size   Request  Resp.   Elapsed  Trans.\n"
      "Send   Recv   Size     Size    Time     Rate         \n"
      "bytes  Bytes  bytes    bytes   secs.    per sec   \n"
      "\n"
      "16384  87380  64       64      10.00    5593.78   \n"
      "16384  87380 \n";
  CHECK(netperf_rr_result_block(r) == expected);
  r.request_bytes = 4096;
  r.response_bytes = 1;
  r.elapsed_s = 0.5;
  r.transactions_per_s = 123456.789;
  CHECK(netperf_rr_result_block(r).find("16384  87380  4096     1       0.50     123456.79   \n") != std::string::npos);
}

TEST_CASE("netperf RR rate is transactions over elapsed and the seed's RTT is 1e6 over the rate", "[netperf_rr]") {
  CHECK(rr_transaction_rate(56453, 10.0) == Approx(5645.3));
  CHECK(rr_transaction_rate(10, 0.0) == 0.0);
  // seed 002: 177.138 µs at 16 B <=> 5645.3 transactions/s.
  CHECK(rr_round_trip_us(1e6 / 177.138) == Approx(177.138));
  CHECK(rr_round_trip_us(0.0) == 0.0);
}

}  // namespace netperf_rr_logic_test
