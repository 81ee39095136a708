#include "drivers-sim/apps/netperf_rr_logic.h"
#include <cctype>
#include <fmt/format.h>

namespace nicsim {

const char* netperf_rr_test_name(NetperfRrTest t) { return t == NetperfRrTest::TCP_RR ? "TCP_RR" : "UDP_RR"; }

std::optional<NetperfRrTest> netperf_rr_test_of(const std::string& name) {
  if (name == "TCP_RR") return NetperfRrTest::TCP_RR;
  if (name == "UDP_RR") return NetperfRrTest::UDP_RR;
  return std::nullopt;
}

namespace {
/// A size: decimal digits only, 1 .. 2^30.
std::optional<int> size_of(const std::string& s) {
  if (s.empty() || s.size() > 10) return std::nullopt;
  long long v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v < 1 || v > (1LL << 30)) return std::nullopt;
  return static_cast<int>(v);
}
}  // namespace

std::optional<NetperfRrSizes> parse_rr_sizes(const std::string& arg, NetperfRrSizes defaults) {
  // break_args (netsh.c): split at the first comma; without one, both halves are the argument.
  const auto comma = arg.find(',');
  const std::string a1 = comma == std::string::npos ? arg : arg.substr(0, comma);
  const std::string a2 = comma == std::string::npos ? arg : arg.substr(comma + 1);
  if (a1.empty() && a2.empty()) return std::nullopt;
  NetperfRrSizes r = defaults;
  if (!a1.empty()) {
    auto v = size_of(a1);
    if (!v) return std::nullopt;
    r.request_bytes = *v;
  }
  if (!a2.empty()) {
    auto v = size_of(a2);
    if (!v) return std::nullopt;
    r.response_bytes = *v;
  }
  return r;
}

std::string netperf_rr_banner(NetperfRrTest t, const std::string& host, bool nodelay) {
  if (t == NetperfRrTest::UDP_RR) return fmt::format("UDP REQUEST/RESPONSE TEST to {}\n", host);
  return fmt::format("TCP REQUEST/RESPONSE TEST to {}{}\n", host, nodelay ? " : nodelay" : "");
}

std::string netperf_rr_result_block(const NetperfRrResult& r) {
  // tput_title (format_units() is passed but the title has no conversion for it).
  std::string s =
      "Local /Remote\n"
      "Socket Size   Request  Resp.   Elapsed  Trans.\n"
      "Send   Recv   Size     Size    Time     Rate         \n"
      "bytes  Bytes  bytes    bytes   secs.    per sec   \n\n";
  s += fmt::format("{:<6d} {:<6d} {:<6d}   {:<6d}  {:<6.2f}   {:7.2f}   \n", r.local_send_socket_bytes,
                   r.local_recv_socket_bytes, r.request_bytes, r.response_bytes, r.elapsed_s, r.transactions_per_s);
  s += fmt::format("{:<6d} {:<6d}\n", r.remote_send_socket_bytes, r.remote_recv_socket_bytes);
  return s;
}

double rr_transaction_rate(uint64_t transactions, double elapsed_s) {
  return elapsed_s > 0 ? static_cast<double>(transactions) / elapsed_s : 0.0;
}

double rr_round_trip_us(double transactions_per_s) { return transactions_per_s > 0 ? 1e6 / transactions_per_s : 0.0; }

}  // namespace nicsim
