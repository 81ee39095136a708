// core/result_names.h: model instance names reported under the scenario's names.
#include "core/result_names.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace core_result_names_test {

using nicsim::ResultNames;

TEST_CASE("ResultNames: NIC ports and CPUs under scenario names, longest declaration first", "[core]") {
  ResultNames n;
  CHECK(n("alpha_eth1.port0.interrupts") == "alpha_eth1.port0.interrupts");  // nothing declared
  n.alias("alpha_eth1", "alpha.eth1");
  n.alias("alpha_eth1.port0", "alpha.eth1");
  n.alias("alpha_eth1.port1", "alpha.eth1:1");
  n.alias("alpha_cpus", "alpha");
  CHECK(n("alpha_eth1.port0.interrupts") == "alpha.eth1.interrupts");
  CHECK(n("alpha_eth1.port1.moderation.ITR") == "alpha.eth1:1.moderation.ITR");
  CHECK(n("alpha_eth1.port1") == "alpha.eth1:1");
  CHECK(n("alpha_eth1.GPRC") == "alpha.eth1.GPRC");
  CHECK(n("alpha_cpus.cpu0") == "alpha.cpu0");
  CHECK(n("link0/alpha_eth1.port0") == "link0/alpha.eth1");  // a trace track: after '/'
  CHECK(n("alpha_eth1.port0 INTx") == "alpha.eth1 INTx");
  // Only whole names: a longer instance name or a name in the middle of a word is left alone.
  CHECK(n("alpha_eth10.port0") == "alpha_eth10.port0");
  CHECK(n("xalpha_eth1.port0") == "xalpha_eth1.port0");
  CHECK(n("alpha.cpu0") == "alpha.cpu0");
  n.clear();
  CHECK(n("alpha_cpus.cpu0") == "alpha_cpus.cpu0");
}

}  // namespace core_result_names_test
