// netperf 2.2 request/response tests (TCP_RR, UDP_RR) as pure logic: the `-r req,resp` argument,
// the banner, netperf's result block, and the transaction arithmetic. No SystemC, no sockets.
//
// Source: netperf 2.2pl2 nettest_bsd.c (HewlettPackard/netperf@7729293): send_tcp_rr /
// send_udp_rr (banner, tput_title, tput_fmt_1_line_1/2, thruput = nummessages / elapsed_time),
// scan_sockets_args (-r via break_args: "one value without a comma sets both", "a leading comma
// sets just the second", "a trailing comma just the first"; -D sets loc_nodelay and rem_nodelay;
// req_size = rsp_size = 1 by default), netsh.c (test_time = 10 s by default);
// research/tg3-bonding-tcp-gmac-formats.md §4 "netperf 2.2pl2".
//
// What one transaction is (send_tcp_rr / recv_tcp_rr): netperf send()s `req` bytes, then recv()s
// until `resp` bytes have arrived; netserver recv()s until `req` bytes have arrived, then send()s
// `resp` bytes. One transaction is in flight at a time (DO_FIRST_BURST is not compiled in by
// default). The test ends when the -l timer (SIGALRM) fires: the transaction it interrupts is not
// counted, and elapsed_time is the timed interval.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace nicsim {

/// The two request/response tests of netperf 2.2's nettest_bsd.c.
enum class NetperfRrTest : uint8_t { TCP_RR, UDP_RR };

/// "TCP_RR" / "UDP_RR" (netperf -t names).
const char* netperf_rr_test_name(NetperfRrTest t);
/// The test named `name` ("TCP_RR", "UDP_RR", exact spelling), or nullopt.
std::optional<NetperfRrTest> netperf_rr_test_of(const std::string& name);

/// Request and response sizes in bytes (netperf req_size, rsp_size; both default to 1).
struct NetperfRrSizes {
  int request_bytes = 1;
  int response_bytes = 1;
};

/// Parse netperf's `-r` argument as scan_sockets_args does with break_args: "64" sets both to 64,
/// "64,1024" sets request 64 and response 1024, ",1024" only the response, "64," only the request
/// (the other keeps `defaults`). Sizes must be integers >= 1 (netperf's convert() also takes K/M
/// suffixes; those are refused here). Returns nullopt on an empty or malformed argument.
std::optional<NetperfRrSizes> parse_rr_sizes(const std::string& arg, NetperfRrSizes defaults = {});

/// The banner line netperf prints before the result block, with its newline:
/// "TCP REQUEST/RESPONSE TEST to <host>" plus " : nodelay" when TCP_NODELAY was requested (-D);
/// UDP_RR: "UDP REQUEST/RESPONSE TEST to <host>" (send_udp_rr has no nodelay suffix, so
/// `nodelay` is ignored).
std::string netperf_rr_banner(NetperfRrTest t, const std::string& host, bool nodelay);

/// What the result block reports (verbosity 1, no CPU measurement).
struct NetperfRrResult {
  int local_send_socket_bytes = 0;   ///< lss_size: netperf's SO_SNDBUF as getsockopt returned it
  int local_recv_socket_bytes = 0;   ///< lsr_size: netperf's SO_RCVBUF
  int remote_send_socket_bytes = 0;  ///< rss_size: netserver's SO_SNDBUF
  int remote_recv_socket_bytes = 0;  ///< rsr_size: netserver's SO_RCVBUF
  int request_bytes = 1;
  int response_bytes = 1;
  double elapsed_s = 0;              ///< elapsed_time (s)
  double transactions_per_s = 0;     ///< thruput = nummessages / elapsed_time (1/s)
};

/// netperf 2.2's tput_title followed by tput_fmt_1_line_1 and tput_fmt_1_line_2, exactly:
/// "Local /Remote\nSocket Size   Request  Resp.   Elapsed  Trans.\n..." then
/// "%-6d %-6d %-6d   %-6d  %-6.2f   %7.2f   \n" (local send, local recv, request, response,
/// elapsed, rate) and "%-6d %-6d\n" (remote send, remote recv). The same block for both tests.
std::string netperf_rr_result_block(const NetperfRrResult& r);

/// Transactions per second from `transactions` completed in `elapsed_s` (s); 0 when elapsed_s <= 0.
double rr_transaction_rate(uint64_t transactions, double elapsed_s);
/// Round-trip time in µs as the seed reports it: 1e6 / rate (one transaction in flight). Returns
/// 0 for a rate <= 0 (no transaction completed).
double rr_round_trip_us(double transactions_per_s);

}  // namespace nicsim
