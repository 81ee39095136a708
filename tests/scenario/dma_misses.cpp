// CPU cache misses on DMA'd lines, end to end on seed 000's 82544GC pair (NetPIPE ping-pong): the
// E7500's snoop of the NIC's writes, the kernel's line tracking and the e1000/IP receive paths.
#include "tests/support/run_nicsim.h"
#include <catch2/catch.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

// This file's own names, apart from the other files of a unity batch.
namespace dma_misses_test {
using namespace nicsim::test;


TEST_CASE("dma misses: a ping-pong host misses on 2 sectors per received segment and 1 per sent one",
          "[scenario][seed000][dma]") {
  auto r = run_json("run scenarios/seed000/82544gc-pci66.toml --set workload.trials=3 --set workload.runtm_s=0.05");
  auto& c = r["counters"];
  for (const char* h : {"alpha", "beta"}) {
    const std::string host = h;
    const double misses = c[host + ".cpu0.dma_line_misses"].get<double>();
    const double in = c[host + ".netstat.Tcp.InSegs"].get<double>();
    const double out = c[host + ".netstat.Tcp.OutSegs"].get<double>();
    // Per received segment: its RX descriptor's line (the NIC wrote back status/DD) and the frame's
    // header lines: the frame starts 18 bytes into its 64-byte-aligned buffer (dev_alloc_skb's 16 +
    // e1000's 2 reserved), so its 66 bytes of Ethernet/IP/TCP-with-timestamps headers span two
    // lines, one 128-byte read sector on the Xeon (CpuProfile read_sector_bytes): one demand miss,
    // the second line fetched behind it (adjacent_line_fills). Per sent segment: the TX descriptor
    // line the NIC's DD write-back invalidated, loaded by e1000_clean_tx_irq. The next-descriptor
    // peeks hit (the lines were loaded or stored since). Descriptors that share a line or a sector
    // and are handled in one pass (a few around connection set-up) miss once: the rule is an upper
    // bound that ping-pong reaches within 1 %.
    const double rule = 2 * in + out;
    CHECK(c[host + ".cpu0.adjacent_line_fills"].get<double>() >= in);  // each segment's second header line
    INFO(host << ": " << misses << " misses, " << in << " segments in, " << out << " out, rule " << rule);
    CHECK(misses <= rule);
    CHECK(misses >= 0.99 * rule);
    CHECK(c[host + ".cpu1.dma_line_misses"].get<double>() == 0);  // IRQs and NetPIPE run on CPU0
    // Every miss stalled for a line fill through the MCH and DDR200 models: 160-220 ns each (page
    // hit / empty / miss, tests/unit/chipset_e7500_line_fill.cpp) plus any DMA contention.
    const double stall_ns = c[host + ".cpu0.dma_line_stall_ns"].get<double>();
    CHECK(stall_ns / misses >= 160 - 1);
    CHECK(stall_ns / misses <= 260);
  }
  // The stage shows in the latency breakdown.
  bool found = false;
  for (auto& s : r["explain"]["stages"])
    if (s["stage"] == "cache misses on DMA'd lines") {
      found = true;
      CHECK(s["mean_us"].get<double>() > 0.3);   // at least two of the receiver's three lines
      CHECK(s["mean_us"].get<double>() < 0.75);  // at most its three lines at the page-miss latency + slack
    }
  CHECK(found);
}

}  // namespace dma_misses_test
