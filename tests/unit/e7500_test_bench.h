// Test bench for the E7500 chipset models: an E7500 host built from a board spec, a minimal CPU
// stand-in (MMIO initiator on the FSB + local-APIC message sink) that runs a test body in an
// SC_THREAD, and helpers to add bus-master test devices. One bench per process (SystemC
// elaborates once per process; each TEST_CASE runs as its own ctest process).
#pragma once
#include "models/bus/pci_dma_master.h"
#include "platforms/e7500_host.h"
#include "platforms/supermicro_p4dpr_6gm.h"
#include <functional>
#include <memory>
#include <optional>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>
#include <utility>
#include <vector>

namespace nicsim::test {

struct TestCpu : sc_core::sc_module, apic_msg_if {
  tlm_utils::simple_initiator_socket<TestCpu> fsb{"fsb"};
  std::function<void(TestCpu&)> body;
  std::vector<std::pair<unsigned, sc_time>> irqs;  ///< (vector, absolute arrival)

  explicit TestCpu(sc_core::sc_module_name n) : sc_module(n) {
    SC_HAS_PROCESS(TestCpu);
    SC_THREAD(run);
  }
  void apic_message(unsigned vector, const sc_time& delay) override { irqs.push_back({vector, now() + delay}); }
  void run() {
    if (body) body(*this);
    sc_core::sc_stop();
  }
  /// A 32-bit CPU access; returns the time the CPU is held (annotated delay), does not wait.
  sc_time access(bool write, uint64_t addr, uint32_t& val, tlm::tlm_response_status* st = nullptr) {
    return transport(write, addr, reinterpret_cast<unsigned char*>(&val), 4, st);
  }
  /// A cacheable read of one cache line of `bytes` (a line fill) on the FSB; returns the CPU's wait
  /// (annotated delay), does not wait.
  sc_time line_read(uint64_t addr, unsigned bytes, tlm::tlm_response_status* st = nullptr) {
    std::vector<unsigned char> buf(bytes);
    return transport(false, addr, buf.data(), bytes, st);
  }

 private:
  sc_time transport(bool write, uint64_t addr, unsigned char* data, unsigned len, tlm::tlm_response_status* st) {
    tlm::tlm_generic_payload tr;
    tr.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    tr.set_address(addr);
    tr.set_data_ptr(data);
    tr.set_data_length(len);
    tr.set_streaming_width(len);
    tr.set_byte_enable_ptr(nullptr);
    tr.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time d = SC_ZERO_TIME;
    fsb->b_transport(tr, d);
    if (st) *st = tr.get_response_status();
    return d;
  }
};

/// A host of the ChipsetHost family (E7500Host, ChipsetHost) built from its board spec, with a
/// TestCpu on its FSB. `name` is the host's SystemC name; benches other than the default "h" prefix
/// their CPU and masters with it, so two benches can share one elaboration.
template <class Host>
struct HostBench {
  std::unique_ptr<Host> host;
  TestCpu* cpu;
  std::vector<std::unique_ptr<PciDmaMaster>> masters;
  std::string prefix;

  template <class Spec>
  explicit HostBench(const Spec& spec, const std::string& name = "h") : prefix(name == "h" ? "" : name + "_") {
    host = std::make_unique<Host>(name, spec, nlohmann::json::object());
    cpu = new TestCpu((prefix + "cpu").c_str());  // lives until the process ends
    cpu->fsb.bind(host->fsb_target());
    host->apic_out().bind(*cpu);
  }
  /// A pci-dma-master in `slot`; returns it and the vectors of its functions.
  PciDmaMaster& add(const std::string& slot, const PciDmaMasterParams& p, std::vector<unsigned>* vectors = nullptr) {
    masters.push_back(std::make_unique<PciDmaMaster>((prefix + "m_" + std::to_string(masters.size())).c_str(), p));
    auto v = host->attach(slot, *masters.back());
    if (vectors) *vectors = v;
    return *masters.back();
  }
  void run(std::function<void(TestCpu&)> body) {
    cpu->body = std::move(body);
    sc_core::sc_start();
  }
};
using Bench = HostBench<E7500Host>;

/// The P4DPR-6GM+ board with default parameters, optionally overridden.
inline E7500BoardSpec p4dpr(std::vector<std::pair<std::string, ParamValue>> overrides = {}) {
  ParamValues v(p4dpr_param_schema());
  for (auto& [k, x] : overrides) v.set(k, x);
  return p4dpr_board(v);
}

/// A board variant with a second PCI-X slot "pcix2" on segment B (INTA# on input 4), to put two
/// masters on one PCI-X segment.
inline E7500BoardSpec with_second_pcix_slot(E7500BoardSpec s) {
  E7500BoardSlot x;
  x.name = "pcix2";
  x.segment = 1;
  x.description = "test-only second PCI-X slot";
  x.first_pin = 4;
  s.slots.push_back(x);
  return s;
}

inline PciDmaMasterParams master(unsigned width, bool pcix, unsigned mhz) {
  PciDmaMasterParams p;
  p.width_bits = width;
  p.pcix = pcix;
  p.max_mhz = mhz;
  return p;
}

/// A DMA job of `count` transfers of `bytes` from `addr` (a write unless `write` is false) over a
/// region of `region_bytes`; `cmd` forces the PCI read command where given.
inline PciDmaMaster::Job dma_job(bool write, uint64_t addr, uint32_t bytes, unsigned count,
                                 std::optional<PciCommand> cmd = std::nullopt, uint64_t region_bytes = 1 << 20) {
  PciDmaMaster::Job j;
  j.write = write;
  j.addr = addr;
  j.bytes = bytes;
  j.count = count;
  j.region_bytes = region_bytes;
  j.has_cmd = cmd.has_value();
  if (cmd) j.cmd = *cmd;
  return j;
}

/// Run `job` on `m` from the test body and wait for it.
inline const PciDmaMaster::Stats& run_job(PciDmaMaster& m, const PciDmaMaster::Job& job) {
  m.start(job);
  sc_core::wait(m.done_event());
  return m.stats();
}

}  // namespace nicsim::test
