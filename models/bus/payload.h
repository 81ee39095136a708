// reset_payload: a tlm_generic_payload set up for one plain transaction, as every initiator in the
// models (CPU, DMA engines, bridges, I/OxAPIC, bench masters) issues them.
#pragma once
#include <cstdint>
#include <tlm>

namespace nicsim {

/// Sets `gp` for one transaction of `len` bytes at `addr`, data at `data`: command, address, data
/// pointer and length, streaming width = `len` (not a streaming transfer), no byte enables, DMI not
/// allowed, response TLM_INCOMPLETE_RESPONSE (TLM-2.0 LRM §14.8: what an initiator sets before each
/// b_transport). Extensions are left as they are. Returns `gp`.
inline tlm::tlm_generic_payload& reset_payload(tlm::tlm_generic_payload& gp, tlm::tlm_command cmd, uint64_t addr,
                                               unsigned char* data, unsigned len) {
  gp.set_command(cmd);
  gp.set_address(addr);
  gp.set_data_ptr(data);
  gp.set_data_length(len);
  gp.set_streaming_width(len);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_byte_enable_length(0);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  return gp;
}

}  // namespace nicsim
