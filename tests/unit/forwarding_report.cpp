// The per-forwarded-packet resource table of `nicsim explain --cpu` (core/forwarding_report.h) on
// a hand-written result: the numbers below are the arithmetic of the counters given.
#include "core/forwarding_report.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace forwarding_report_test {
using namespace nicsim;

using json = nlohmann::json;

namespace {

json result_with(double cpu_busy_ps, double seg_busy_ns) {
  json r;
  r["metrics"] = {{"forwarded_kpps", 400.0}};
  r["counters"] = {{"router.netstat.Ip.ForwDatagrams", 1000},
                   {"router.p64h2.segB.busy_ns", seg_busy_ns},
                   {"router.hub.busy_ns", 300000},
                   {"router.dram.busy_ns", 100000},
                   {"router.cpu0.busy_softirq_ns", 1},  // a CPU counter: not a bus
                   {"gen.netstat.Ip.ForwDatagrams", 0}};
  json entries = json::array({
      {{"symbol", "ip_forward"}, {"kind", "cost"}, {"context", "softirq NET_RX"}, {"level", "softirq"}, {"ps", cpu_busy_ps * 0.5}},
      {{"symbol", "cache miss: RX descriptor"}, {"kind", "stall"}, {"context", "softirq NET_RX"}, {"level", "softirq"}, {"ps", cpu_busy_ps * 0.2}},
      {{"symbol", "cache miss: RX frame header"}, {"kind", "stall"}, {"context", "softirq NET_RX"}, {"level", "softirq"}, {"ps", cpu_busy_ps * 0.1}},
      {{"symbol", "MMIO write eth0+0x3818"}, {"kind", "stall"}, {"context", "softirq NET_RX"}, {"level", "softirq"}, {"ps", cpu_busy_ps * 0.2}},
  });
  r["cpu_profile"]["router"]["cpu0"] = {{"mhz", 2000.0},
                                         {"wall_ps", cpu_busy_ps * 2},
                                         {"packets", 2000},
                                         {"levels", {{"hardirq", 0}, {"softirq", cpu_busy_ps}, {"process", 0}, {"idle", cpu_busy_ps}}},
                                         {"contexts", json::array()},
                                         {"entries", entries}};
  r["cpu_profile"]["router"]["cpu1"] = {{"mhz", 2000.0}, {"wall_ps", 10}, {"packets", 0},
                                         {"levels", {{"hardirq", 0}, {"softirq", 0}, {"process", 0}, {"idle", 10}}},
                                         {"contexts", json::array()}, {"entries", json::array()}};
  return r;
}

const ForwardingResource& row(const ForwardingResources& h, const std::string& name) {
  for (const ForwardingResource& r : h.rows)
    if (r.name == name) return r;
  FAIL("no row " << name);
  return h.rows.front();
}

}  // namespace

TEST_CASE("forwarding resources: per forwarded packet, the CPU's busy time splits into work, descriptor and line stalls and MMIO",
          "[report][forwarding]") {
  // 2.5 ms busy over 1000 packets: 2500 ns per packet; the segment 1000 ns.
  const auto rs = forwarding_resources(result_with(2.5e9, 1e6));
  REQUIRE(rs.size() == 1);  // gen forwarded nothing
  const ForwardingResources& h = rs[0];
  CHECK(h.host == "router");
  CHECK(h.forwarded == 1000);
  CHECK(row(h, "cpu0").ns_per_packet == Approx(2500));
  CHECK(row(h, "cpu0").ceiling_kpps == Approx(400));
  CHECK(row(h, "cpu0").utilisation == Approx(1.0));
  CHECK(row(h, "cpu0: instruction work (cost entries)").ns_per_packet == Approx(1250));
  CHECK(row(h, "cpu0: DMA'd-line stalls, descriptors").ns_per_packet == Approx(500));
  CHECK(row(h, "cpu0: DMA'd-line stalls, frame data and other lines").ns_per_packet == Approx(250));
  CHECK(row(h, "cpu0: MMIO (register reads and writes)").ns_per_packet == Approx(500));
  CHECK(row(h, "cpu0: MMIO (register reads and writes)").part);
  // Buses from their busy_ns counters, largest first; an idle CPU gets no row.
  CHECK(row(h, "p64h2.segB").ns_per_packet == Approx(1000));
  CHECK(row(h, "p64h2.segB").ceiling_kpps == Approx(1000));
  CHECK(row(h, "p64h2.segB").utilisation == Approx(0.4));
  CHECK(row(h, "hub").ns_per_packet == Approx(300));
  CHECK(row(h, "dram").ns_per_packet == Approx(100));
  for (const ForwardingResource& r : h.rows) CHECK(r.name != "cpu1");
  CHECK(h.binding == "cpu0");
  const std::string text = format_forwarding_resources(rs);
  CHECK(text.find("lowest ceiling: cpu0") != std::string::npos);
  CHECK(text.find("400.0 kpps measured") != std::string::npos);
}

TEST_CASE("forwarding resources: the bus binds when its ceiling is below the CPU's", "[report][forwarding]") {
  const auto rs = forwarding_resources(result_with(1e9, 3e6));  // CPU 1000 ns, segment 3000 ns per packet
  REQUIRE(rs.size() == 1);
  CHECK(rs[0].binding == "p64h2.segB");
  CHECK(forwarding_resources_json(rs)[0]["lowest_ceiling"] == "p64h2.segB");
}

TEST_CASE("forwarding resources: nothing forwarded - no table", "[report][forwarding]") {
  json r;
  r["counters"] = {{"a.netstat.Ip.ForwDatagrams", 0}};
  CHECK(forwarding_resources(r).empty());
  CHECK(format_forwarding_resources({}).empty());
}

}  // namespace forwarding_report_test
