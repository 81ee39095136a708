// Frame accounting (platforms/testbed.h account_direction): a direction balances only when every
// frame the link delivered is accepted, held, consumed or dropped with a reason, and the sender's
// count matches the link's.
#include "platforms/testbed.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace frame_accounting_test {
using namespace nicsim;

namespace {
DirectionCounts balanced() {
  DirectionCounts c;
  c.link = "links.0";
  c.from = "alpha.eth1";
  c.to = "beta.eth1";
  c.sender.sent = 100;
  c.carried = 100;
  c.in_flight = 2;
  c.delivered = 98;
  c.receiver.accepted = 90;
  c.receiver.held = {{"in the MAC receive pipeline", 1}};
  c.receiver.consumed = {{"802.3x PAUSE", 2}};
  c.receiver.dropped = {{"RX FIFO overrun (MPC)", 4}, {"address filter", 1}};
  return c;
}
}  // namespace

TEST_CASE("frame accounting: a direction whose frames are all accepted, held, consumed or dropped balances") {
  std::vector<std::string> problems;
  auto j = account_direction(balanced(), problems);
  CHECK(problems.empty());
  CHECK(j["unaccounted"] == 0);
  CHECK(j["dropped"]["RX FIFO overrun (MPC)"] == 4);
  CHECK(j["in_flight"] == 2);
}

TEST_CASE("frame accounting: a frame that vanished, one counted twice, or a sender that disagrees with the link is a problem") {
  {
    auto c = balanced();
    c.receiver.accepted = 89;  // one frame gone without a reason
    std::vector<std::string> problems;
    auto j = account_direction(c, problems);
    CHECK(j["unaccounted"] == 1);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] == "links.0 alpha.eth1 -> beta.eth1: 1 of the 98 frames delivered are not accounted for "
                         "(accepted 89, held 1, consumed 2, dropped 5)");
  }
  {
    auto c = balanced();
    c.receiver.accepted = 91;  // counted twice
    std::vector<std::string> problems;
    CHECK(account_direction(c, problems)["unaccounted"] == -1);
    CHECK(problems.size() == 1);
  }
  {
    auto c = balanced();
    c.sender.sent = 101;
    std::vector<std::string> problems;
    account_direction(c, problems);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] == "links.0 alpha.eth1 -> beta.eth1: the port sent 101 frames, the link carried 100");
  }
  {
    auto c = balanced();
    c.in_flight = 1;  // the link lost one on the wire
    std::vector<std::string> problems;
    account_direction(c, problems);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0] == "links.0 alpha.eth1 -> beta.eth1: the link carried 100 frames but delivered 98 with 1 in flight and 0 lost on the wire");
  }
}

}  // namespace frame_accounting_test
