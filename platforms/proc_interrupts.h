// /proc/interrupts as a host's kernel prints it, from the kernel model's interrupt lines.
#pragma once
#include "drivers-sim/kernel/kernel.h"
#include <optional>
#include <string>
#include <vector>

namespace nicsim {

/// The text of /proc/interrupts for kernel architecture `arch` (KernelProfile::arch) with the
/// device lines behind interrupt controller `irq_chip` (IrqIntrospection::irq_chip), from `rows`
/// (Kernel::irq_rows). Only the device lines are listed: the kernel's own lines (timer, LOC, IPI)
/// have no irq_desc[] row on Linux/PPC (the decrementer is an exception, not an irq).
///
/// "ppc": Linux 2.4 arch/ppc/kernel/irq.c get_irq_list (LH@2.4.16): a "CPU<n>" header, then per
/// line "%3d: " (irq = vector on PPC), "%10u " per CPU, " %s " of the PIC driver's typename
/// (open_pic.c: " OpenPIC  "), "Level " or "Edge  " (PCI INTx lines are level, PCI 2.2 §2.2.6),
/// "    " and the handlers' names joined by ", "; last "BAD: %10u" (ppc_spurious_interrupts, 0:
/// the model has no spurious interrupts).
/// Returns std::nullopt for other architectures: an i386 kernel lists IRQ numbers, which the
/// model's vectors (assign_irq_vector) do not give back.
std::optional<std::string> proc_interrupts(const std::vector<Kernel::IrqRow>& rows, const std::string& arch,
                                           const std::string& irq_chip);

}  // namespace nicsim
