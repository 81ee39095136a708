// Interrupt interfaces. Interrupts are not memory transactions (DESIGN.md "Modeling conventions"):
// a device drives a level-triggered INTx pin into its segment's I/OxAPIC; the I/OxAPIC sends an
// interrupt message upstream (Hub-Link -> MCH -> FSB) to a CPU's local APIC; the local APIC's EOI
// goes back to the I/OxAPICs, which re-send if the line is still asserted.
#pragma once
#include <systemc>

namespace nicsim {

/// A level-triggered INTx# input (device -> I/OxAPIC redirection entry). Called at the current
/// simulated time; `asserted` is the new line level.
struct irq_if : virtual sc_core::sc_interface {
  virtual void set_irq_level(bool asserted) = 0;
};

/// An interrupt message arriving at a CPU's local APIC `delay` after the current time.
struct apic_msg_if : virtual sc_core::sc_interface {
  virtual void apic_message(unsigned vector, const sc_core::sc_time& delay) = 0;
};

/// A local APIC EOI for `vector`, broadcast to the I/OxAPICs, taking effect `delay` after now.
struct eoi_if : virtual sc_core::sc_interface {
  virtual void eoi(unsigned vector, const sc_core::sc_time& delay) = 0;
};

}  // namespace nicsim
