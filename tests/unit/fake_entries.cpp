// Test-only registry entries; see fake_entries.h. Never part of the nicsim binary.
#include "tests/unit/fake_entries.h"
#include "core/sim_context.h"
#include <stdexcept>

namespace nicsim::testing {

std::vector<std::string>& attach_log() {
  static std::vector<std::string> log;
  return log;
}

std::vector<std::string>& destroy_log() {
  static std::vector<std::string> log;
  return log;
}

namespace {

/// A host with the sockets a platform must expose, and slots that just record what was plugged.
struct FakeHost : sc_core::sc_module, HostHw {
  tlm::tlm_target_socket<> fsb{"fsb"};
  sc_core::sc_port<apic_msg_if> apic{"apic"};
  struct NoEoi : eoi_if {
    void eoi(unsigned, const sc_core::sc_time&) override {}
  } eoi_sink;
  std::string name_;
  std::vector<std::string> used;
  int64_t cpu_mhz;

  FakeHost(sc_core::sc_module_name nm, const HostConfig& hc)
      : sc_core::sc_module(nm), name_(hc.name), cpu_mhz(hc.params.i("cpu_mhz")) {}
  ~FakeHost() override { destroy_log().push_back("host:" + name_); }
  const std::string& name() const override { return name_; }
  std::vector<unsigned> attach(const std::string& slot, PciDevice& dev) override {
    for (auto& u : used)
      if (u == slot) throw std::invalid_argument("slot " + slot + " is taken");
    used.push_back(slot);
    attach_log().push_back(name_ + ":" + slot + ":" + dev.info().name);
    std::vector<unsigned> v;
    for (unsigned f = 0; f < dev.info().functions; ++f) v.push_back(0x30 + 8 * static_cast<unsigned>(used.size()) + f);
    return v;
  }
  tlm::tlm_target_socket<>& fsb_target() override { return fsb; }
  sc_core::sc_port<apic_msg_if>& apic_out() override { return apic; }
  eoi_if& eoi_in() override { return eoi_sink; }
  void mem_write(uint64_t, const void*, size_t) override {}
  void mem_read(uint64_t, void*, size_t) const override {}
  uint64_t dram_bytes() const override { return 1u << 30; }
  nlohmann::json params_json() const override { return {{"cpu_mhz", cpu_mhz}}; }
};

/// A NIC with `ports` MAC ports named "<inst>.port<i>".
struct FakeNic : sc_core::sc_module, PciDevice {
  struct Port : EthPort {
    std::string n;
    EthLinkEnd* end = nullptr;
    void attach_link(EthLinkEnd* e) override { end = e; }
    void frame_received(const EthFrame&) override {}
    std::string port_name() const override { return n; }
  };
  PciDeviceInfo info_;
  tlm::tlm_target_socket<> target{"pci_target"};
  tlm::tlm_initiator_socket<> dma{"dma_initiator"};
  sc_core::sc_port<irq_if> irq0{"irq0"}, irq1{"irq1"};
  std::vector<Port> ports;
  uint64_t bars[2] = {0, 0};

  FakeNic(sc_core::sc_module_name nm, const std::string& inst, PciDeviceInfo info, unsigned nports)
      : sc_core::sc_module(nm), info_(std::move(info)), ports(nports) {
    for (unsigned i = 0; i < nports; ++i) ports[i].n = inst + ".port" + std::to_string(i);
  }
  ~FakeNic() override { destroy_log().push_back("nic:" + std::string(basename())); }
  const PciDeviceInfo& info() const override { return info_; }
  tlm::tlm_target_socket<>& pci_target() override { return target; }
  tlm::tlm_initiator_socket<>& dma_initiator() override { return dma; }
  sc_core::sc_port<irq_if>& irq_out(unsigned fn) override { return fn ? irq1 : irq0; }
  void set_bar(unsigned fn, uint64_t base) override { bars[fn & 1] = base; }
  uint64_t bar(unsigned fn) const override { return bars[fn & 1]; }
  unsigned eth_ports() const override { return static_cast<unsigned>(ports.size()); }
  EthPort* eth_port(unsigned i) override { return i < ports.size() ? &ports[i] : nullptr; }
};

PciDeviceInfo info(const char* name, unsigned width, unsigned functions) {
  PciDeviceInfo i;
  i.name = name;
  i.width_bits = width;
  i.pcix_capable = width == 64;
  i.max_mhz = width == 64 ? 133 : 66;
  i.functions = functions;
  return i;
}

DeviceEntry device(const char* name, unsigned width, unsigned ports, bool onboard_only = false, bool broken = false) {
  DeviceEntry d;
  d.name = name;
  d.summary = "test device";
  d.params = {real_param("clock_ppm", 0.0, -100.0, 100.0, "ppm", "reference clock offset", "IEEE 802.3 ±100 ppm")};
  d.info = info(name, width, ports);
  d.ports = ports;
  d.onboard_only = onboard_only;
  d.create = [name, width, ports, broken](const std::string& inst, const ParamValues&) -> std::unique_ptr<PciDevice> {
    if (broken) throw std::runtime_error("boom");
    return std::make_unique<FakeNic>(inst.c_str(), inst, info(name, width, ports), ports);
  };
  return d;
}

SlotSpec slot(const char* name, bool onboard = false, std::vector<std::string> onboard_devices = {}) {
  SlotSpec s;
  s.name = name;
  s.segment = "test segment";
  s.description = "test slot";
  s.onboard = onboard;
  s.onboard_devices = std::move(onboard_devices);
  return s;
}

PlatformEntry platform() {
  PlatformEntry p;
  p.name = "test-p4dpr-6gm+";
  p.summary = "test board";
  p.params = {int_param("cpu_mhz", 2400, 100, 4000, "MHz", "CPU core clock"),
              int_param("memory_mb", 1024, 64, 4096, "MiB", "DRAM size")};
  SlotSpec pcix = slot("pcix");
  pcix.refuse = [](const PciDeviceInfo& d) { return d.width_bits == 32 ? std::string("test: 64-bit-only slot") : ""; };
  p.slots = {slot("lan", true, {"test-lom"}), slot("pci66"), pcix};
  p.build = [](const HostConfig& hc) -> std::unique_ptr<HostHw> { return std::make_unique<FakeHost>(hc.name.c_str(), hc); };
  p.describe = [](const ParamValues& v) { return "test board at " + std::to_string(v.i("cpu_mhz")) + " MHz\n"; };
  return p;
}

/// A String parameter naming a NIC ("host.nic"), checked by the loader.
ParamSpec endpoint_param(const char* name, const char* doc) {
  ParamSpec p = string_param(name, "", {}, doc);
  p.unit = kUnitNicEndpoint;
  return p;
}

Registrar<PlatformEntry> reg_platform{platform()};
Registrar<DeviceEntry> reg_nic{device("test-nic", 64, 1)};
Registrar<DeviceEntry> reg_dual{device("test-dual", 64, 2)};
Registrar<DeviceEntry> reg_nic32{device("test-nic32", 32, 1)};
Registrar<DeviceEntry> reg_lom{device("test-lom", 32, 1, true)};
Registrar<DeviceEntry> reg_broken{device("test-broken", 64, 1, false, true)};

Registrar<DriverEntry> reg_drv{DriverEntry{
    "test-drv", "test driver",
    {int_param("RxIntDelay", 0, 0, 65535, "1.024 µs units", "receive interrupt delay"),
     int_param("InterruptThrottleRate", 8000, 0, 100000, "interrupts/s", "ITR"),
     string_param("FlowControl", "full", {"none", "rx", "tx", "full"}, "802.3x flow control")},
    {"test-nic", "test-dual", "test-nic32", "test-lom", "test-broken"}, {}}};
Registrar<DriverEntry> reg_drv_other{DriverEntry{"test-drv-other", "test driver", {}, {"test-other"}, {}}};

Registrar<LinkEntry> reg_link{LinkEntry{
    "test-cable", "test cable",
    [](const std::string& name, const LinkConfig& cfg, EthPort& a, EthPort& b) -> std::shared_ptr<sc_core::sc_object> {
      return std::make_shared<FakeLink>(name, cfg, a, b);
    },
    {real_param("skew_ns", 0.0, 0.0, 100.0, "ns", "pair skew")}}};

Registrar<WorkloadEntry> reg_workload{WorkloadEntry{
    "test-pingpong", "test workload",
    {int_param("upper", 1024, 1, 8388608, "bytes", "largest message"),
     endpoint_param("transmitter", "sending NIC"), endpoint_param("receiver", "receiving NIC"),
     bool_param("tcp", true, "use TCP")},
    [](Testbed& tb, std::ostream& out, nlohmann::json& results) {
      out << "test-pingpong on " << tb.hosts().size() << " hosts, upper " << tb.scenario().workload.params.i("upper")
          << "\n";
      results["metrics"]["ran"] = true;
      ++sim().counters.at("test.runs");
      return 0;
    }}};
Registrar<WorkloadEntry> reg_workload_fail{WorkloadEntry{
    "test-fail", "test workload whose run fails", {}, [](Testbed&, std::ostream& out, nlohmann::json&) {
      out << "about to fail\n";
      return 1;
    }}};
Registrar<WorkloadEntry> reg_workload_throws{WorkloadEntry{
    "test-throws", "test workload whose model reports a SystemC error", {},
    [](Testbed&, std::ostream&, nlohmann::json&) -> int {
      SC_REPORT_ERROR("/nicsim/test", "model exploded");
      return 0;
    }}};

}  // namespace
}  // namespace nicsim::testing
