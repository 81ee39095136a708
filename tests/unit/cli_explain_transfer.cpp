// `nicsim explain --cpu --vs-set`, `--transfer`, `--plots` and `run --trace` end to end: the real
// binary (NICSIM_BIN) on a short seed-000 TCP stream (scenarios/seed000/82546eb-pcix100-stream.toml;
// ctest runs in the source directory).
#include "core/transfer_report.h"
#include "tests/support/run_nicsim.h"
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

// This file's own names, apart from the other files of a unity batch.
namespace cli_explain_transfer_test {
using namespace nicsim;

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

const char* kStream = "scenarios/seed000/82546eb-pcix100-stream.toml";

struct Tmp {
  fs::path path = fs::temp_directory_path() / ("nicsim-cli-xfer-" + std::to_string(::getpid()));
  Tmp() { fs::create_directories(path); }
  ~Tmp() { fs::remove_all(path); }
};

using test::slurp;

test::BinResult run_nicsim(const Tmp& t, const std::vector<std::string>& args) { return test::run_nicsim_bin(t.path, args); }

}  // namespace

TEST_CASE("explain --cpu --vs-set: ITR 8000 vs 0 on the seed-000 stream names the interrupt rate and the CPU it costs",
          "[cli][explain][transfer]") {
  Tmp t;
  auto r = run_nicsim(t, {"explain", "--cpu", kStream, "--set", "workload.duration_s=0.03", "--set",
                      "hosts.*.nics.eth1.driver=e1000-5.0.43-k1", "--set", "hosts.*.nics.eth1.InterruptThrottleRate=8000",
                      "--vs-set", "hosts.*.nics.eth1.InterruptThrottleRate=0", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  const std::string words = j.at("summary");
  CHECK_THAT(words, Catch::Contains("beta: ") && Catch::Contains("eth1 interrupts/s") && Catch::Contains("CPU per packet"));
  bool beta = false;
  for (auto& h : j.at("summary_hosts")) {
    if (h.at("host") != "beta") continue;
    beta = true;
    // Unthrottled: more eth1 interrupts per second and more busy cycles per packet.
    bool eth1 = false;
    for (auto& i : h.at("interrupts_per_s"))
      if (i.at("label") == "eth1") {
        eth1 = true;
        CHECK(i.at("b_per_s").get<double>() > 2 * i.at("a_per_s").get<double>());
      }
    CHECK(eth1);
    CHECK(h.at("b_cycles_per_packet").get<double>() > h.at("a_cycles_per_packet").get<double>());
  }
  CHECK(beta);
  // The transfer side of the same comparison: fewer frames per RX interrupt without the throttle.
  bool batches = false;
  for (auto& l : j.at("transfer_summary")) batches = batches || l.get<std::string>().find("frames per RX interrupt") != std::string::npos;
  CHECK(batches);
}

TEST_CASE("explain --transfer on the seed-000 stream: states sum to each socket's lifetime, pictures drawn",
          "[cli][explain][transfer]") {
  Tmp t;
  const fs::path plots = t.path / "plots";
  auto r = run_nicsim(t, {"explain", "--transfer", kStream, "--set", "workload.duration_s=0.03", "--plots", plots.string(),
                      "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json tr = json::parse(r.out).at("a").at("transfer");
  CHECK(transfer_problems(tr).empty());
  // netperf on alpha writes, netserver on beta reads: one data socket each.
  REQUIRE(tr.at("alpha").at("sockets").size() == 1);
  REQUIRE(tr.at("beta").at("sockets").size() == 1);
  const json& snd = tr["alpha"]["sockets"][0];
  const json& rcv = tr["beta"]["sockets"][0];
  CHECK(snd.at("bytes_written").get<uint64_t>() > 1000000);
  // The run ends when the receiver has read every byte; the last ACKs may still be on the way.
  CHECK(rcv.at("bytes_read") == snd.at("bytes_written"));
  CHECK(snd.at("bytes_acked").get<uint64_t>() <= snd.at("bytes_written").get<uint64_t>());
  CHECK(snd.at("bytes_acked").get<uint64_t>() + 65536 > snd.at("bytes_written").get<uint64_t>());
  // The seed-000 stream's window barely covers a round trip through both ITR gates
  // (docs/tcp-stream-itr-beat.md): the sender spends time blocked on the receive window.
  CHECK(snd["send"].at("rwnd_limited").get<uint64_t>() > 0);
  CHECK(rcv["recv"].at("waiting").get<uint64_t>() + rcv["recv"].at("delack_wait").get<uint64_t>() > 0);
  // ITR 8000/s on the receiver: several frames per RX interrupt.
  CHECK(tr["beta"]["rx_batches"]["beta.eth1"]["per_irq"].at("mean").get<double>() > 2.0);
  for (const char* f : {"throughput.svg", "tseq.svg", "cpu_alpha.cpu0.svg", "cpu_beta.cpu0.svg", "series.json"})
    CHECK(fs::exists(plots / f));

  // Without --transfer a run that traced no messages explains its transfer (text).
  r = run_nicsim(t, {"explain", kStream, "--set", "workload.duration_s=0.01"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("  sender\n") && Catch::Contains("  receiver\n") &&
                        Catch::Contains("beta.eth1: frames per RX interrupt: "));
}

TEST_CASE("run --trace: counter tracks per CPU context and the TCP window", "[cli][transfer]") {
  Tmp t;
  const fs::path trace = t.path / "trace.json";
  auto r = run_nicsim(t, {"run", kStream, "--set", "workload.duration_s=0.01", "--trace", trace.string()});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json j = json::parse(slurp(trace));
  bool cpu = false, cwnd = false;
  for (auto& e : j.at("traceEvents")) {
    if (e.value("ph", "") != "C") continue;
    const std::string n = e.value("name", "");
    cpu = cpu || n == "beta.cpu0 softirq NET_RX %";
    cwnd = cwnd || (n.rfind("alpha tcp ", 0) == 0 && n.find(" snd_cwnd") != std::string::npos);
  }
  CHECK(cpu);
  CHECK(cwnd);
}

TEST_CASE("explain --transfer --vs: bonded balance-rr against one link says in plain words the segments were reordered, "
          "not lost",
          "[cli][explain][transfer]") {
  Tmp t;
  // A short seed-004 pair: NetPIPE 64 KB, one trial of ~10 ms per side.
  const std::vector<std::string> shorten = {"--set", "workload.trials=1", "--set", "workload.runtm_s=0.01",
                                            "--set", "workload.latency_reps=5"};
  std::vector<std::string> args = {"explain", "--transfer", "scenarios/seed004/bonded-rr-64k.toml", "--vs",
                                   "scenarios/seed004/single-64k.toml", "--format", "json"};
  args.insert(args.end(), shorten.begin(), shorten.end());
  auto r = run_nicsim(t, args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const json j = json::parse(r.out);
  std::string words;
  for (auto& l : j.at("summary")) words += l.get<std::string>() + "\n";
  INFO(words);
  // A (bonded): segments out of order at the peer, retransmitted, reported back by D-SACK: reordering.
  CHECK_THAT(words, Catch::Contains("alpha sending: A: ") && Catch::Contains("segments reached the peer out of order") &&
                        Catch::Contains("reported by D-SACK as received twice") &&
                        Catch::Contains(": reordered, not lost") &&
                        Catch::Contains("frames per RX interrupt at the receiver: beta.eth0 "));
  // B (one link): nothing out of order, nothing retransmitted.
  CHECK_THAT(words, Catch::Contains("; B: every segment arrived once and in order: no reordering, no loss"));
  // The numbers behind the words are the run's own events.
  const json& ev = j.at("a").at("transfer").at("alpha").at("sockets")[0].at("events");
  CHECK(ev.at("retrans_segs").get<uint64_t>() > 0);
  CHECK(2 * ev.at("dsacks_received").get<uint64_t>() >= ev.at("retrans_segs").get<uint64_t>());

  // One link against one link with another coalescing setting: nothing is said about reordering,
  // because neither run had any.
  args = {"explain", "--transfer", "scenarios/seed004/single-64k.toml", "--vs-set", "hosts.*.nics.eth0.adaptive-rx=false",
          "--format", "json"};
  args.insert(args.end(), shorten.begin(), shorten.end());
  r = run_nicsim(t, args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  words.clear();
  // Bind the parsed document first: a range-for over json::parse(...).at(...) iterates a
  // temporary destroyed before the loop body (ASan: heap-use-after-free, CI on 514509e).
  const json j2 = json::parse(r.out);
  for (auto& l : j2.at("summary")) words += l.get<std::string>() + "\n";
  INFO(words);
  CHECK(words.find("reorder") == std::string::npos);
  CHECK(words.find("sending: A:") == std::string::npos);
}

}  // namespace cli_explain_transfer_test
