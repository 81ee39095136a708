#include "core/fidelity.h"

namespace nicsim {

namespace {
Fidelity g_fidelity = Fidelity::Exact;
}

const char* fidelity_name(Fidelity f) { return f == Fidelity::Fast ? "fast" : "exact"; }

std::optional<Fidelity> parse_fidelity(std::string_view s) {
  if (s == "exact") return Fidelity::Exact;
  if (s == "fast") return Fidelity::Fast;
  return std::nullopt;
}

Fidelity run_fidelity() { return g_fidelity; }
void set_run_fidelity(Fidelity f) { g_fidelity = f; }

}  // namespace nicsim
