#include "models/chipset/host_bridge.h"
#include "core/sim_context.h"
#include "models/bus/pci.h"
#include "models/bus/stream_timing.h"
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace nicsim {

static uint64_t& ctr(const sc_core::sc_module& m, const char* n) { return sim().counters.at(std::string(m.name()) + "." + n); }

HostBridge::HostBridge(sc_core::sc_module_name name, const HostBridgeParams& p, uint64_t dram_bytes)
    : sc_module(name),
      fsb_target("fsb_target"),
      mem_initiator("mem_initiator"),
      apic_out("apic_out"),
      eoi_down("eoi_down"),
      p_(p),
      dram_bytes_(dram_bytes),
      fsb_data_(std::string(this->name()) + ".fsb_data"),
      c_mmio_reads_(ctr(*this, "mmio_reads")),
      c_mmio_writes_(ctr(*this, "mmio_writes")),
      c_interrupts_(ctr(*this, "interrupt_messages")),
      c_eois_(ctr(*this, "eois")),
      c_mem_reads_(ctr(*this, "inbound_reads")),
      c_mem_writes_(ctr(*this, "inbound_writes")),
      c_aborts_(ctr(*this, "master_aborts")),
      c_io_reads_(ctr(*this, "io_reads")),
      c_io_writes_(ctr(*this, "io_writes")) {
  inbound_decode_ = ns(p_.inbound_decode_ns);
  fsb_target.register_b_transport(this, &HostBridge::b_fsb);
  if (p_.port_names.empty()) throw std::invalid_argument(std::string(this->name()) + ": a host bridge needs a port");
  const auto& names = p_.port_names;
  for (unsigned i = 0; i < hub_ports(); ++i) {
    hub_down.push_back(std::make_unique<tlm_utils::simple_initiator_socket_optional<HostBridge>>(
        (std::string(names[i]) + "_down").c_str()));
    hub_up.push_back(std::make_unique<tlm_utils::simple_target_socket_tagged_optional<HostBridge>>(
        (std::string(names[i]) + "_up").c_str()));
    hub_up.back()->register_b_transport(this, &HostBridge::b_hub_up, static_cast<int>(i));
    hub_up.back()->register_transport_dbg(this, &HostBridge::dbg_hub_up, static_cast<int>(i));
  }
}

void HostBridge::map_hub_window(unsigned port, uint64_t base, uint64_t size) {
  if (port >= hub_ports()) throw std::out_of_range(std::string(name()) + ": no hub port " + std::to_string(port));
  if (base < dram_bytes_) throw std::invalid_argument("hub window overlaps DRAM");
  windows_.push_back({port, base, size});
}

void HostBridge::map_hub_io_window(unsigned port, uint64_t base, uint64_t size) {
  if (port >= hub_ports()) throw std::out_of_range(std::string(name()) + ": no hub port " + std::to_string(port));
  if (base % kIoWindowGranularity || size % kIoWindowGranularity || size == 0 || base + size > kIoSpaceBytes)
    throw std::invalid_argument("hub I/O window must be 4 KB aligned, a non-zero multiple of 4 KB, inside "
                                "the 64 KB I/O space (IOBASE/IOLIMIT hold A[15:12])");
  io_windows_.push_back({port, base, size});
}

int HostBridge::hub_io_port_of(uint64_t addr, unsigned len) const {
  for (auto& w : io_windows_)
    if (addr >= w.base && addr + len <= w.base + w.size) return static_cast<int>(w.port);
  return -1;
}

int HostBridge::hub_port_of(uint64_t addr, unsigned len) const {
  for (auto& w : windows_)
    if (addr >= w.base && addr + len <= w.base + w.size) return static_cast<int>(w.port);
  return -1;
}

/// Nobody decodes the FSB access: reads return all ones, the response phase follows the request.
void HostBridge::fsb_master_abort(tlm::tlm_generic_payload& trans, sc_time& delay, const sc_time& request_done) {
  if (trans.is_read()) std::memset(trans.get_data_ptr(), 0xFF, trans.get_data_length());
  ++c_aborts_;
  trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
  delay = request_done + fsb_clocks(p_.fsb_response_clocks) - now();
}

void HostBridge::b_fsb(tlm::tlm_generic_payload& trans, sc_time& delay) {
  const sc_time t0 = now() + delay;
  const uint64_t addr = trans.get_address();
  const unsigned len = trans.get_data_length();
  const bool write = trans.is_write();
  const double data_clocks = std::max(1.0, std::ceil(double(len) / p_.fsb_bytes_per_clock));
  const sc_time req = fsb_clocks(p_.fsb_request_clocks);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);

  if (is_io_space(trans)) {
    int port = hub_io_port_of(addr, len);
    if (port < 0 || !hub_down[port]->size()) {  // HI_A (ICH3) is not modelled: master abort
      fsb_master_abort(trans, delay, t0 + req);
      return;
    }
    auto& down = *hub_down[port];
    sc_time d;
    if (write) {
      ++c_io_writes_;
      // The data phase is on the FSB at once, but the write is not posted: the response phase
      // (and the CPU) waits for the hub interface completion.
      Grant g = fsb_data_.reserve(t0 + req, fsb_clocks(data_clocks));
      d = g.end + ns(p_.mmio_decode_ns) - now();
      down->b_transport(trans, d);
      delay = now() + d + ns(p_.hub_completion_ns) + fsb_clocks(p_.fsb_response_clocks) - now();
    } else {
      ++c_io_reads_;
      d = t0 + req + ns(p_.mmio_decode_ns) - now();
      down->b_transport(trans, d);
      Grant g = fsb_data_.reserve(now() + d + ns(p_.hub_completion_ns) + fsb_clocks(p_.fsb_response_clocks),
                                  fsb_clocks(data_clocks));
      delay = g.end - now();
    }
    if (trans.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE) trans.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }

  if (in_dram(addr, len)) {
    if (write) {
      Grant g = fsb_data_.reserve(t0 + req, fsb_clocks(data_clocks));
      sc_time d = g.end - now();  // posted in the MCH write buffer from here
      sc_time dd = d;
      mem_initiator->b_transport(trans, dd);
      delay = d;
    } else {
      sc_time d = t0 + fsb_clocks(p_.fsb_mem_read_request_clocks) - now();
      mem_initiator->b_transport(trans, d);
      Grant g = fsb_data_.reserve(now() + d + fsb_clocks(p_.fsb_response_clocks), fsb_clocks(data_clocks));
      delay = g.end - now();
    }
    return;
  }
  int port = hub_port_of(addr, len);
  if (port < 0 || !hub_down[port]->size()) {
    fsb_master_abort(trans, delay, t0 + req);
    return;
  }
  auto& down = *hub_down[port];
  if (write) {
    ++c_mmio_writes_;
    // Posted: the CPU is released after the FSB request and data phases.
    Grant g = fsb_data_.reserve(t0 + req, fsb_clocks(data_clocks));
    sc_time d = g.end + ns(p_.mmio_decode_ns) - now();
    down->b_transport(trans, d);
    if (trans.get_response_status() == tlm::TLM_INCOMPLETE_RESPONSE) trans.set_response_status(tlm::TLM_OK_RESPONSE);
    delay = g.end - now();
  } else {
    ++c_mmio_reads_;
    sc_time d = t0 + req + ns(p_.mmio_decode_ns) - now();
    down->b_transport(trans, d);
    Grant g = fsb_data_.reserve(now() + d + ns(p_.hub_completion_ns) + fsb_clocks(p_.fsb_response_clocks),
                                fsb_clocks(data_clocks));
    delay = g.end - now();
  }
}

unsigned HostBridge::dbg_hub_up(int, tlm::tlm_generic_payload& trans) {
  const uint64_t addr = trans.get_address();
  const unsigned len = trans.get_data_length();
  if (is_io_space(trans) || len == 0 || !in_dram(addr, len)) return 0;
  if (trans.is_write() && inbound_write_observer_) inbound_write_observer_(addr, len);
  return mem_initiator->transport_dbg(trans);
}

void HostBridge::b_hub_up(int port, tlm::tlm_generic_payload& trans, sc_time& delay) {
  const uint64_t addr = trans.get_address();
  const unsigned len = trans.get_data_length();
  if (trans.is_write()) {
    if (auto* train = trans.get_extension<PostedTrainExt>()) {
      if (in_dram(addr, len)) {
        // A posted train into DRAM: each piece is an inbound write, decoded at its own arrival;
        // the pieces are contiguous, so the snoop observer sees their union once.
        trans.set_response_status(tlm::TLM_OK_RESPONSE);
        c_mem_writes_ += train->pieces.size();
        if (inbound_write_observer_) inbound_write_observer_(addr, len);
        const sc_time& decode = inbound_decode_;
        for (auto& pc : train->pieces) pc.at += decode;
        sc_time d = train->pieces.front().at - now();
        mem_initiator->b_transport(trans, d);
        delay = d;
      } else {
        split_train(port, trans, *train, delay);
      }
      return;
    }
  }
  const sc_time t0 = now() + delay;
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
  if (trans.is_write() && addr >= p_.interrupt_base && addr - p_.interrupt_base < p_.interrupt_size && len >= 1) {
    unsigned vector = trans.get_data_ptr()[0];
    ++c_interrupts_;
    sc_time at = t0 + fsb_clocks(p_.interrupt_fsb_clocks);
    apic_out->apic_message(vector, at - now());
    delay = at - now();
    return;
  }
  if (in_dram(addr, len)) {
    (trans.is_write() ? c_mem_writes_ : c_mem_reads_)++;
    if (trans.is_write() && inbound_write_observer_) inbound_write_observer_(addr, len);
    sc_time d = t0 + inbound_decode_ - now();
    mem_initiator->b_transport(trans, d);
    delay = d;
    return;
  }
  ++c_aborts_;
  if (trans.is_read()) std::memset(trans.get_data_ptr(), 0xFF, len);
  trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

void HostBridge::split_train(int port, tlm::tlm_generic_payload& trans, PostedTrainExt& train, sc_time& delay) {
  // Not all of it is DRAM (an interrupt message window, a master abort): each piece on its own.
  const uint64_t addr = trans.get_address();
  unsigned char* data = trans.get_data_ptr();
  const unsigned len = trans.get_data_length();
  trans.clear_extension(&train);
  tlm::tlm_response_status worst = tlm::TLM_OK_RESPONSE;
  uint32_t off = 0;
  for (auto& pc : train.pieces) {
    trans.set_address(addr + off);
    trans.set_data_ptr(data + off);
    trans.set_data_length(pc.bytes);
    trans.set_streaming_width(pc.bytes);
    sc_time d = pc.at - now();
    b_hub_up(port, trans, d);
    if (trans.get_response_status() != tlm::TLM_OK_RESPONSE) worst = trans.get_response_status();
    delay = d;
    off += pc.bytes;
  }
  trans.set_address(addr);
  trans.set_data_ptr(data);
  trans.set_data_length(len);
  trans.set_streaming_width(len);
  trans.set_extension(&train);
  trans.set_response_status(worst);
}

void HostBridge::eoi(unsigned vector, const sc_core::sc_time& delay) {
  ++c_eois_;
  for (int i = 0; i < eoi_down.size(); ++i) eoi_down[i]->eoi(vector, delay + ns(p_.eoi_ns));
}

}  // namespace nicsim
