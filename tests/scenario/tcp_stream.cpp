// netperf TCP_STREAM on the seed-000 82546EB testbed through the real binary: a short bulk
// transfer must run near gigabit line rate and never above the wire's goodput ceiling.
#include "tests/support/run_nicsim.h"
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

// This file's own names, apart from the other files of a unity batch.
namespace tcp_stream_test {
using namespace nicsim::test;


TEST_CASE("tcp_stream: 82546EB PCI-X bulk transfer runs near GbE line rate", "[scenario][tcp_stream]") {
  // Goodput ceiling of 1000BASE-T with MTU 1500 and TCP timestamps: per full segment the MSS
  // (1500 - 20 IP - 20 TCP - 12 timestamp option = 1448 B) of a wire slot of 1448 + 66 headers
  // (14 Ethernet + 20 IP + 32 TCP) + 4 FCS + 8 preamble/SFD + 12 inter-frame gap = 1538 B.
  // research/e7500-p64h2-pcix.md §6: 941.5 Mb/s.
  const double mss = 1500 - 20 - 20 - 12;
  const double slot = mss + 14 + 20 + 32 + 4 + 8 + 12;
  const double ceiling_mbps = 1000.0 * mss / slot;
  REQUIRE(ceiling_mbps == Approx(941.5).margin(0.05));

  std::string cmd = std::string("'") + NICSIM_BIN + "' run scenarios/seed000/82546eb-pcix100-stream.toml"
                    " --set workload.duration_s=0.2 --format json 2>/dev/null";
  auto j = nlohmann::json::parse(run_stdout(cmd));
  REQUIRE(j["status"] == "ok");
  const auto& m = j["metrics"];
  const double mbps = m["throughput_mbps"].get<double>();
  INFO("throughput " << mbps << " Mb/s, tx CPU " << m["cpu_util_tx_pct"] << " %, rx CPU " << m["cpu_util_rx_pct"]
                     << " %, rx interrupts/s " << m["interrupts_per_s_rx"]);
  CHECK(mbps > 850.0);
  CHECK(mbps <= ceiling_mbps);
  // netperf's elapsed time covers the timed send loop plus the drain of what was still queued.
  CHECK(m["elapsed_s"].get<double>() >= 0.2);
  // Each NIC's crystal offset is drawn from the run seed (clock_ppm_spread 15 ppm around 0), one
  // draw per NIC, inside IEEE 802.3's ±100 ppm; result.json reports what was drawn.
  const double ppm_a = j["hardware"]["alpha"]["nics"]["eth1"]["clock_ppm"].get<double>();
  const double ppm_b = j["hardware"]["beta"]["nics"]["eth1"]["clock_ppm"].get<double>();
  CHECK(std::abs(ppm_a) <= 100.0);
  CHECK(std::abs(ppm_b) <= 100.0);
  CHECK(ppm_a != ppm_b);
  // The result block netperf 2.2 prints (research/tg3-bonding-tcp-gmac-formats.md §4).
  const std::string out = j["output"];
  CHECK(out.find("TCP STREAM TEST to ") == 0);
  CHECK(out.find("bytes  bytes   bytes    secs.    10^6bits/sec\n\n 87380  16384  16384    ") != std::string::npos);
}

namespace {

/// `x` with 17 significant digits (std::to_string keeps only 6 decimals).
std::string fmt_g(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

/// The tcp_stream scenario with both NICs' crystals at fixed offsets (no seeded spread), for
/// `duration_s` simulated seconds with interim bins of `bin_s`; returns metrics.interim_mbps.
std::vector<double> interim_series(double alpha_ppm, double beta_ppm, double duration_s, double bin_s) {
  std::string cmd = std::string("'") + NICSIM_BIN + "' run scenarios/seed000/82546eb-pcix100-stream.toml" +
                    " --set 'hosts.*.nics.eth1.clock_ppm_spread=0'" +
                    " --set hosts.alpha.nics.eth1.clock_ppm=" + std::to_string(alpha_ppm) +
                    " --set hosts.beta.nics.eth1.clock_ppm=" + std::to_string(beta_ppm) +
                    " --set workload.duration_s=" + fmt_g(duration_s) +
                    " --set workload.interim_interval_s=" + fmt_g(bin_s) + " --format json 2>/dev/null";
  auto j = nlohmann::json::parse(run_stdout(cmd));
  REQUIRE(j["status"] == "ok");
  // result.json reports the crystal offsets the NICs ran at: exactly the set ones without a spread.
  CHECK(j["hardware"]["alpha"]["nics"]["eth1"]["clock_ppm"].get<double>() == Approx(alpha_ppm));
  CHECK(j["hardware"]["beta"]["nics"]["eth1"]["clock_ppm"].get<double>() == Approx(beta_ppm));
  const auto& m = j["metrics"];
  // The series accounts for every byte read: sum(rate x width) over the bins = bytes x 8.
  auto v = m["interim_mbps"].get<std::vector<double>>();
  REQUIRE(!v.empty());
  const double elapsed = m["elapsed_s"].get<double>();
  const double w = m["interim_interval_s"].get<double>();
  REQUIRE(w == Approx(bin_s).epsilon(1e-6));
  double bits = 0;
  for (size_t i = 0; i < v.size(); ++i) bits += v[i] * 1e6 * (i + 1 == v.size() ? elapsed - static_cast<double>(i) * w : w);
  CHECK(bits == Approx(m["bytes"].get<double>() * 8.0).epsilon(1e-9));
  return v;
}

// The receiver reads what has arrived, so a bin's count can be off by the bytes that sat unread at
// each of its two edges; unread data never exceeds the window the receiver can offer, tcp_rmem[1]
// minus its 1/2^tcp_adv_win_scale overhead share: 87380 - 87380/4 = 65535 B (tcp_params.h).
double read_edge_error_mbps(double bin_s) { return 2 * 65535.0 * 8 / 1e6 / bin_s; }

/// 4.4.12-k1 writes ITR = 10^9 / (8000 x 256) = 488 (e1000_configure_rx); one ITR unit is 256 ns
/// of the NIC's clock (SDM §13.4.18): the minimum interval between two interrupts, in seconds.
constexpr double kItrIntervalS = 488 * 256e-9;

}  // namespace

TEST_CASE("tcp_stream: equal NIC crystals give a stationary throughput", "[scenario][tcp_stream][itr_beat]") {
  // Both NICs' interrupt throttles (ITR 8000/s) tick from crystals at the same frequency: their
  // relative phase never changes, so neither does the rate. Bins 1..n-2 (bin 0 holds connection set-up
  // and slow start; the last one the drain) differ by no more than the read-edge error of two bins.
  const double bin_s = 0.1;
  auto v = interim_series(0, 0, 0.6, bin_s);
  REQUIRE(v.size() == 6);
  auto [lo, hi] = std::minmax_element(v.begin() + 1, v.end() - 1);
  INFO("interim Mb/s: " << nlohmann::json(v).dump());
  CHECK(*hi - *lo <= 2 * read_edge_error_mbps(bin_s));
}

TEST_CASE("tcp_stream: crystals 200 ppm apart make the throughput repeat with the ITR beat period",
          "[scenario][tcp_stream][itr_beat]") {
  // Sender +100 ppm, receiver -100 ppm (IEEE 802.3 limits). Each NIC's ITR interval is
  // kItrIntervalS / (1 + ppm 1e-6); the two interrupt trains slide past each other by one whole
  // interval every T = 1 / |f_alpha - f_beta| = kItrIntervalS / 200e-6 = 0.62464 s. The transfer is
  // window-limited (a 24-segment receive window of ~295 us at line rate covers little more than two
  // ITR intervals), so its rate depends on that phase: the interim series must repeat every T, and
  // T must be the lag at which it repeats best. docs/tcp-stream-itr-beat.md.
  const double period_s = 1.0 / std::abs((1 + 100e-6) / kItrIntervalS - (1 - 100e-6) / kItrIntervalS);
  REQUIRE(period_s == Approx(0.62464).epsilon(1e-6));
  const int bins_per_period = 10;
  const double bin_s = period_s / bins_per_period;
  auto v = interim_series(100, -100, 2.1 * period_s, bin_s);
  INFO("interim Mb/s: " << nlohmann::json(v).dump());
  REQUIRE(v.size() >= 2 * bins_per_period);
  // Bins 1 .. n-2 (without set-up and drain).
  const std::vector<double> x(v.begin() + 1, v.end() - 1);
  // Not stationary: the swing exceeds what read timing alone can produce in a constant rate.
  auto [lo, hi] = std::minmax_element(x.begin(), x.end());
  CHECK(*hi - *lo > 2 * read_edge_error_mbps(bin_s));
  // Mean |x[i] - x[i+lag]| for lags from half a period to 1.3 periods: smallest at one period.
  auto mismatch = [&](size_t lag) {
    double s = 0;
    for (size_t i = 0; i + lag < x.size(); ++i) s += std::abs(x[i] - x[i + lag]);
    return s / static_cast<double>(x.size() - lag);
  };
  const double at_period = mismatch(bins_per_period);
  for (size_t lag = bins_per_period / 2; lag <= bins_per_period * 13 / 10; ++lag) {
    if (lag == static_cast<size_t>(bins_per_period)) continue;
    INFO("lag " << lag << " bins: mismatch " << mismatch(lag) << " Mb/s vs " << at_period << " at one period");
    CHECK(at_period < mismatch(lag));
  }
}

}  // namespace tcp_stream_test
