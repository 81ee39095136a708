// The run's fidelity (docs/fast-mode.md): `exact` (the default: every mechanism as modelled) or
// `fast` (opt-in, for bulk transfers and sweeps: coarser steady-state transactions whose results
// differ from exact by the measured deviations published in docs/fast-mode.md).
//
// The setting is data: a scenario's top-level `fidelity` key (or `nicsim run --fidelity`), stored in
// the Scenario and set here by the run (platforms/run_workload.cpp) before the testbed is built.
// Models read it at construction as a plain parameter (`run_fidelity() == Fidelity::Fast`); each
// coarsening documents what exact does, what fast does instead and why the deviation is small:
//  - models/bus/dma_engine.h: a DMA request's middle bursts take the first one's time, no bus;
//  - models/nic/e1000/e1000.cpp: no FCS over a received frame; drivers-sim/net/wire.cpp: TCP header sum.
// Like the SimContext (core/sim_context.h), one run = one process = one setting.
#pragma once
#include <optional>
#include <string_view>

namespace nicsim {

enum class Fidelity { Exact, Fast };

/// "exact" / "fast".
const char* fidelity_name(Fidelity f);
/// The setting named `s` ("exact", "fast"; exact spelling), or nullopt.
std::optional<Fidelity> parse_fidelity(std::string_view s);
/// The accepted values, for error messages: "exact or fast".
inline constexpr const char* kFidelityValues = "exact or fast";

/// The process's run fidelity (Exact unless set).
Fidelity run_fidelity();
/// Set the run fidelity; models built afterwards read it. Call before building the testbed.
void set_run_fidelity(Fidelity f);

}  // namespace nicsim
