#include "platforms/proc_interrupts.h"
#include <fmt/format.h>

namespace nicsim {

namespace {
/// The PIC driver's hw_interrupt_type typename for a controller (Linux 2.4/PPC).
std::string ppc_typename(const std::string& chip) {
  if (chip == "OpenPIC") return " OpenPIC  ";  // LH@2.4.16:arch/ppc/kernel/open_pic.c open_pic_pic
  return chip;
}
}  // namespace

std::optional<std::string> proc_interrupts(const std::vector<Kernel::IrqRow>& rows, const std::string& arch,
                                           const std::string& irq_chip) {
  if (arch != "ppc") return std::nullopt;
  const size_t cpus = rows.empty() ? 1 : rows.front().counts.size();
  std::string s = "           ";
  for (size_t c = 0; c < cpus; ++c) s += fmt::format("CPU{}       ", c);
  s += "\n";
  for (const auto& r : rows) {
    if (r.internal) continue;
    s += fmt::format("{:3d}: ", r.vector);
    for (uint64_t n : r.counts) s += fmt::format("{:10d} ", n);
    s += fmt::format(" {} ", ppc_typename(irq_chip));
    s += "Level ";
    s += "    " + r.label + "\n";
  }
  s += fmt::format("BAD: {:10d}\n", 0);
  return s;
}

}  // namespace nicsim
