// ParamProblem: a load-time problem a component's `check` finds in its scenario values.
#pragma once
#include <string>

namespace nicsim {

/// A problem across several values that per-parameter types and ranges cannot express, found at
/// load time by a registry entry's `check` (PlatformEntry, DeviceEntry, DriverEntry, WorkloadEntry).
/// The loader reports it as a ScenarioError at that key's position, exit 2, instead of a failed run.
struct ParamProblem {
  std::string key;      ///< full dotted scenario key to blame, e.g. "hosts.alpha.irq_dest_cpu", "workload.lower"
  std::string message;  ///< what is wrong, e.g. "CPU 1 does not exist: the host has cpus = 1 (CPUs 0..0)"
  std::string suggestion{};  ///< nearest valid spelling of a misspelt name value ("did you mean"), or ""
};

}  // namespace nicsim
