// DDR200 dual-channel lock-step DRAM: page-state latency, shared bandwidth, sparse backing store.
#include "models/mem/dram.h"
#include "core/sim_context.h"
#include <cmath>
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

// This file's own names, apart from the other files of a unity batch.
namespace bus_dram_test {
using namespace nicsim;


TEST_CASE("DRAM latency follows tRP/tRCD/tCL + MCH read delay - one line = 2 clocks", "[mem]") {
  DramParams p;
  Dram d("dram", p);
  const sc_time clk = ns(1000.0 / p.clock_mhz);
  const double line = 2;  // 64 B burst of 4 on two lock-stepped 64-bit channels [S6]
  // Closed bank: activate + CAS.
  auto t1 = d.schedule(false, 0x10000, 64, SC_ZERO_TIME);
  CHECK(t1.page == Dram::Page::Empty);
  CHECK(t1.last == clk * (p.tRCD_clocks + p.tCL_clocks + line + p.tRD_clocks));
  // Same row, later: page hit.
  auto t2 = d.schedule(false, 0x10040, 64, us(1));
  CHECK(t2.page == Dram::Page::Hit);
  CHECK(t2.last - us(1) == clk * (p.tCL_clocks + line + p.tRD_clocks));
  // Another row in the same bank: precharge first.
  auto t3 = d.schedule(false, 0x10000 + uint64_t(p.page_bytes) * p.banks, 64, us(2));
  CHECK(t3.page == Dram::Page::Miss);
  CHECK(t3.last - us(2) == clk * (p.tRP_clocks + p.tRCD_clocks + p.tCL_clocks + line + p.tRD_clocks));
  // A 4 KB read streams: first line after one line time, last after 64 lines.
  auto t4 = d.schedule(false, 0x10000 + uint64_t(p.page_bytes) * p.banks, 4096, us(3));
  CHECK(t4.last - t4.first == clk * (4096 / 64 - 1) * line);
}

TEST_CASE("DRAM bandwidth is shared and never exceeds 3.2 GB/s", "[mem]") {
  Dram d("dram");
  CHECK(d.peak_mb_per_s() == Approx(3200.0));
  sc_time last;
  const unsigned n = 2000;
  for (unsigned i = 0; i < n; ++i) {
    // Two requesters (say CPU and DMA) asking at the same instants, alternating regions.
    uint64_t a = (i % 2 ? 0x100000 : 0x800000) + (i / 2) * 4096;
    last = std::max(last, d.schedule(i % 3 == 0, a, 4096, SC_ZERO_TIME).last);
  }
  double mbs = double(n) * 4096 / last.to_seconds() / 1e6;
  CHECK(mbs <= d.peak_mb_per_s());
  CHECK(d.data_bus().busy_total() == ns(1000.0 / 100.0) * (double(n) * 4096 / 32));  // 32 B per DRAM clock
  // The counter result.json carries: the data bus's busy time.
  CHECK(sim().counters.at("dram.busy_ns") == uint64_t(std::llround(to_ns(d.data_bus().busy_total()))));
}

TEST_CASE("DRAM backing store holds real bytes sparsely", "[mem]") {
  DramParams p;
  p.size_bytes = 1ull << 30;
  Dram d("dram", p);
  std::vector<uint8_t> in(10000), out(10000, 0xAA);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<uint8_t>(i * 7);
  d.write(0x3FF0F00, in.data(), in.size());  // spans pages
  d.read(0x3FF0F00, out.data(), out.size());
  CHECK(in == out);
  uint8_t z[16];
  std::memset(z, 0xAA, sizeof z);
  d.read(0x20000000, z, sizeof z);
  for (auto b : z) CHECK(b == 0);
  CHECK_THROWS_AS(d.read(p.size_bytes - 4, z, 8), std::out_of_range);
  CHECK_THROWS_AS(d.write(p.size_bytes, z, 1), std::out_of_range);
}

}  // namespace bus_dram_test
