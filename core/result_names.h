// Scenario names in results.
//
// A model names its counters, journey marks (`where`) and trace tracks after its SystemC instance
// name, which the assembly chooses and which cannot contain the scenario's spelling (an instance
// basename may not contain '.'): the NIC "eth1" of host "alpha" is the instance "alpha_eth1" with
// ports "alpha_eth1.port0" / ".port1", the CPUs of host "alpha" are "alpha_cpus.cpu0", ...
// Results use the scenario's names only: "alpha.eth1", "alpha.eth1:1" (port 1, as links and
// workloads name it), "alpha.cpu0", "alpha.p64h2.segB", "link0". The assembly layer (platforms/),
// which knows both, declares each instance's scenario name here; results (result.json counters,
// the explain breakdown's `where`, --trace tracks) translate on output. Models stay unaware of it.
#pragma once
#include <map>
#include <string>
#include <string_view>

namespace nicsim {

class ResultNames {
 public:
  /// Report the model name `model` (and every name below it: `model` followed by '.', ':', '/',
  /// ' ' or the end) as `scenario`. A longer declared model name wins over a shorter one
  /// ("alpha_eth1.port1" over "alpha_eth1"). Re-declaring a model name replaces its scenario name.
  void alias(const std::string& model, const std::string& scenario) { map_[model] = scenario; }
  /// `name` with every declared model name replaced by its scenario name, where a model name
  /// starts the string or follows a '/' or ' ' (so "link0/alpha_eth1.port0" becomes
  /// "link0/alpha.eth1"). A name with no declared part comes back unchanged.
  std::string operator()(std::string_view name) const;
  /// Forget every declaration (a fresh testbed).
  void clear() { map_.clear(); }
  bool empty() const { return map_.empty(); }

 private:
  std::map<std::string, std::string, std::less<>> map_;
};

/// The process's declarations (one testbed per process: SystemC elaborates once).
ResultNames& result_names();

}  // namespace nicsim
