// The SuperMicro P4DPR-6GM+ platform entry, its topology, and the busbench workload run on it.
#include "core/registry.h"
#include "core/sim_context.h"
#include "e7500_test_bench.h"
#include "platforms/busbench.h"
#include <catch2/catch.hpp>
#include <sstream>

// This file's own names, apart from the other files of a unity batch.
namespace platform_p4dpr_test {
using namespace nicsim;


TEST_CASE("P4DPR-6GM+ is registered with its parameters - slots and topology", "[platform]") {
  auto* e = Registry<PlatformEntry>::instance().find("supermicro-p4dpr-6gm+");
  REQUIRE(e);
  std::vector<std::string> names;
  for (auto& p : e->params) names.push_back(p.name);
  for (const char* n : {"cpu_mhz", "cpus", "dram_mb"}) CHECK(std::find(names.begin(), names.end(), n) != names.end());
  auto cpu = std::find_if(e->params.begin(), e->params.end(), [](auto& p) { return p.name == "cpu_mhz"; });
  CHECK(std::get<double>(cpu->def) == 2400.0);
  CHECK(*cpu->min == 2000.0);
  CHECK(*cpu->max == 2400.0);
  for (auto& p : e->params) CHECK_FALSE(p.source.empty());
  REQUIRE(e->slots.size() == 3);
  CHECK(e->slots[0].name == "onboard-gbe");
  CHECK(e->slots[0].onboard);
  CHECK(e->slots[0].onboard_devices == std::vector<std::string>{"82544GC"});
  CHECK(e->slots[2].name == "pcix");
  CHECK_FALSE(e->slots[2].onboard);
  std::string d = e->describe(ParamValues(e->params));
  INFO(d);
  CHECK(d.find("segment A: PCI 66 MHz, 64-bit, peak 533 MB/s") != std::string::npos);
  CHECK(d.find("segment B: PCI-X 100 MHz") != std::string::npos);
  CHECK(d.find("HI_C: Hub Interface 2.0") != std::string::npos);
  CHECK(d.find("slot onboard-scsi") != std::string::npos);
  ParamValues noscsi(e->params);
  noscsi.set("onboard_scsi", false);
  // Without the SCSI controller the onboard segment still runs PCI 66: the 82544GC is PCI-only.
  CHECK(e->describe(noscsi).find("segment A: PCI 66 MHz") != std::string::npos);
  CHECK(Registry<DeviceEntry>::instance().find("pci-dma-master"));
  CHECK(Registry<WorkloadEntry>::instance().find("busbench"));
}

TEST_CASE("HostHw of the P4DPR-6GM+: slots - BARs - vectors - memory", "[platform]") {
  auto* e = Registry<PlatformEntry>::instance().find("supermicro-p4dpr-6gm+");
  HostConfig hc;
  hc.name = "alpha";
  hc.platform = e->name;
  hc.params = ParamValues(e->params);
  hc.params.set("dram_mb", int64_t{512});
  auto host = e->build(hc);
  CHECK(host->name() == "alpha");
  CHECK(host->dram_bytes() == 512ull << 20);
  PciDmaMaster m("nic", test::master(64, true, 133));
  auto v = host->attach("pcix", m);
  REQUIRE(v.size() == 1);
  CHECK(v[0] >= 0x31);
  CHECK(m.bar(0) >= 0xF0000000);
  CHECK(m.bar(0) % m.info().bar_size == 0);
  PciDmaMaster m2("nic2", test::master(64, true, 133));
  CHECK_THROWS_WITH(host->attach("pcix", m2), Catch::Contains("taken"));
  CHECK_THROWS_WITH(host->attach("pcx", m2), Catch::Contains("did you mean 'pcix'"));
  auto* intro = dynamic_cast<SlotIntrospection*>(host.get());
  REQUIRE(intro);
  CHECK(intro->device_in("onboard-scsi"));
  CHECK(intro->device_in("onboard-scsi")->info().name == "AIC-7899");
  CHECK(intro->device_in("onboard-gbe") == nullptr);
  const char msg[] = "descriptor ring";
  host->mem_write(0x1000, msg, sizeof msg);
  char back[sizeof msg];
  host->mem_read(0x1000, back, sizeof back);
  CHECK(std::string(back) == msg);
  CHECK(host->params_json()["dram_mb"] == 512);
}

TEST_CASE("busbench on segment B prints DMA and MMIO tables within the physical limits", "[platform][busbench]") {
  auto* e = Registry<PlatformEntry>::instance().find("supermicro-p4dpr-6gm+");
  HostConfig hc;
  hc.name = "alpha";
  hc.params = ParamValues(e->params);
  auto host = e->build(hc);
  ParamValues p(busbench_param_schema());
  p.set("slot", std::string("pcix"));
  p.set("second_slot", std::string("onboard-scsi"));
  p.set("sizes", std::string("64, 1518, 4096"));
  p.set("transfers", int64_t{16});
  p.set("mmio_accesses", int64_t{5});
  std::ostringstream out;
  nlohmann::json res;
  int rc = run_busbench(*host, p, out, res);
  INFO(out.str());
  CHECK(rc == 0);
  CHECK(out.str().find("DMA write to host memory") != std::string::npos);
  CHECK(out.str().find("read 32-bit (CPU stalled)") != std::string::npos);
  auto& bb = res["metrics"]["busbench"];
  REQUIRE(bb["dma"].size() == 6);
  for (auto& r : bb["dma"]) {
    CHECK(r["alone_mb_s"].get<double>() > 0);
    CHECK(r["alone_mb_s"].get<double>() <= 800.0);           // PCI-X 100 peak
    CHECK(r["both"]["m2_mb_s"].get<double>() <= 533.34);     // the SCSI on PCI 66
  }
  double rd = bb["mmio_read"]["mean_ns"].get<double>();
  CHECK(rd >= 600.0);
  CHECK(rd <= 1000.0);
  CHECK(bb["mmio_write_release"]["mean_ns"].get<double>() < rd / 5);
  CHECK(bb["interrupt_ns"].get<double>() > 0);
  CHECK(bb["interrupt_resends_after_eoi"].get<unsigned>() == 0);
}

TEST_CASE("the seed-000 NICs sit in their P4DPR-6GM+ slots and answer CPU MMIO through the chipset", "[platform][integration]") {
  auto* e = Registry<PlatformEntry>::instance().find("supermicro-p4dpr-6gm+");
  auto* gc = Registry<DeviceEntry>::instance().find("82544GC");
  auto* eb = Registry<DeviceEntry>::instance().find("82546EB");
  REQUIRE(gc);
  REQUIRE(eb);
  HostConfig hc;
  hc.name = "alpha";
  hc.params = ParamValues(e->params);
  auto host = e->build(hc);
  auto nic0 = gc->create("alpha_eth0", ParamValues(gc->params));
  auto nic1 = eb->create("alpha_eth1", ParamValues(eb->params));
  auto v0 = host->attach("onboard-gbe", *nic0);
  auto v1 = host->attach("pcix", *nic1);
  CHECK(v0.size() == 1);
  CHECK(v1.size() == 2);  // two functions: INTA# and INTB#
  auto* intro = dynamic_cast<SlotIntrospection*>(host.get());
  CHECK(intro->slot_bus("onboard-gbe").find("PCI 66 MHz") != std::string::npos);
  CHECK(intro->slot_bus("pcix").find("PCI-X 100 MHz") != std::string::npos);
  auto* cpu = new test::TestCpu("cpu");
  cpu->fsb.bind(host->fsb_target());
  host->apic_out().bind(*cpu);
  sc_time r0, r1;
  tlm::tlm_response_status s0, s1;
  uint32_t st0 = 0, st1 = 0;
  cpu->body = [&](test::TestCpu& c) {
    r0 = c.access(false, nic0->bar(0) + 0x8, st0, &s0);  // STATUS
    sc_core::wait(r0 + us(1));
    r1 = c.access(false, nic1->bar(0) + 0x8, st1, &s1);
    sc_core::wait(r1 + us(1));
  };
  sc_core::sc_start();
  CHECK(s0 == tlm::TLM_OK_RESPONSE);
  CHECK(s1 == tlm::TLM_OK_RESPONSE);
  INFO("82544GC STATUS read " << to_ns(r0) << " ns, 82546EB STATUS read " << to_ns(r1) << " ns");
  CHECK(r0 > r1);  // the PCI 66 segment is slower than PCI-X 100
  CHECK(to_us(r1) >= 0.6);
  CHECK(to_us(r1) <= 1.0);
}

}  // namespace platform_p4dpr_test
