// The per-run context every model reaches: counters, journeys, trace spans and the run's RNG.
// SystemC elaborates once per process, so one run = one process = one context (sweeps run each
// point as its own process).
#pragma once
#include "core/counters.h"
#include "core/journey.h"
#include "core/rng.h"
#include "core/trace.h"

namespace nicsim {

struct SimContext {
  Counters counters;
  JourneyLog journeys;
  TraceLog trace;
  Rng rng{1};
};

/// The process's run context.
SimContext& sim();

}  // namespace nicsim
