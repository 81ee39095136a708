#include "models/bus/pci_dma_master.h"
#include "models/bus/payload.h"
#include <cstring>
#include <stdexcept>

namespace nicsim {

PciDeviceInfo pci_dma_master_info(const PciDmaMasterParams& p) {
  PciDeviceInfo i;
  i.name = p.device_name;
  i.width_bits = p.width_bits;
  i.pcix_capable = p.pcix;
  i.max_mhz = p.max_mhz;
  i.bar_size = p.bar_size;
  i.functions = p.functions;
  i.mmrbc_bytes = p.mmrbc_bytes;
  i.max_outstanding_splits = p.max_outstanding_splits;
  return i;
}

PciDmaMaster::PciDmaMaster(sc_core::sc_module_name name, const PciDmaMasterParams& p)
    : sc_module(name), p_(p), target_("pci_target"), initiator_("dma_initiator") {
  if (p_.width_bits != 32 && p_.width_bits != 64) throw std::invalid_argument("pci-dma-master: width_bits must be 32 or 64");
  info_ = pci_dma_master_info(p_);
  for (unsigned f = 0; f < p_.functions; ++f)
    irq_.push_back(std::make_unique<sc_core::sc_port<irq_if>>(("irq_out" + std::to_string(f)).c_str()));
  bars_.assign(p_.functions, 0);
  regs_.assign(4096, 0);
  target_.register_b_transport(this, &PciDmaMaster::b_target);
  SC_HAS_PROCESS(PciDmaMaster);
  SC_THREAD(engine);
}

void PciDmaMaster::b_target(tlm::tlm_generic_payload& trans, sc_time& delay) {
  uint64_t off = 0;
  for (unsigned f = 0; f < bars_.size(); ++f)
    if (trans.get_address() >= bars_[f] && trans.get_address() < bars_[f] + info_.bar_size)
      off = trans.get_address() - bars_[f];
  off %= regs_.size();
  unsigned len = std::min<unsigned>(trans.get_data_length(), static_cast<unsigned>(regs_.size() - off));
  if (trans.is_write()) {
    std::memcpy(regs_.data() + off, trans.get_data_ptr(), len);
    last_write_at_ = now() + delay;
    ++mmio_writes_;
  } else {
    std::memcpy(trans.get_data_ptr(), regs_.data() + off, len);
    ++mmio_reads_;
  }
  delay += ns(p_.register_access_ns);
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

void PciDmaMaster::start(const Job& job) {
  if (busy_) throw std::logic_error(std::string(name()) + ": DMA job already running");
  if (job.bytes == 0) throw std::invalid_argument("DMA job of 0 bytes");
  job_ = job;
  busy_ = true;
  stats_ = Stats{};
  go_.notify(SC_ZERO_TIME);
}

void PciDmaMaster::engine() {
  for (;;) {
    wait(go_);
    buf_.assign(job_.bytes, 0);
    for (size_t i = 0; i < buf_.size(); ++i) buf_[i] = static_cast<uint8_t>(i);
    PciTxnExt ext;
    ext.what = job_.write ? "busbench DMA write" : "busbench DMA read";
    stats_.start = now();
    uint64_t off = 0;
    for (unsigned n = 0; n < job_.count; ++n) {
      tlm::tlm_generic_payload tr;
      reset_payload(tr, job_.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND, job_.addr + off, buf_.data(),
                    job_.bytes);
      const bool use_ext = job_.has_cmd || job_.journey;
      if (use_ext) {
        // Without an explicit command: MW, or the read command a driver-configured master picks
        // by length (MR up to a QWORD, MRL within a 64-byte line, MRM beyond).
        const uint64_t a = job_.addr + off;
        ext.cmd = job_.has_cmd ? job_.cmd
                  : job_.write ? PciCommand::MemWrite
                  : (job_.bytes <= 8 && a / 8 == (a + job_.bytes - 1) / 8) ? PciCommand::MemRead
                  : (a / 64 == (a + job_.bytes - 1) / 64)                  ? PciCommand::MemReadLine
                                                                           : PciCommand::MemReadMultiple;
        ext.journey = job_.journey;
        tr.set_extension(&ext);
      }
      sc_time issued = now();
      sc_time d = SC_ZERO_TIME;
      initiator_->b_transport(tr, d);
      if (use_ext) tr.clear_extension(&ext);
      if (tr.get_response_status() != tlm::TLM_OK_RESPONSE) stats_.error = true;
      wait(d);
      sc_time lat = now() - issued;
      if (n == 0 || lat < stats_.min_latency) stats_.min_latency = lat;
      if (lat > stats_.max_latency) stats_.max_latency = lat;
      stats_.sum_latency += lat;
      stats_.bytes += job_.bytes;
      ++stats_.transfers;
      off += job_.bytes;
      if (job_.region_bytes && off + job_.bytes > job_.region_bytes) off = 0;
    }
    stats_.end = now();
    busy_ = false;
    done_.notify(SC_ZERO_TIME);
  }
}

}  // namespace nicsim
