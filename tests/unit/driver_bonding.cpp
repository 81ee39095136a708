// The Linux 2.4.20 bonding driver model (drivers-sim/drivers/bonding) on the kernel model with
// fake slave net_devices: balance-rr's strict alternation (bond_xmit_roundrobin), the bond's
// noqueue (tx_queue_len 0) over each slave's own pfifo_fast, skb->priority = 1, the MAC address
// from the first slave (bond_sethwaddr) and ifenslave's SIOCSIFHWADDR of the others, skb_bond on
// receive, IS_UP, active-backup fail-over by miimon, balance-xor's slave choice, mode names.
#include "drivers-sim/drivers/bonding/bonding.h"
#include "core/events.h"
#include "core/sim_context.h"
#include "kernel_fake_host.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace driver_bonding_test {
using namespace nicsim;
using namespace nicsim::test;
using namespace nicsim::bonding;

namespace {

/// A slave with an endless TX ring: records the id (byte 20) and priority of every frame it sends.
/// Default set_mac_address (eth_mac_addr: -EBUSY while up); optional MII link status.
struct SlaveDev : NetDevice {
  std::vector<int> sent_ids;
  std::vector<uint32_t> priorities;
  int mii = -95;  ///< mii_link_status(): -EOPNOTSUPP (no MII ioctl), else 1/0
  int opens = 0, stops = 0;
  SlaveDev(Kernel& k, std::string n, uint8_t last) : NetDevice(k, std::move(n)) {
    dev_addr = {0, 2, 0xb3, 1, 2, last};
    netif_carrier_on();
  }
  Task<int> open() override {
    ++opens;
    netif_start_queue();
    co_return 0;
  }
  Task<int> stop() override {
    ++stops;
    co_return 0;
  }
  Task<int> hard_start_xmit(SkbPtr& skb) override {
    sent_ids.push_back(skb->data()[20]);
    priorities.push_back(skb->priority);
    co_await kernel().kfree_skb(std::move(skb));
    co_return 0;
  }
  int mii_link_status() override { return mii; }
};

SkbPtr frame_to(Kernel& k, const std::array<uint8_t, 6>& dst, int id) {
  SkbPtr s = k.make_skb(64);
  uint8_t* p = s->put(60);
  std::copy(dst.begin(), dst.end(), p);
  p[12] = 0x08;
  p[13] = 0x00;
  p[20] = static_cast<uint8_t>(id);
  return s;
}

struct Bench {
  FakeHost hw;
  Kernel k;
  SlaveDev a, b;
  Bonding bond;
  int rc_a = 99, rc_b = 99;
  explicit Bench(BondParams bp = {}, bool tick = false)
      : k(hw, bench_params(1, tick)), a(k, "eth1", 0x11), b(k, "eth2", 0x22), bond(k, "bond0", bp) {
    k.register_netdev(a);
    k.register_netdev(b);
    k.register_netdev(bond);
  }
  /// ifup eth1, eth2; ifconfig bond0 up; ifenslave bond0 eth1 eth2.
  Task<void> ifup() {
    (void)co_await k.dev_open(a);
    (void)co_await k.dev_open(b);
    (void)co_await k.dev_open(bond);
    rc_a = co_await ifenslave(bond, a);
    rc_b = co_await ifenslave(bond, b);
  }
  Task<void> send(int first, int n, std::array<uint8_t, 6> dst) {
    for (int i = first; i < first + n; ++i) {
      SkbPtr s = frame_to(k, dst, i);
      s->dev = &bond;
      (void)co_await k.dev_queue_xmit(std::move(s));
    }
  }
};

}  // namespace

TEST_CASE("bonding balance-rr: strict per-packet alternation, noqueue bond over per-slave pfifo_fast, MAC of the "
          "first slave",
          "[bonding]") {
  Bench t;
  const auto mac_a = t.a.dev_addr;
  CHECK(t.bond.tx_queue_len == 0);  // bond_init
  CHECK(t.a.tx_queue_len == 100);   // ether_setup
  auto main = [&]() -> Task<void> {
    co_await t.ifup();
    co_await t.send(0, 7, {0, 2, 0xb3, 9, 9, 9});
  };
  t.k.spawn_process("ifenslave", 0, main());
  sc_core::sc_start(us(200));
  CHECK(t.rc_a == 0);
  CHECK(t.rc_b == 0);
  CHECK(t.bond.dev_addr == mac_a);  // bond_sethwaddr from the first slave
  CHECK(t.b.dev_addr == mac_a);     // ifenslave SIOCSIFHWADDR on the second
  // eth_mac_addr refuses while up: ifenslave took eth2 down and up again.
  CHECK(t.b.stops == 1);
  CHECK(t.b.opens == 2);
  CHECK(t.a.stops == 0);
  CHECK(t.a.master == &t.bond);
  CHECK(t.b.master == &t.bond);
  // current_slave starts at the first slave and moves to slave->next after every frame.
  CHECK(t.a.sent_ids == std::vector<int>{0, 2, 4, 6});
  CHECK(t.b.sent_ids == std::vector<int>{1, 3, 5});
  CHECK(t.a.priorities == std::vector<uint32_t>(4, 1));  // skb->priority = 1
  CHECK(t.bond.current_slave() == 1);
  CHECK(t.bond.qdisc_len() == 0);
  CHECK(sim().counters.get("alpha.bond0.eth1.tx_packets") == 4);
  CHECK(sim().counters.get("alpha.bond0.eth2.tx_packets") == 3);
  CHECK(t.bond.tx_no_slave() == 0);
}

TEST_CASE("bonding: a slave without carrier is skipped (IS_UP), skb_bond hands received packets to the protocols as "
          "the bond's",
          "[bonding]") {
  Bench t;
  NetDevice* seen = nullptr;
  int got = 0;
  t.k.dev_add_pack(ETH_P_IP, [&](SkbPtr skb, NetDevice* dev) -> Task<int> {
    seen = dev;
    ++got;
    co_await t.k.kfree_skb(std::move(skb));
    co_return NET_RX_SUCCESS;
  });
  auto main = [&]() -> Task<void> {
    co_await t.ifup();
    t.b.netif_carrier_off();
    co_await t.send(0, 4, {0, 2, 0xb3, 9, 9, 9});
    // A frame received on the second slave: eth_type_trans on the slave, then netif_receive_skb.
    SkbPtr s = frame_to(t.k, t.b.dev_addr, 40);
    t.k.eth_type_trans(*s, t.b);
    CHECK(s->pkt_type == PACKET_HOST);  // addressed to the bond's MAC, which eth2 now has
    (void)co_await t.k.netif_receive_skb(std::move(s));
  };
  t.k.spawn_process("p", 0, main());
  sc_core::sc_start(us(200));
  CHECK(t.a.sent_ids == std::vector<int>{0, 1, 2, 3});
  CHECK(t.b.sent_ids.empty());
  CHECK(got == 1);
  CHECK(seen == &t.bond);
}

TEST_CASE("bonding active-backup: one active slave, miimon finds its link down and fails over to the backup",
          "[bonding]") {
  BondParams bp;
  bp.mode = BondMode::active_backup;
  bp.miimon_ms = 100;  // 10 jiffies at HZ = 100
  Bench t(bp, true);
  t.a.mii = 1;
  t.b.mii = 1;
  auto main = [&]() -> Task<void> {
    co_await t.ifup();
    co_await t.send(0, 3, {0, 2, 0xb3, 9, 9, 9});
    t.a.mii = 0;  // eth1's PHY loses link
    WaitQueue wq;
    (void)co_await t.k.schedule_timeout(wq, 25);  // 250 ms: at least two monitor runs
    co_await t.send(3, 3, {0, 2, 0xb3, 9, 9, 9});
  };
  t.k.spawn_process("p", 0, main());
  sc_core::sc_start(ms(400));
  CHECK(t.a.sent_ids == std::vector<int>{0, 1, 2});
  CHECK(t.b.sent_ids == std::vector<int>{3, 4, 5});
  REQUIRE(t.bond.slaves().size() == 2);
  CHECK(t.bond.slaves()[0].link == SlaveLink::down);
  CHECK(t.bond.slaves()[0].state == SlaveState::backup);
  CHECK(t.bond.slaves()[0].link_failure_count == 1);
  CHECK(t.bond.slaves()[1].state == SlaveState::active);
  CHECK(t.bond.current_slave() == 1);
}

namespace {
/// The uncabled port of the scenarios: eth1 has no carrier and its BMSR link bit clear from before
/// enslaving, eth2 has link. After ifup, 250 ms (monitor runs, if any), then four frames.
struct FirstSlaveDown {
  std::vector<int> on_a, on_b;
  int current = -2;
  FirstSlaveDown(BondMode mode, int miimon) {
    BondParams bp;
    bp.mode = mode;
    bp.miimon_ms = miimon;
    Bench t(bp, true);
    t.a.mii = 0;
    t.b.mii = 1;
    t.a.netif_carrier_off();
    auto main = [&]() -> Task<void> {
      co_await t.ifup();
      WaitQueue wq;
      (void)co_await t.k.schedule_timeout(wq, 25);
      co_await t.send(0, 4, {0, 2, 0xb3, 9, 9, 9});
    };
    t.k.spawn_process("p", 0, main());
    sc_core::sc_start(ms(400));
    on_a = t.a.sent_ids;
    on_b = t.b.sent_ids;
    current = t.bond.current_slave();
  }
};
}  // namespace

TEST_CASE("bonding active-backup, miimon 100, first slave without link from the start: enslaved with its link down "
          "(bond_check_dev_link), the second is active (bug report: never failed over)",
          "[bonding]") {
  FirstSlaveDown r(BondMode::active_backup, 100);
  CHECK(r.on_a.empty());
  CHECK(r.on_b == std::vector<int>{0, 1, 2, 3});
  CHECK(r.current == 1);
}

TEST_CASE("bonding balance-rr, miimon 0, first slave without link from the start: IS_UP skips it", "[bonding]") {
  FirstSlaveDown r(BondMode::balance_rr, 0);
  CHECK(r.on_a.empty());
  CHECK(r.on_b == std::vector<int>{0, 1, 2, 3});
}

TEST_CASE("bonding active-backup, miimon 0, first slave without link: 2.4.20 keeps it active for good and "
          "bond_xmit_activebackup sends into it (the scenario loader refuses this when it has no cable)",
          "[bonding]") {
  FirstSlaveDown r(BondMode::active_backup, 0);
  CHECK(r.on_a == std::vector<int>{0, 1, 2, 3});
  CHECK(r.on_b.empty());
  CHECK(r.current == 0);
}

TEST_CASE("bonding balance-xor: slave (h_dest 5 ^ dev_addr 5) % slave_cnt, counted back from the last enslaved",
          "[bonding]") {
  BondParams bp;
  bp.mode = BondMode::balance_xor;
  Bench t(bp);
  // Both slaves carry the first slave's MAC (..:11) after ifenslave: 0x11 ^ 0x10 = 1 -> slave_no 1
  // -> one step back from the last (eth2): eth1; 0x11 ^ 0x11 = 0 -> eth2.
  auto main = [&]() -> Task<void> {
    co_await t.ifup();
    co_await t.send(0, 2, {0, 2, 0xb3, 9, 9, 0x10});
    co_await t.send(2, 2, {0, 2, 0xb3, 9, 9, 0x11});
  };
  t.k.spawn_process("p", 0, main());
  sc_core::sc_start(us(200));
  CHECK(t.a.sent_ids == std::vector<int>{0, 1});
  CHECK(t.b.sent_ids == std::vector<int>{2, 3});
}

TEST_CASE("bonding: enslave refuses a down slave and a slave of another bond, a bond without slaves drops",
          "[bonding]") {
  Bench t;
  Bonding other(t.k, "bond1", {});
  int down_rc = 0, busy_rc = 0;
  auto main = [&]() -> Task<void> {
    down_rc = t.bond.enslave(t.a);  // not up: -EINVAL
    (void)co_await t.k.dev_open(t.bond);
    co_await t.send(0, 2, {0, 2, 0xb3, 9, 9, 9});  // no slave: freed
    co_await t.ifup();
    busy_rc = other.enslave(t.a);  // already eth1's master is bond0: -EBUSY
  };
  t.k.spawn_process("p", 0, main());
  sc_core::sc_start(us(200));
  CHECK(down_rc == -22);
  CHECK(busy_rc == -16);
  CHECK(t.bond.tx_no_slave() == 2);
  CHECK(t.a.sent_ids.empty());
}

TEST_CASE("bonding: modes by number or name, later drivers' modes refused by name", "[bonding]") {
  BondMode m{};
  CHECK(parse_bond_mode("0", &m));
  CHECK(m == BondMode::balance_rr);
  CHECK(parse_bond_mode("active-backup", &m));
  CHECK(m == BondMode::active_backup);
  CHECK(parse_bond_mode("2", &m));
  CHECK(m == BondMode::balance_xor);
  CHECK_FALSE(parse_bond_mode("802.3ad", &m));
  CHECK(bond_mode_problem("balance-rr").empty());
  CHECK_THAT(bond_mode_problem("4"), Catch::Contains("802.3ad") && Catch::Contains("not in Linux 2.4.20"));
  CHECK_THAT(bond_mode_problem("balance-alb"), Catch::Contains("not in Linux 2.4.20"));
  CHECK_THAT(bond_mode_problem("roundrobin"), Catch::Contains("not a bonding mode"));
  ParamValues v(bonding_param_schema());
  CHECK(bond_params_from(v).mode == BondMode::balance_rr);  // static int mode = BOND_MODE_ROUNDROBIN
  CHECK(bond_params_from(v).miimon_ms == 0);                // BOND_LINK_MON_INTERV
}

TEST_CASE("bonding active-backup downdelay and updelay: counted in miimon ticks and no failback when the old slave returns",
          "[bonding][faults]") {
  // bonding.c 2.4.20 (research/link-faults-failover.md §A7): bond_init divides downdelay and
  // updelay by miimon; a lost link goes FAIL and is "definitely down" once the delay has counted
  // down, a returning one BACK and "definitely up" after updelay; active-backup sticks to the new
  // slave (no failback).
  BondParams bp;
  bp.mode = BondMode::active_backup;
  bp.miimon_ms = 100;
  bp.downdelay_ms = 200;
  bp.updelay_ms = 300;
  Bench t(bp, true);
  t.a.mii = 1;
  t.b.mii = 1;
  sc_time lost_at, back_at;
  auto main = [&]() -> Task<void> {
    co_await t.ifup();
    co_await t.send(0, 2, {0, 2, 0xb3, 9, 9, 9});
    WaitQueue wq;
    (void)co_await t.k.schedule_timeout(wq, 15);
    t.a.mii = 0;
    lost_at = now();
    (void)co_await t.k.schedule_timeout(wq, 50);
    co_await t.send(2, 2, {0, 2, 0xb3, 9, 9, 9});
    t.a.mii = 1;
    back_at = now();
    (void)co_await t.k.schedule_timeout(wq, 60);
    co_await t.send(4, 2, {0, 2, 0xb3, 9, 9, 9});
  };
  t.k.spawn_process("p", 0, main());
  sc_core::sc_start(sec(2));
  auto at = [](const std::string& what) {
    for (auto& e : run_events().events())
      if (e.what == what && e.where == "alpha.bond0") return e.at;
    return sc_core::SC_ZERO_TIME;
  };
  const sc_time tick = ms(100);
  const sc_time down = at("slave link down");
  REQUIRE(down > lost_at);
  CHECK(down > lost_at + tick * 2.0);   // FAIL, then two ticks of downdelay
  CHECK(down <= lost_at + tick * 3.0 + ms(10));
  CHECK(at("active slave changed") == down);
  const sc_time up = at("slave link up");
  REQUIRE(up > back_at);
  CHECK(up > back_at + tick * 3.0);  // BACK, then three ticks of updelay
  CHECK(up <= back_at + tick * 4.0 + ms(10));
  CHECK(t.bond.current_slave() == 1);  // sticky: eth2 stays active
  CHECK(t.a.sent_ids == std::vector<int>{0, 1});
  CHECK(t.b.sent_ids == std::vector<int>{2, 3, 4, 5});
  CHECK(at("first frame on the new path") > down);
}

TEST_CASE("bonding /proc/net/bond0/info as 2.4.20 bond_get_info prints it: delays in miimon ticks, slaves from the "
          "last enslaved, the failed slave down with its failure counted",
          "[bonding][faults]") {
  // research/link-faults-failover.md §A7: "updelay=5000, miimon=100 shows Up Delay (ms): 50".
  BondParams bp;
  bp.mode = BondMode::active_backup;
  bp.miimon_ms = 100;
  bp.updelay_ms = 5000;
  bp.downdelay_ms = 200;
  Bench t(bp, true);
  t.a.mii = 1;
  t.b.mii = 1;
  std::string before;
  auto main = [&]() -> Task<void> {
    co_await t.ifup();
    before = proc_net_bond_info(host_bonds(t.k));
    t.a.mii = 0;  // eth1 loses link: FAIL, two ticks of downdelay, then DOWN and the switch
    WaitQueue wq;
    (void)co_await t.k.schedule_timeout(wq, 50);
  };
  t.k.spawn_process("p", 0, main());
  sc_core::sc_start(ms(700));
  CHECK(before ==
        "Bonding Mode: active-backup\n"
        "Currently Active Slave: eth1\n"
        "MII Status: up\n"
        "MII Polling Interval (ms): 100\n"
        "Up Delay (ms): 50\n"
        "Down Delay (ms): 2\n"
        "\n"
        "Slave Interface: eth2\n"
        "MII Status: up\n"
        "Link Failure Count: 0\n"
        "\n"
        "Slave Interface: eth1\n"
        "MII Status: up\n"
        "Link Failure Count: 0\n");
  const std::string after =
      "Bonding Mode: active-backup\n"
      "Currently Active Slave: eth2\n"
      "MII Status: up\n"
      "MII Polling Interval (ms): 100\n"
      "Up Delay (ms): 50\n"
      "Down Delay (ms): 2\n"
      "\n"
      "Slave Interface: eth2\n"
      "MII Status: up\n"
      "Link Failure Count: 0\n"
      "\n"
      "Slave Interface: eth1\n"
      "MII Status: down\n"
      "Link Failure Count: 1\n";
  CHECK(proc_net_bond_info(host_bonds(t.k)) == after);
  // The event log keeps the file as it read at the switch.
  const RunEvent* sw = nullptr;
  for (auto& e : run_events().events())
    if (e.what == "active slave changed" && e.where == "alpha.bond0") sw = &e;
  REQUIRE(sw);
  CHECK(sw->view_path == "/proc/net/bond0/info");
  CHECK(sw->view == after);
}

TEST_CASE("bonding /proc/net/bond0/info in balance-rr without miimon: no active slave line, delays as given",
          "[bonding][faults]") {
  BondParams bp;
  bp.updelay_ms = 300;  // not divided: bond_init divides only when miimon > 0
  Bench t(bp);
  auto main = [&]() -> Task<void> { co_await t.ifup(); };
  t.k.spawn_process("p", 0, main());
  sc_core::sc_start(ms(10));
  CHECK(t.bond.proc_info_block() ==
        "Bonding Mode: load balancing (round-robin)\n"
        "MII Status: up\n"
        "MII Polling Interval (ms): 0\n"
        "Up Delay (ms): 300\n"
        "Down Delay (ms): 0\n"
        "\n"
        "Slave Interface: eth2\n"
        "MII Status: up\n"
        "Link Failure Count: 0\n"
        "\n"
        "Slave Interface: eth1\n"
        "MII Status: up\n"
        "Link Failure Count: 0\n");
}

}  // namespace driver_bonding_test
