// Test host for the driver models (e1000 with the real 8254x model, eepro100 with the real 8255x
// model): a host whose chipset is reduced to fixed, known rules — CPU MMIO reaches a device's BAR `mmio_to_device` after
// issue, a read stalls the CPU `mmio_read_stall`, a posted write `mmio_write_release`; device DMA
// goes to flat DRAM over one bus at `dma_overhead` + `dma_ns_per_byte` per transaction; each PCI
// function's INTx is a level-triggered I/OxAPIC line that re-sends after EOI while asserted. A
// device with an I/O BAR (PciDeviceInfo::io_bar_size) gets one at 0x1000 + 0x100 per device; x86
// IN/OUT (PciSpaceExt) decode only against I/O BARs and stall the CPU `mmio_read_stall` both ways
// (an I/O write is not posted).
// Every MMIO access and every interrupt message is logged, so tests can check what the driver wrote
// and when. A fake Ethernet peer records frames and sends frames at given times.
#pragma once
#include "core/dma_tags.h"
#include "core/sim_context.h"
#include "core/timed_resource.h"
#include "drivers-sim/drivers/e1000/e1000.h"
#include "drivers-sim/kernel/kernel.h"
#include "drivers-sim/kernel/profiles.h"
#include "models/ether/link.h"
#include "models/nic/e1000/e1000.h"
#include "platforms/testbed.h"
#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <vector>

namespace drvtest {

using namespace nicsim;

struct MmioRec {
  sc_time t;  ///< when the CPU issued it
  bool write;
  uint64_t addr;
  uint32_t v;  ///< value written, or value read
  bool io = false;   ///< an I/O-space cycle (IN/OUT)
  unsigned len = 4;  ///< access width in bytes
};

class TestHost;

/// The bus interface of one device on the test host: MMIO to its target socket, its DMA into DRAM.
struct DevBus : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<DevBus> to_dev;
  tlm_utils::simple_target_socket<DevBus> from_dev;
  TestHost* host;
  PciDevice* dev;
  DevBus(sc_core::sc_module_name n, TestHost* h, PciDevice* d);
  void dma(tlm::tlm_generic_payload& gp, sc_time& delay);
};

/// One function's INTx into an I/OxAPIC redirection entry (level, remote IRR).
struct IrqLine : irq_if {
  TestHost* host = nullptr;
  unsigned vector = 0;
  bool level = false, in_service = false;
  std::vector<sc_time> sends;  ///< times an interrupt message was sent for this line
  void set_irq_level(bool a) override;
  void send();
};

class TestHost : public sc_core::sc_module, public HostHw, public eoi_if {
 public:
  tlm_utils::simple_target_socket<TestHost> fsb;
  sc_core::sc_port<apic_msg_if> apic;
  sc_time mmio_to_device = ns(300);     ///< issue -> access at the device
  sc_time mmio_read_stall = ns(800);    ///< CPU stall of an uncached read
  sc_time mmio_write_release = ns(100); ///< CPU stall of a posted write
  sc_time irq_msg_delay = ns(100);      ///< I/OxAPIC message to the local APIC
  sc_time dma_overhead = ns(60);        ///< per DMA transaction
  double dma_ns_per_byte = 3.75;        ///< 32-bit PCI at 66 MHz: 4 bytes per 15 ns
  std::vector<MmioRec> mmio;
  std::vector<uint8_t> dram;
  TimedResource bus{"test bus"};
  std::vector<std::unique_ptr<DevBus>> devs;
  std::vector<std::unique_ptr<IrqLine>> lines;

  /// The host (and its SystemC module) named `nm`, e.g. "alpha".
  explicit TestHost(sc_core::sc_module_name nm, size_t dram_bytes = 64u << 20)
      : sc_module(nm), fsb("fsb"), apic("apic"), dram(dram_bytes, 0), name_(static_cast<const char*>(nm)) {
    fsb.register_b_transport(this, &TestHost::b_transport);
  }

  // HostHw
  const std::string& name() const override { return name_; }
  std::vector<unsigned> attach(const std::string&, PciDevice& dev) override {
    const unsigned idx = static_cast<unsigned>(devs.size());
    devs.push_back(std::make_unique<DevBus>((name_ + "_bus" + std::to_string(idx)).c_str(), this, &dev));
    std::vector<unsigned> v;
    for (unsigned fn = 0; fn < dev.info().functions; ++fn) {
      dev.set_bar(fn, 0xF0000000ull + 0x100000ull * idx + 0x20000ull * fn);
      if (dev.info().io_bar_size) dev.set_io_bar(fn, 0x1000ull + 0x100ull * idx + 0x80ull * fn);
      auto l = std::make_unique<IrqLine>();
      l->host = this;
      l->vector = 0x41 + 8 * idx + fn;
      dev.irq_out(fn).bind(*l);
      v.push_back(l->vector);
      lines.push_back(std::move(l));
    }
    return v;
  }
  tlm::tlm_target_socket<>& fsb_target() override { return fsb; }
  sc_core::sc_port<apic_msg_if>& apic_out() override { return apic; }
  eoi_if& eoi_in() override { return *this; }
  void mem_write(uint64_t a, const void* s, size_t n) override {
    if (a + n > dram.size()) throw std::out_of_range("test DRAM write");
    std::memcpy(dram.data() + a, s, n);
  }
  void mem_read(uint64_t a, void* d, size_t n) const override {
    if (a + n > dram.size()) throw std::out_of_range("test DRAM read");
    std::memcpy(d, dram.data() + a, n);
  }
  uint64_t dram_bytes() const override { return dram.size(); }
  nlohmann::json params_json() const override { return nlohmann::json::object(); }
  /// The chipset's snoop of inbound writes (HostFace::set_dma_write_observer): reported to the
  /// kernel's cache-line model only when `snoop_dma` is set (off: no line is ever a miss, as the
  /// tests without it were written); a CPU line fill of DRAM takes `line_fill_delay`.
  void set_dma_write_observer(std::function<void(uint64_t, size_t)> o) override { dma_observer = std::move(o); }
  std::function<void(uint64_t, size_t)> dma_observer;
  bool snoop_dma = false;
  sc_time line_fill_delay = ns(150);

  // eoi_if
  void eoi(unsigned vector, const sc_time&) override {
    for (auto& l : lines)
      if (l->vector == vector) {
        l->in_service = false;
        if (l->level) l->send();
      }
  }

  /// MMIO accesses to `addr` (writes or reads), in issue order.
  std::vector<MmioRec> accesses(uint64_t addr, bool write) const {
    std::vector<MmioRec> r;
    for (const auto& m : mmio)
      if (m.addr == addr && m.write == write) r.push_back(m);
    return r;
  }
  /// Values written to `addr` at or after `from`.
  std::vector<uint32_t> writes(uint64_t addr, sc_time from = SC_ZERO_TIME) const {
    std::vector<uint32_t> r;
    for (const auto& m : mmio)
      if (m.write && m.addr == addr && m.t >= from) r.push_back(m.v);
    return r;
  }

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
    const uint64_t a = gp.get_address();
    const bool io = is_io_space(gp);
    DevBus* target = nullptr;
    for (auto& d : devs)
      for (unsigned fn = 0; fn < d->dev->info().functions; ++fn) {
        const uint64_t base = io ? d->dev->io_bar(fn) : d->dev->bar(fn);
        const uint64_t size = io ? d->dev->info().io_bar_size : d->dev->info().bar_size;
        if (base && a >= base && a < base + size) target = d.get();
      }
    if (!target && !io && a + gp.get_data_length() <= dram.size() && gp.is_read()) {  // a CPU line fill
      std::memcpy(gp.get_data_ptr(), &dram[a], gp.get_data_length());
      delay += line_fill_delay;
      gp.set_response_status(tlm::TLM_OK_RESPONSE);
      return;
    }
    if (!target) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    const sc_time issued = now() + delay;
    sc_time at_dev = delay + mmio_to_device;
    target->to_dev->b_transport(gp, at_dev);
    const unsigned len = gp.get_data_length();
    uint32_t v = 0;
    std::memcpy(&v, gp.get_data_ptr(), std::min(4u, len));
    mmio.push_back({issued, gp.is_write(), a, v, io, len});
    delay += gp.is_write() && !io ? mmio_write_release : mmio_read_stall;
  }
  friend struct DevBus;
  std::string name_;
};

inline DevBus::DevBus(sc_core::sc_module_name n, TestHost* h, PciDevice* d)
    : sc_module(n), to_dev("to_dev"), from_dev("from_dev"), host(h), dev(d) {
  from_dev.register_b_transport(this, &DevBus::dma);
  to_dev.bind(dev->pci_target());
  dev->dma_initiator().bind(from_dev);
}

inline void DevBus::dma(tlm::tlm_generic_payload& gp, sc_time& delay) {
  const uint64_t a = gp.get_address();
  const unsigned len = gp.get_data_length();
  if (a + len > host->dram.size()) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  Grant g = host->bus.reserve(now() + delay, host->dma_overhead + ns(host->dma_ns_per_byte * len));
  if (gp.is_write()) std::memcpy(&host->dram[a], gp.get_data_ptr(), len);
  else std::memcpy(gp.get_data_ptr(), &host->dram[a], len);
  if (gp.is_write() && host->snoop_dma && host->dma_observer) host->dma_observer(a, len);
  delay = g.end - now();
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

inline void IrqLine::set_irq_level(bool a) {
  level = a;
  if (level && !in_service) send();
}
inline void IrqLine::send() {
  in_service = true;
  sends.push_back(now());
  host->apic->apic_message(vector, host->irq_msg_delay);
}

/// An Ethernet port that records what arrives and sends frames when asked.
struct Peer : EthPort {
  EthLinkEnd* end = nullptr;
  struct Rx {
    sc_time t;
    EthFrame f;
  };
  std::vector<Rx> rx;
  std::function<void(const EthFrame&)> on_rx;
  void attach_link(EthLinkEnd* e) override { end = e; }
  void frame_received(const EthFrame& f) override {
    rx.push_back({now(), f});
    if (on_rx) on_rx(f);
  }
  std::string port_name() const override { return "peer"; }
};

/// Kernel parameters of kernel profile `kernel` (e.g. a NAPI "linux-2.6.11-i386") on a Xeon with one
/// logical CPU at 2000 MHz (hyper-threading off: the driver is under test, not HT), tick on.
inline KernelParams napi_params(const char* kernel) {
  KernelParams p = kernel_params_of(kernel_profile(kernel), cpu_profile("xeon-prestonia-ht"));
  p.host = "alpha";
  p.cpus = 1;
  p.threads_per_core = 1;
  p.cpu_mhz = 2000;
  p.hz_tick = true;
  return p;
}

/// Kernel parameters for driver tests: one 2000 MHz CPU (1 cycle = 500 ps), the HZ tick on (the
/// driver's watchdog runs from TIMER_BH).
inline KernelParams kernel_params(const std::string& host, unsigned cpus = 1) {
  KernelParams p;
  p.host = host;
  p.cpus = cpus;
  p.cpu_mhz = 2000;
  p.hz_tick = true;
  return p;
}

/// The NIC a probe() binds (`host` and `driver` name the caller's setup; the probe sees `name`
/// and `device`).
inline ProbeTarget nic_config(const std::string& host, const std::string& name, const std::string& device,
                              const std::string& driver) {
  (void)host;
  (void)driver;
  return ProbeTarget{name, device};
}

/// The registered driver entry `name` (REQUIREd by the caller).
inline const DriverEntry* driver(const std::string& name) { return Registry<DriverEntry>::instance().find(name); }

/// Run `f` as a SystemC thread starting at absolute time `at`.
inline void at_time(const sc_time& at, std::function<void()> f) {
  sc_core::sc_spawn_options o;
  sc_core::sc_spawn(
      [at, f = std::move(f)] {
        if (at > now()) sc_core::wait(at - now());
        f();
      },
      nullptr, &o);
}

/// An Ethernet/IPv4-typed frame `dst` <- `src` of `len` bytes (DA..payload), payload byte i = seed + i.
inline EthFrame make_frame(const std::array<uint8_t, 6>& dst, const std::array<uint8_t, 6>& src, unsigned len,
                           uint8_t seed, JourneyId j = 0) {
  EthFrame f;
  f.bytes.assign(dst.begin(), dst.end());
  f.bytes.insert(f.bytes.end(), src.begin(), src.end());
  f.bytes.push_back(0x08);
  f.bytes.push_back(0x00);
  for (unsigned i = 14; i < len; ++i) f.bytes.push_back(uint8_t(seed + i));
  f.journey = j;
  return f;
}

/// Stage names of a journey's marks, in time order.
inline std::vector<std::string> stages(const Journey& j) {
  std::vector<std::string> s;
  for (const auto& m : j.marks) s.push_back(m.stage);
  return s;
}
/// True when `want` appears in `have` in this order (not necessarily adjacent).
inline bool in_order(const std::vector<std::string>& have, const std::vector<std::string>& want) {
  size_t k = 0;
  for (const auto& h : have)
    if (k < want.size() && h == want[k]) ++k;
  return k == want.size();
}
inline const Journey* finished_journey(JourneyId id) {
  for (const auto& j : sim().journeys.finished())
    if (j.id == id) return &j;
  return nullptr;
}

}  // namespace drvtest
