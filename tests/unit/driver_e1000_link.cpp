// e1000 driver model on the real 8254x model, with the cable pulled under it: the LSC interrupt
// brings e1000_watchdog forward to the next tick, which turns the carrier off, and each version
// then treats the frames posted to the TX ring its own way (research/link-faults-failover.md §A5,
// DriverProfile::link_loss_tx): 4.4.12-k1 holds them (the MAC sends them, late, on link-up),
// 5.0.43-k1 flushes them onto a forced link (lost on the wire, counted as sent), 5.6.10.1-k2
// resets the controller (freed).
#include "driver_e1000_harness.h"
#include "core/events.h"
#include "models/ether/link_faults.h"
#include <catch2/catch.hpp>
#include <fmt/format.h>

// This file's own names, apart from the other files of a unity batch.
namespace driver_e1000_link_test {
using namespace drvtest;
using namespace nicsim::e1000drv;

namespace {
const std::array<uint8_t, 6> kPeerMac = {0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E};
// More than the 82546's 16 KB TX packet buffer holds (PBA: 48 KB RX of 64): the frames whose data
// is in the packet buffer have their RS descriptors written back and cleaned; the rest stay posted.
constexpr unsigned kFrames = 40;

KernelParams params_for(const std::string& kernel) {
  return kernel.empty() ? kernel_params("alpha") : napi_params(kernel.c_str());
}

/// One 82546EB port with driver `drv` cabled to a Peer; the cable is pulled at 100 ms and
/// plugged back at 2 s; `kFrames` frames are posted right after the NIC's PHY declared link down
/// (before the watchdog's next tick turns the carrier off), so they sit in the TX ring.
struct Pulled {
  TestHost hw{"alpha"};
  e1000::E1000 nic{"alpha_eth0", e1000::variant("82546EB")};
  Peer peer;
  std::vector<unsigned> vec = hw.attach("pcix", nic);
  EthLink cable{"cable", 1000, 2.0, *nic.eth_port(0), peer};
  Kernel k;
  std::vector<std::shared_ptr<NetDevice>> devs;
  Adapter* a = nullptr;
  sc_time phy_down;
  bool carrier_before = false, carrier_after_tick = true;
  unsigned frames;
  explicit Pulled(const std::string& drv, const std::string& kernel = "", unsigned n = kFrames)
      : k(hw, params_for(kernel)), frames(n) {
    const DriverEntry* de = driver(drv);
    REQUIRE(de);
    devs = de->probe(k, nic, vec, nic_config("alpha", "eth0", "82546EB", de->name), ParamValues(de->params));
    a = dynamic_cast<Adapter*>(devs[0].get());
    LinkFaults(cable).schedule_cable(ms(100), false);
    LinkFaults(cable).schedule_cable(sec(2), true);
    phy_down = ms(100) + phy_timers(1000).link_fail(LinkFaults(cable).master(0));
    k.spawn_process("ifup", ifup());
    at_time(phy_down + us(1), [this] {
      carrier_before = a->carrier_ok();
      k.spawn_process("app", 0, send());
    });
    at_time(phy_down + tick_period(100) * 2, [this] { carrier_after_tick = a->carrier_ok(); });
  }
  Task<void> ifup() { (void)co_await k.dev_open(*devs[0]); }
  Task<void> send() {
    NetDevice& dev = *devs[0];
    for (unsigned i = 0; i < frames; ++i) {
      EthFrame f = make_frame(kPeerMac, dev.dev_addr, 1000, uint8_t(i));
      SkbPtr s = co_await k.alloc_skb(1000);
      std::memcpy(s->put(1000), f.bytes.data(), 1000);
      s->dev = &dev;
      co_await k.dev_queue_xmit(std::move(s));
    }
  }
  const RunEvent* event(const std::string& what) const {
    for (auto& e : run_events().events())
      if (e.what == what && e.at > ms(100)) return &e;
    return nullptr;
  }
};
}  // namespace

TEST_CASE("e1000 4.4.12 link loss: carrier off at the tick after LSC and the ring's frames leave late on link-up", "[e1000drv][faults]") {
  Pulled h("e1000-4.4.12-k1");
  sc_core::sc_start(sec(4));
  CHECK(h.carrier_before);
  CHECK_FALSE(h.carrier_after_tick);
  const RunEvent* off = h.event("carrier off");
  REQUIRE(off);
  CHECK(off->at > h.phy_down);
  CHECK(off->at < h.phy_down + tick_period(100) + us(200));  // mod_timer(watchdog, jiffies): the next tick
  const RunEvent* on = h.event("carrier on");
  REQUIRE(on);
  const sc_time up = sec(2) + phy_timers(1000).link_up;
  CHECK(on->at > up);
  CHECK(on->at < up + tick_period(100) + us(200));
  // Held in the ring while the MAC was disabled, sent when the PHY came back.
  REQUIRE(h.peer.rx.size() == kFrames);
  CHECK(h.peer.rx[0].t > up);
  CHECK(h.peer.rx[0].t < up + us(100));
  CHECK(LinkFaults::lost(h.cable, 0) == 0);
  CHECK(h.a->carrier_ok());
  // What the user reads: 4.4.12-k1 answers no ETHTOOL_GSTATS; its proc file has the counters the
  // watchdog last accumulated, "%-32.32s %s" per line.
  CHECK(h.a->ethtool_stats_text() == "no stats available\n");
  const std::string info = h.a->proc_pro_lan_info();
  CHECK(info.rfind("Link                             up\n"
                   "Speed                            1000\n"
                   "Duplex                           Full\n"
                   "State                            up\n"
                   "\n"
                   "Rx_Packets                       ",
                   0) == 0);
  CHECK(info.find(fmt::format("\nTx_Packets                       {}\n", h.a->hw_stats().gptc)) != std::string::npos);
  CHECK(info.find("\nRx_CRC_Errors                    0\n") != std::string::npos);
  CHECK(info.substr(info.size() - 2) == "\n\n");  // e1000_proc_read's extra newline
}

TEST_CASE("e1000 5.0.43 link loss: e1000_tx_flush sends the ring's frames onto a forced link where they are lost", "[e1000drv][faults]") {
  // Five frames: all in the TX packet buffer when the flush forces the link. (With more than it
  // holds, only the packet buffer's went out during the 10 ms in a trial: open question.)
  Pulled h("e1000-5.0.43-k1", "", 5);
  sc_core::sc_start(sec(4));
  CHECK_FALSE(h.carrier_after_tick);
  CHECK(LinkFaults::lost(h.cable, 0) == 5);  // onto the dead wire
  CHECK(h.peer.rx.empty());
  CHECK(sim().counters.get("alpha.eth0.driver.tx_flushed") > 0);
  CHECK(sim().counters.get("alpha_eth0.port0.GPTC") >= 5);  // counted as sent by the MAC
  REQUIRE(h.event("TX ring flushed"));
  CHECK(h.a->carrier_ok());  // the watchdog saw the link back after the replug
  // ethtool -S: the 21 struct net_device_stats names in the struct's order, ethtool's layout.
  const std::string s = h.a->ethtool_stats_text();
  std::string names;
  for (size_t b = s.find('\n') + 1, e; b < s.size(); b = e + 1) {
    e = s.find('\n', b);
    REQUIRE(s.compare(b, 5, "     ") == 0);
    names += s.substr(b + 5, s.find(':', b) - b - 5) + " ";
  }
  CHECK(s.rfind("NIC statistics:\n     rx_packets: ", 0) == 0);
  CHECK(names ==
        "rx_packets tx_packets rx_bytes tx_bytes rx_errors tx_errors rx_dropped tx_dropped multicast collisions "
        "rx_length_errors rx_over_errors rx_crc_errors rx_frame_errors rx_fifo_errors rx_missed_errors "
        "tx_aborted_errors tx_carrier_errors tx_fifo_errors tx_heartbeat_errors tx_window_errors ");
  CHECK(s.find(fmt::format("\n     tx_packets: {}\n", h.a->hw_stats().gptc)) != std::string::npos);
  CHECK(h.a->hw_stats().gptc >= 5);
  CHECK(h.a->proc_pro_lan_info().empty());  // 5.0.43 has no PRO_LAN_Adapters file here
}

TEST_CASE("e1000 5.6.10.1 link loss: the watchdog resets the controller and frees the ring's frames", "[e1000drv][faults]") {
  Pulled h("e1000-5.6.10.1-k2", "linux-2.6.11-i386");
  sc_core::sc_start(sec(4));
  CHECK_FALSE(h.carrier_after_tick);
  const uint64_t freed = sim().counters.get("alpha.eth0.driver.tx_ring_reset_freed");
  const uint64_t fifo = sim().counters.get("alpha_eth0.port0.tx_dropped_reset");
  CHECK(freed > 0);
  CHECK(fifo > 0);
  CHECK(freed + fifo == kFrames);  // the ring's freed by e1000_down, the packet buffer's lost with CTRL.RST
  REQUIRE(h.event("TX ring reset"));
  CHECK(h.peer.rx.empty());
  CHECK(LinkFaults::lost(h.cable, 0) == 0);
  CHECK(h.a->carrier_ok());  // e1000_up, then the link back after the replug
}

}  // namespace driver_e1000_link_test
