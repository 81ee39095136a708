// core/transfer_report.h on hand-made result.json `transfer` objects, and cli/transfer_plot.h's
// pictures drawn by gnuplot from a hand-made `series` and parsed back as XML.
#include "cli/sweep_plot.h"
#include "cli/transfer_plot.h"
#include "core/events.h"
#include "core/transfer_report.h"
#include "platforms/fault_timeline.h"
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>

// This file's own names, apart from the other files of a unity batch.
namespace transfer_report_test {
using namespace nicsim;

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

json zero_events() {
  json e = json::object();
  for (const char* k : {"dupacks", "recoveries", "fast_retrans", "timeouts", "retrans_segs", "undo_full", "undo_partial",
                        "undo_dsack", "undo_loss", "undone", "reordering", "dsacks_received", "ofo_segs", "delayed_acks",
                        "backlogged"})
    e[k] = 0;
  return e;
}

/// One host "alpha" with a sender socket of 1 s lifetime: `rwnd_ms` blocked on the receive
/// window, the rest sending; and a NIC whose interrupts carried `frames_per_irq` frames each.
json one_sender(uint64_t rwnd_ms, uint64_t retrans, uint64_t frames_per_irq) {
  const uint64_t ms = 1000000;
  json send = {{"connecting", 0},    {"sending", (1000 - rwnd_ms) * ms}, {"cwnd_limited", 0}, {"rwnd_limited", rwnd_ms * ms},
               {"nagle", 0},         {"sndbuf_limited", 0},              {"recovery", 0},     {"loss", 0},
               {"idle", 0},          {"closed", 0}};
  json recv = {{"connecting", 0}, {"reading", 0}, {"waiting", 0}, {"delack_wait", 0}, {"not_reading", 1000 * ms}, {"closed", 0}};
  json ev = zero_events();
  ev["retrans_segs"] = retrans;
  json sock = {{"socket", "10.0.1.1:32768 > 10.0.1.2:12866"},
               {"lifetime_ns", 1000 * ms},
               {"first_ns", 0},
               {"bytes_written", 100000000},
               {"bytes_read", 0},
               {"bytes_acked", 100000000},
               {"send", send},
               {"recv", recv},
               {"events", ev}};
  json irq = {{"count", 1000}, {"frames", 1000 * frames_per_irq}, {"mean", double(frames_per_irq)}, {"max", frames_per_irq},
              {"histogram", json::array({json::array({frames_per_irq, 1000})})}};
  json none = {{"count", 0}, {"frames", 0}, {"mean", 0.0}, {"max", 0}, {"histogram", json::array()}};
  return {{"alpha", {{"sockets", json::array({sock})}, {"rx_batches", {{"alpha.eth1", {{"per_irq", irq}, {"per_poll", none}}}}}}}};
}

}  // namespace

TEST_CASE("transfer report: tables, sums, and the gap named in plain words", "[transfer]") {
  const json a = one_sender(410, 0, 6), b = one_sender(30, 12, 1);
  CHECK(transfer_problems(a).empty());
  const std::string text = format_transfer(a);
  CHECK_THAT(text, Catch::Contains("rwnd_limited") && Catch::Contains("41.00%") && Catch::Contains("59.00%"));
  CHECK_THAT(text, Catch::Contains("alpha.eth1: frames per RX interrupt: 1000 interrupts, 6000 frames, mean 6.00"));
  CHECK(text.find("not_reading") == std::string::npos);  // a socket that read nothing has no receiver table

  const auto rows = transfer_gap(a, b);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].state == "rwnd_limited");  // |41 - 3| = |59 - 97| = 38: ties keep their order
  CHECK(rows[0].a_pct == Approx(41.0));
  CHECK(rows[0].b_pct == Approx(3.0));
  const auto words = transfer_gap_summary(a, b);
  REQUIRE(words.size() == 2);
  CHECK_THAT(words[0], Catch::StartsWith("alpha transfer: sender: rwnd_limited 41% vs 3%, sending 59% vs 97%"));
  CHECK_THAT(words[0], Catch::Contains("retrans_segs 0 vs 12"));
  CHECK_THAT(words[0], Catch::Contains("alpha.eth1 6.00 vs 1.00 frames per RX interrupt"));
  // B retransmitted 12 segments and no D-SACK said any had arrived twice: loss, not reordering.
  CHECK(words[1] == "alpha sending: A: every segment arrived once and in order: no reordering, no loss; B: 12 segments "
                    "retransmitted (0 fast retransmits, 0 timeouts), 0 reported by D-SACK as received twice; 0 "
                    "recoveries, none undone; in recovery 0.0% of the time: lost (the retransmissions were needed).");
  CHECK(transfer_gap_summary(a, a).empty());  // nothing moved: nothing said

  json bad = a;
  bad["alpha"]["sockets"][0]["send"]["idle"] = 1;  // one nanosecond too many
  bad["alpha"]["rx_batches"]["alpha.eth1"]["per_irq"]["frames"] = 5999;
  const auto p = transfer_problems(bad);
  REQUIRE(p.size() == 2);
  CHECK_THAT(p[0], Catch::Contains("send states sum to 1000000001 ns, lifetime 1000000000 ns"));
  CHECK_THAT(p[1], Catch::Contains("alpha.eth1 per_irq"));
}

TEST_CASE("transfer plots: throughput, time-sequence and CPU pictures are SVG that parses", "[transfer]") {
  REQUIRE(find_in_path("gnuplot"));  // Debian package gnuplot-nox (docs/developers.md, Dependencies)
  REQUIRE(find_in_path("python3"));
  // 10 intervals of 1 ms; a stream of 1448-byte segments with one retransmission.
  json s = {{"interval_s", 1e-3}};
  json t = json::array(), rd = json::array(), ack = json::array(), busy = json::array(), idle = json::array();
  for (int i = 0; i <= 10; ++i) {
    t.push_back(i * 1e-3);
    rd.push_back(uint64_t(i) * 100000);
    ack.push_back(uint64_t(i) * 100000);
    busy.push_back(i ? 0.25 : 0.0);
    idle.push_back(i ? 0.75 : 0.0);
  }
  s["t_s"] = t;
  s["cpu"] = {{"beta.cpu0", {{"softirq NET_RX", busy}, {"idle", idle}}}};
  s["sockets"] = {{"beta 10.0.1.2:12866 > 10.0.1.1:32768", {{"bytes_read", rd}, {"bytes_acked", json::array()}}},
                  {"alpha 10.0.1.1:32768 > 10.0.1.2:12866", {{"bytes_read", json::array()}, {"bytes_acked", ack}}}};
  json ev = json::array();
  for (uint32_t k = 0; k < 50; ++k) {
    ev.push_back({uint64_t(k) * 100000, "tx", k * 1448, (k + 1) * 1448});
    ev.push_back({uint64_t(k) * 100000 + 50000, "ack", k * 1448, k * 1448 + 65535});
  }
  ev.push_back({3000000, "retrans", 1448 * 10, 1448 * 11});
  ev.push_back({3000000, "sack", 1448 * 12, 1448 * 20});
  s["tcp"] = {{"alpha 10.0.1.1:32768 > 10.0.1.2:12866", ev}};

  const fs::path dir = fs::temp_directory_path() / ("nicsim-transfer-plot-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::vector<std::string> msgs;
  const auto svgs = write_transfer_plots(dir, s, &msgs);
  INFO((msgs.empty() ? std::string() : msgs[0]));
  CHECK(msgs.empty());
  REQUIRE(svgs.size() == 3);
  for (const char* stem : {"throughput", "tseq", "cpu_beta.cpu0"}) {
    const fs::path svg = dir / (std::string(stem) + ".svg");
    REQUIRE(fs::exists(svg));
    CHECK(fs::exists(dir / (std::string(stem) + ".gp")));  // the script is kept for restyling
    const std::string cmd = "python3 -c \"import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); "
                            "sys.exit(0 if r.tag.endswith('svg') else 3)\" '" + svg.string() + "'";
    CHECK(std::system(cmd.c_str()) == 0);
  }
  fs::remove_all(dir);
  // Nothing to draw: no pictures, and a message saying so.
  msgs.clear();
  CHECK(write_transfer_plots(dir, json{{"t_s", json::array()}}, &msgs).empty());
  CHECK_FALSE(msgs.empty());
  fs::remove_all(dir);
}

TEST_CASE("transfer report: reordering told apart from loss in plain words, from the events", "[transfer]") {
  // A: alpha sends to beta over two NICs; beta saw 500 segments out of order, alpha fast-retransmitted
  // 100, D-SACK reported 95 of them as received twice and 30 recoveries were undone.
  json a = one_sender(0, 100, 4);
  json& ev = a["alpha"]["sockets"][0]["events"];
  ev["fast_retrans"] = 100;
  ev["dsacks_received"] = 95;
  ev["recoveries"] = 40;
  ev["undo_dsack"] = 30;
  a["alpha"]["sockets"][0]["send"]["sending"] = 700000000;
  a["alpha"]["sockets"][0]["send"]["recovery"] = 300000000;
  json peer = a["alpha"];
  peer["sockets"][0]["bytes_written"] = 0;
  peer["sockets"][0]["events"] = zero_events();
  peer["sockets"][0]["events"]["ofo_segs"] = 500;
  peer["rx_batches"] = {{"beta.eth0", a["alpha"]["rx_batches"]["alpha.eth1"]}, {"beta.eth1", a["alpha"]["rx_batches"]["alpha.eth1"]}};
  a["beta"] = peer;
  const json b = one_sender(0, 0, 1);
  const auto words = transfer_gap_summary(a, b);
  REQUIRE(words.size() == 2);
  CHECK(words[1] == "alpha sending: A: 500 segments reached the peer out of order; 100 segments retransmitted (100 fast "
                    "retransmits, 0 timeouts), 95 reported by D-SACK as received twice; 40 recoveries, 30 undo events "
                    "(TCPFullUndo 0, TCPPartialUndo 0, TCPDSACKUndo 30, TCPLossUndo 0); in recovery 30.0% of the time: "
                    "reordered, not lost (frames per RX interrupt at the receiver: beta.eth0 4.0, beta.eth1 4.0); B: every segment arrived once and in order: no reordering, no loss.");
  // The same retransmissions without D-SACKs for them: the retransmissions were needed, so loss.
  ev["dsacks_received"] = 10;
  CHECK_THAT(transfer_gap_summary(a, b)[1], Catch::Contains("10 reported by D-SACK as received twice") &&
                                                Catch::Contains(": lost (the retransmissions were needed)"));
  // A timeout is loss even when D-SACKs came back.
  ev["dsacks_received"] = 95;
  ev["timeouts"] = 1;
  CHECK_THAT(transfer_gap_summary(a, b)[1], Catch::Contains(": lost (the retransmissions were needed)"));
  // Bug (the seed 004 bonded run read "1009 of 996 recoveries undone"): one recovery can be undone in
  // part and then in full, so undo events can outnumber recoveries; they are counted as events by
  // their TcpExt names, never as a share of the recoveries.
  ev["timeouts"] = 0;
  ev["undo_partial"] = 25;
  ev["undo_full"] = 20;
  const std::string w = transfer_gap_summary(a, b)[1];
  CHECK_THAT(w, Catch::Contains("; 40 recoveries, 75 undo events (TCPFullUndo 20, TCPPartialUndo 25, TCPDSACKUndo 30, "
                                "TCPLossUndo 0)"));
  CHECK(w.find("recoveries undone") == std::string::npos);
}

TEST_CASE("transfer report: each retransmission timeout named with its RTO, backoff and the fault it waited through",
          "[transfer][faults]") {
  // The event log as InetHost writes it for a socket whose path died at 0.300 s and came back
  // after the replug at 1.300 s: timeouts 210, 420, 840 ms apart (2.4's doubling from 210 ms).
  Scenario sc;
  sc.links.resize(1);
  FaultConfig pull, replug;
  pull.type = "cable_pull";
  pull.at_s = 0.3;
  replug.type = "cable_replug";
  replug.at_s = 1.3;
  sc.faults = {pull, replug};
  EventLog log;
  log.note(ms(508), "alpha.tcp0", "TCP retransmission timeout", "backoff 1, next RTO 420 ms");
  log.note(ms(928), "alpha.tcp0", "TCP retransmission timeout", "backoff 2, next RTO 840 ms");
  log.note(ms(1768), "alpha.tcp0", "TCP retransmission timeout", "backoff 3, next RTO 1680 ms");
  log.note(ms(1769), "alpha.tcp0", "TCP new data acked", "first ACK of new data after 3 timeout(s)");
  log.note(ms(700), "alpha.tcp1", "TCP retransmission timeout", "backoff 1, next RTO 420 ms");  // another socket
  json t = one_sender(0, 3, 1);
  t["alpha"]["sockets"][0]["id"] = 0;
  attach_tcp_timeouts(t, log, sc);
  const json& sk = t["alpha"]["sockets"][0];
  REQUIRE(sk["timeouts"].size() == 3);
  CHECK(sk["timeouts"][0]["rto_ms"] == 210.0);
  CHECK(sk["timeouts"][1]["rto_ms"] == 420.0);
  CHECK(sk["timeouts"][2]["rto_ms"] == 840.0);
  CHECK(sk["timeouts"][2]["backoff"] == 3);
  CHECK(sk["timeouts"][0]["faults"].size() == 1);  // the pull at 0.300 s, within 0.298 .. 0.508 s
  CHECK(sk["timeouts"][2]["faults"].size() == 2);  // still pulled, and the replug fell in its wait
  CHECK(sk["resumed"][0]["after_timeouts"] == 3);
  const std::string text = format_transfer(t);
  CHECK_THAT(text, Catch::Contains("    0.508 s  RTO 210 ms expired (armed 0.298 s), backoff 1, next RTO 420 ms; "
                                   "waited through fault 0 cable_pull links.0 at 0.300 s\n"));
  CHECK_THAT(text, Catch::Contains("    1.768 s  RTO 840 ms expired (armed 0.928 s), backoff 3, next RTO 1680 ms; "
                                   "waited through fault 0 cable_pull links.0 at 0.300 s, fault 1 cable_replug links.0 "
                                   "at 1.300 s\n"));
  CHECK_THAT(text, Catch::Contains("    1.769 s  new data acknowledged again, after 3 timeout(s)\n"));
  // Without timeouts nothing is added.
  CHECK(format_transfer(one_sender(0, 0, 1)).find("retransmission timeouts") == std::string::npos);
}

TEST_CASE("throughput plot marks: each fault and the layers' events, TCP's and the link's own left out, one per instant",
          "[transfer][faults]") {
  const json faults = json::parse(R"([{"fault": 0, "type": "cable_pull", "at_s": 0.3, "link": "links.0", "events": [
      {"t_s": 0.3, "after_ms": 0.0, "where": "links.0", "what": "cable pulled"},
      {"t_s": 0.508, "after_ms": 208.0, "where": "alpha.tcp0", "what": "TCP retransmission timeout"},
      {"t_s": 0.65, "after_ms": 350.0, "where": "beta.eth1", "what": "PHY link down"},
      {"t_s": 0.707, "after_ms": 407.0, "where": "beta.bond0", "what": "slave link down"},
      {"t_s": 0.707, "after_ms": 407.0, "where": "beta.bond0", "what": "active slave changed"}]}])");
  const json m = fault_marks_json(faults);
  REQUIRE(m.size() == 3);
  CHECK(m[0]["label"] == "fault 0: cable_pull links.0");
  CHECK(m[0]["kind"] == "fault");
  CHECK(m[1]["label"] == "beta.eth1 PHY link down");
  CHECK(m[2]["label"] == "beta.bond0 slave link down; beta.bond0 active slave changed");
  // Drawn as labelled lines on the throughput plot.
  json series = {{"t_s", {0.0, 0.5, 1.0}},
                 {"sockets", {{"beta 10.0.1.2:1 > 10.0.1.1:2", {{"bytes_read", {0, 1000000, 2000000}}}}}},
                 {"marks", m}};
  const auto plots = transfer_plot_scripts(series);
  REQUIRE(!plots.empty());
  CHECK(plots[0].stem == "throughput");
  CHECK_THAT(plots[0].script, Catch::Contains("set arrow 1 from 300.000000, graph 0 to 300.000000, graph 1 nohead lw 2"));
  CHECK_THAT(plots[0].script, Catch::Contains("\"0.707 s beta.bond0 slave link down, active slave changed\""));
}

}  // namespace transfer_report_test
