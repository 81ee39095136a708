// I/O(x) APIC: one per P64H2 segment (research/e7500-p64h2-pcix.md §2 [S13], §4 [S17]).
//
// Each INTx# input has a redirection entry (vector, mask, trigger mode, destination). When an
// unmasked input fires, the I/OxAPIC sends an interrupt message upstream: a 4-byte posted memory
// write to the interrupt address range FEEx_xxxx (destination in address bits 19:12, vector in
// the data), which travels the same path as DMA writes (bridge -> hub link -> MCH) and so stays
// ordered behind them. Level-triggered entries follow the Remote IRR rule: a message is sent
// when the line is asserted, unmasked and not already in service (Remote IRR clear); sending sets
// Remote IRR; the local APIC's EOI for that vector clears it and, if the line is still asserted,
// a new message is sent at once. So a level line that stays asserted is never lost.
#pragma once
#include "core/units.h"
#include "models/bus/irq.h"
#include <map>
#include <memory>
#include <string>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <vector>

namespace nicsim {

struct IoxApicParams {
  unsigned redirection_entries = 24;   ///< estimate: 82093AA-class I/O APIC count (P64H2 count not retrieved, §2)
  double message_ns = 40.0;            ///< estimate: research §4: INTx# sampled + redirection entry turned into a message
  uint64_t message_address = 0xFEE00000;  ///< x86 interrupt message window FEEx_xxxx (Intel SDM vol. 3, APIC message address)
};

struct RedirectionEntry {
  unsigned vector = 0;
  bool masked = true;
  bool level = true;            ///< trigger mode: level (PCI INTx#) or edge
  bool logical = false;         ///< destination mode
  bool lowest_priority = false; ///< delivery mode fixed / lowest priority
  unsigned dest = 0;            ///< APIC ID (physical) or logical mask
  // status bits (read-only to software)
  bool remote_irr = false;      ///< level: message accepted, EOI not yet seen
};

class IoxApic : public sc_core::sc_module, public eoi_if {
 public:
  /// Interrupt messages leave here as posted writes (bind to the bridge's upstream path).
  tlm_utils::simple_initiator_socket<IoxApic> msg_out;

  IoxApic(sc_core::sc_module_name name, const IoxApicParams& p = {});

  /// INTx# input `i`: bind a device's irq_out(fn) here. Throws std::out_of_range.
  sc_core::sc_export<irq_if>& pin(unsigned i);
  /// Program redirection entry `i` (what Linux's setup_IO_APIC_irqs writes). Unmasking an entry
  /// whose line is asserted sends a message. Throws std::out_of_range.
  void program(unsigned i, const RedirectionEntry& e);
  const RedirectionEntry& entry(unsigned i) const { return rte_.at(i); }
  bool line(unsigned i) const { return level_.at(i); }
  unsigned entries() const { return static_cast<unsigned>(rte_.size()); }
  uint64_t messages_sent() const { return c_messages_; }

  /// Local APIC EOI for `vector`, taking effect `delay` after now (eoi_if).
  void eoi(unsigned vector, const sc_core::sc_time& delay) override;

 private:
  struct Pin : irq_if {
    IoxApic* owner = nullptr;
    unsigned idx = 0;
    void set_irq_level(bool asserted) override { owner->set_level(idx, asserted); }
  };
  void set_level(unsigned i, bool asserted);
  void send(unsigned i);
  void eoi_method();

  IoxApicParams p_;
  std::vector<RedirectionEntry> rte_;
  std::vector<bool> level_;
  std::vector<std::unique_ptr<Pin>> pins_;
  std::vector<std::unique_ptr<sc_core::sc_export<irq_if>>> exports_;
  std::multimap<sc_time, unsigned> pending_eoi_;
  sc_core::sc_event eoi_ev_;
  uint64_t &c_messages_, &c_eois_, &c_held_;
};

}  // namespace nicsim
