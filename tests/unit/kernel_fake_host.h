// Test doubles for CPU/kernel benches: an MCH answering MMIO with fixed delays, a level-triggered
// I/OxAPIC line that re-sends after EOI while asserted, and a HostHw with flat DRAM.
#pragma once
#include "core/sim_context.h"
#include "drivers-sim/kernel/kernel.h"
#include "platforms/testbed.h"
#include <cstring>
#include <functional>
#include <map>
#include <systemc>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace nicsim::test {

/// An MCH whose MMIO reads take `read_delay` and posted writes `write_delay` (annotated delay).
struct FakeMch : sc_core::sc_module {
  tlm_utils::simple_target_socket<FakeMch> fsb;
  sc_time read_delay = ns(750);
  sc_time write_delay = ns(60);
  std::map<uint64_t, uint32_t> regs;
  struct Access {
    sc_time t;
    bool write;
    uint64_t addr;
    uint32_t v;
  };
  std::vector<Access> log;
  std::function<void(uint64_t, uint32_t)> on_write;

  explicit FakeMch(sc_core::sc_module_name n) : sc_module(n), fsb("fsb") {
    fsb.register_b_transport(this, &FakeMch::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
    uint32_t v = 0;
    unsigned char* d = gp.get_data_ptr();
    if (gp.is_write()) {
      for (int i = 0; i < 4; ++i) v |= uint32_t(d[i]) << (8 * i);
      regs[gp.get_address()] = v;
      log.push_back({now() + delay, true, gp.get_address(), v});
      if (on_write) on_write(gp.get_address(), v);
      delay += write_delay;
    } else {
      v = regs[gp.get_address()];
      for (int i = 0; i < 4; ++i) d[i] = static_cast<unsigned char>(v >> (8 * i));
      log.push_back({now() + delay, false, gp.get_address(), v});
      delay += read_delay;
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

/// One level-triggered line into an I/OxAPIC redirection entry: while asserted and not in
/// service (remote IRR clear) it sends `vector` to the CPUs (arriving after `msg_delay`); an EOI
/// for its vector clears remote IRR and re-sends if the line is still asserted.
struct FakeIoApic : sc_core::sc_module, eoi_if {
  sc_core::sc_port<apic_msg_if> apic_out;
  unsigned vector = 0x41;
  sc_time msg_delay = ns(100);
  bool level = false;
  bool remote_irr = false;
  std::vector<sc_time> sends, eois;

  explicit FakeIoApic(sc_core::sc_module_name n) : sc_module(n), apic_out("apic_out") {}
  void set_level(bool a) {
    level = a;
    if (level && !remote_irr) send();
  }
  void send() {
    remote_irr = true;
    sends.push_back(now());
    apic_out->apic_message(vector, msg_delay);
  }
  void eoi(unsigned v, const sc_time&) override {
    if (v != vector) return;
    eois.push_back(now());
    remote_irr = false;
    if (level) send();
  }
};

struct FakeHost : HostHw {
  std::string host;
  FakeMch mch;
  FakeIoApic ioapic;
  std::vector<uint8_t> dram;

  explicit FakeHost(const std::string& name = "alpha", size_t dram_bytes = 32u << 20)
      : host(name), mch((name + "_mch").c_str()), ioapic((name + "_ioapic").c_str()), dram(dram_bytes, 0) {}
  const std::string& name() const override { return host; }
  std::vector<unsigned> attach(const std::string&, PciDevice&) override { throw std::invalid_argument("no slots"); }
  tlm::tlm_target_socket<>& fsb_target() override { return mch.fsb; }
  sc_core::sc_port<apic_msg_if>& apic_out() override { return ioapic.apic_out; }
  eoi_if& eoi_in() override { return ioapic; }
  void mem_write(uint64_t a, const void* s, size_t n) override {
    if (a + n > dram.size()) throw std::out_of_range("fake DRAM write");
    std::memcpy(dram.data() + a, s, n);
  }
  void mem_read(uint64_t a, void* d, size_t n) const override {
    if (a + n > dram.size()) throw std::out_of_range("fake DRAM read");
    std::memcpy(d, dram.data() + a, n);
  }
  uint64_t dram_bytes() const override { return dram.size(); }
  nlohmann::json params_json() const override { return nlohmann::json::object(); }
};

/// Kernel parameters for benches: `cpus` cores at 2000 MHz (1 cycle = 500 ps exactly), no HZ
/// tick unless asked.
inline KernelParams bench_params(unsigned cpus = 1, bool tick = false) {
  KernelParams p;
  p.host = "alpha";
  p.cpus = cpus;
  p.cpu_mhz = 2000;
  p.hz_tick = tick;
  return p;
}

/// The time CPU 0 of `k` takes for cost `id` (of `bytes` bytes): the tests' expected durations.
inline sc_core::sc_time C(Kernel& k, CostId id, size_t bytes = 0) { return k.cpu(0).cycles(k.cost_cycles(id, bytes)); }

}  // namespace nicsim::test
