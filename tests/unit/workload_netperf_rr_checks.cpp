// Load-time checks of the netperf_rr workload (platforms/netperf_rr_workload.cpp) that keep a
// sweep or a typo from producing silently wrong numbers.
#include "platforms/scenario.h"
#include <catch2/catch.hpp>
#include <string>

// This file's own names, apart from the other files of a unity batch.
namespace workload_netperf_rr_checks_test {
using namespace nicsim;

namespace {
const std::string kSeed002 = std::string(NICSIM_SOURCE_DIR) + "/scenarios/seed002/e1000-82544gc-pci66.toml";

std::string load_error(const std::vector<std::string>& sets, std::string* key = nullptr) {
  try {
    load_scenario(kSeed002, sets);
  } catch (const ScenarioError& e) {
    if (key) *key = e.key;
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("netperf_rr: request_bytes while sizes is set is refused, not silently ignored", "[workload][netperf]") {
  std::string key;
  const std::string msg = load_error({"workload.request_bytes=1024"}, &key);
  CHECK(key == "workload.request_bytes");
  CHECK(msg.find("no effect while sizes is set") != std::string::npos);
  CHECK(load_error({"workload.sizes=\"\"", "workload.request_bytes=1024"}).empty());
}

TEST_CASE("netperf_rr: a size listed twice is refused", "[workload][netperf]") {
  std::string key;
  const std::string msg = load_error({"workload.sizes=\"64,1024,64\""}, &key);
  CHECK(key == "workload.sizes");
  CHECK(msg.find("appears twice") != std::string::npos);
}

TEST_CASE("netperf_rr: UDP_RR loads, refuses a datagram past 65507 B and the TCP-only nodelay", "[workload][netperf]") {
  CHECK(load_error({"workload.test=\"UDP_RR\""}).empty());
  std::string key;
  std::string msg = load_error({"workload.test=\"UDP_RR\"", "workload.sizes=\"64,70000\""}, &key);
  CHECK(key == "workload.sizes");
  CHECK(msg.find("65507") != std::string::npos);
  msg = load_error({"workload.test=\"UDP_RR\"", "workload.nodelay=true"}, &key);
  CHECK(key == "workload.nodelay");
  CHECK(msg.find("TCP_RR only") != std::string::npos);
}

TEST_CASE("netperf_rr: an empty size anywhere in the list is refused, a bare number is one size, limits name their key",
          "[workload][netperf]") {
  std::string key;
  CHECK(load_error({"workload.sizes=\"16,32,\""}, &key).find("ends with a comma") != std::string::npos);
  CHECK(key == "workload.sizes");
  CHECK(load_error({"workload.sizes=\"16,,32\""}, &key).find("'' is not a size") != std::string::npos);
  CHECK(load_error({"workload.sizes=64"}).empty());  // a bare number is that one size
  CHECK(load_error({"workload.sizes=\"64 128\""}, &key).find("separate sizes with commas") != std::string::npos);
  CHECK(load_error({"workload.sizes=\"20000000\""}, &key).find("above 16777216") != std::string::npos);
  CHECK(load_error({"workload.test=\"UDP_RR\"", "workload.sizes=\"\"", "workload.request_bytes=65508"}, &key)
            .find("65507") != std::string::npos);
  CHECK(key == "workload.request_bytes");
}

namespace {
std::string load_error_of(const std::string& scenario, const std::vector<std::string>& sets, std::string* key = nullptr) {
  try {
    load_scenario(std::string(NICSIM_SOURCE_DIR) + "/scenarios/seed002/" + scenario, sets);
  } catch (const ScenarioError& e) {
    if (key) *key = e.key;
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("links: an 8255x refuses 1000 Mb/s, and a link without speed_mbps negotiates the highest common speed",
          "[scenario][i8255x]") {
  std::string key;
  const std::string msg = load_error_of("eepro100-82559-pci33.toml", {"links.0.speed_mbps=1000"}, &key);
  CHECK(key == "links.0.speed_mbps");
  CHECK(msg.find("82559") != std::string::npos);
  CHECK(msg.find("10, 100 Mb/s only") != std::string::npos);
  CHECK(load_error_of("eepro100-82559-pci33.toml", {"links.0.speed_mbps=10"}).empty());
  // Without the key: 100 with an 8255x at either end, 1000 between two 8254x.
  const std::string dir = std::string(NICSIM_SOURCE_DIR) + "/scenarios/seed002/";
  auto s = load_scenario(dir + "eepro100-82559-pci33.toml", {"links.0.speed_mbps=100"});
  CHECK(s.links.at(0).speed_mbps == 100);
  auto g = load_scenario(dir + "e1000-82544gc-pci66.toml");
  CHECK(g.links.at(0).speed_mbps == 1000);
}

TEST_CASE("8255x drivers refuse PHY-forcing options the model would ignore", "[scenario][i8255x]") {
  std::string key;
  CHECK(load_error_of("eepro100-82559-pci33.toml", {"hosts.alpha.nics.eth0.options=16"}, &key).find("10 Mb/s full duplex") !=
        std::string::npos);
  CHECK(key == "hosts.alpha.nics.eth0.options");
  CHECK(load_error_of("eepro100-82559-pci33.toml", {"hosts.alpha.nics.eth0.options=48"}).empty());  // 100 FD: as linked
  CHECK(load_error_of("eepro100-82559-pci33.toml", {"hosts.alpha.nics.eth0.full_duplex=0"}, &key).find("half duplex") !=
        std::string::npos);
  CHECK(load_error_of("e100-82559-pci33.toml", {"hosts.beta.nics.eth0.e100_speed_duplex=1"}, &key).find("does not act") !=
        std::string::npos);
  CHECK(key == "hosts.beta.nics.eth0.e100_speed_duplex");
  CHECK(load_error_of("e100-82559-pci33.toml", {"hosts.beta.nics.eth0.e100_speed_duplex=4"}).empty());
  CHECK(load_error_of("e100-82559-pci33.toml", {"hosts.beta.nics.eth0.device=82559"}).empty());  // a bare part number
}

TEST_CASE("netperf_rr: UDP_RR sizes whose fragments no receive buffer can queue are refused at load (bug: they loaded "
          "and stalled until time_limit_s with Udp InErrors)",
          "[workload][netperf]") {
  std::string key;
  // 60000 B to an e1000 receiver: 41 fragments in dev_alloc_skb(2050) buffers of 2240 B truesize.
  std::string msg = load_error({"workload.test=\"UDP_RR\"", "workload.sizes=\"64,60000\""}, &key);
  CHECK(key == "workload.sizes");
  CHECK(msg.find("a 60000 B request arrives at beta.eth0 as 41 fragments") != std::string::npos);
  CHECK(msg.find("the largest request this receiver takes is 42912 B (29 fragments)") != std::string::npos);
  msg = load_error({"workload.test=\"UDP_RR\"", "workload.sizes=\"\"", "workload.request_bytes=64",
                    "workload.response_bytes=42913"},
                   &key);
  CHECK(key == "workload.response_bytes");
  CHECK(msg.find("a 42913 B response arrives at alpha.eth0 as 30 fragments") != std::string::npos);
  CHECK(load_error({"workload.test=\"UDP_RR\"", "workload.sizes=\"64,42912\""}).empty());
  // TCP_RR streams a big message in segments: no such limit.
  CHECK(load_error({"workload.sizes=\"64,60000\""}).empty());
}

}  // namespace workload_netperf_rr_checks_test
