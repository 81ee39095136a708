// The e1000 2.6 drivers on a NAPI kernel (drivers-sim/drivers/e1000/e1000_napi.cpp) with the real
// 8254x model and a link peer: e1000_intr masks (IMC) and schedules, e1000_clean delivers through
// netif_receive_skb and leaves polling by each version's rule, and 6.0.60's flow-control default as
// e1000_setup_link leaves FCRTH; 6.2.15's RX copybreak (and its copybreak=0 switch) and its flow
// control on by default.
#include "driver_e1000_harness.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace driver_e1000_napi_test {
using namespace drvtest;
using namespace nicsim::e1000drv;

namespace {
const std::array<uint8_t, 6> kPeerMac = {0x00, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E};


/// One 82546EB port (port 0) with a 2.6 driver on a 2.6 kernel, opened at time 0, cabled to a Peer.
struct NapiHost {
  TestHost hw{"alpha"};
  e1000::E1000 nic{"alpha_eth0", e1000::variant("82546EB")};
  Peer peer;
  std::vector<unsigned> vec = hw.attach("pcix", nic);
  EthLink cable{"cable", 1000, 2.0, *nic.eth_port(0), peer};
  Kernel k;
  std::vector<std::shared_ptr<NetDevice>> devs;
  Adapter* a = nullptr;
  std::vector<std::vector<uint8_t>> got;  ///< skb data after eth_type_trans
  NapiHost(const std::string& driver_name, const char* kernel, ParamValues* pv_in = nullptr)
      : k(hw, napi_params(kernel)) {
    const DriverEntry* de = driver(driver_name);
    REQUIRE(de);
    ParamValues pv = pv_in ? *pv_in : ParamValues(de->params);
    devs = de->probe(k, nic, vec, nic_config("alpha", "eth0", "82546EB", de->name), pv);
    a = dynamic_cast<Adapter*>(devs[0].get());
    k.dev_add_pack(ETH_P_IP, [this](SkbPtr skb, NetDevice*) -> Task<int> {
      got.emplace_back(skb->data(), skb->data() + skb->len);
      co_await k.kfree_skb(std::move(skb));
      co_return NET_RX_SUCCESS;
    });
    k.spawn_process("ifup", ifup());  // a member coroutine: a lambda's captures would die with this scope
  }
  Task<void> ifup() { (void)co_await k.dev_open(*devs[0]); }
  std::vector<EthFrame> sent;  ///< what send() put on the wire, built when it is sent
  /// `n` frames of `len0`, `len0`+1, ... bytes to the host at `t`, back to back. The frames are made
  /// at `t`: the station address (dev_addr) is read by the probe process once the simulation runs.
  void send(sc_time t, unsigned n, unsigned len0) {
    at_time(t, [this, n, len0] {
      for (unsigned i = 0; i < n; ++i) {
        sent.push_back(make_frame(devs[0]->dev_addr, kPeerMac, len0 + i, uint8_t(5 * i)));
        peer.end->transmit(sent.back(), now());
      }
    });
  }
  uint64_t counter(const char* what) const { return sim().counters.get(std::string("alpha.eth0.driver.") + what); }
  void check_got() const {
    const std::vector<EthFrame>& fs = sent;
    REQUIRE(!fs.empty());
    REQUIRE(got.size() == fs.size());
    for (size_t i = 0; i < fs.size(); ++i)
      CHECK(got[i] == std::vector<uint8_t>(fs[i].bytes.begin() + 14, fs[i].bytes.end()));
  }
};
/// Driver `name`'s module parameters at their defaults, with `key` = `v`.
ParamValues params_with(const char* name, const char* key, int64_t v) {
  const DriverEntry* de = driver(name);
  REQUIRE(de);
  ParamValues pv(de->params);
  pv.set(key, v);
  return pv;
}
}  // namespace

TEST_CASE("e1000 6.0.60-k2 NAPI: e1000_intr masks with IMC and schedules, e1000_clean delivers every frame and "
          "leaves polling only after a poll with TX and RX idle, then unmasks with IMS",
          "[e1000drv][napi]") {
  NapiHost h("e1000-6.0.60-k2", "linux-2.6.14-i386");
  h.send(ms(20), 20, 60);
  sc_core::sc_start(ms(30));
  h.check_got();
  const uint64_t polls = h.counter("napi_polls"), exits = h.counter("napi_complete");
  CHECK(exits >= 1);
  // Every poll that delivered frames stays on the poll_list (work_done > 0): one more, empty, poll ends it.
  CHECK(polls > exits);
  const auto imc = h.hw.writes(h.nic.bar(0) + E1000_IMC, ms(20));
  CHECK(std::count(imc.begin(), imc.end(), ~0u) >= 1);
  CHECK(!h.hw.writes(h.nic.bar(0) + E1000_IMS, ms(20)).empty());
  CHECK(h.k.poll_list(0).empty());
  CHECK(h.a->rx_ring_state().next_to_clean == 20);
}

TEST_CASE("e1000 5.6.10.1-k2 NAPI: with no TX to clean every poll leaves polling (!tx_cleaned), so polls equal "
          "completions",
          "[e1000drv][napi]") {
  NapiHost h("e1000-5.6.10.1-k2", "linux-2.6.11-i386");
  h.send(ms(20), 20, 60);
  sc_core::sc_start(ms(30));
  h.check_got();
  CHECK(h.counter("napi_polls") >= 1);
  CHECK(h.counter("napi_polls") == h.counter("napi_complete"));
}

TEST_CASE("e1000 6.0.60-k2 flow control off by default: original_fc never set, e1000_setup_link writes FCRTH 0",
          "[e1000drv][napi]") {
  NapiHost h("e1000-6.0.60-k2", "linux-2.6.14-i386");
  sc_core::sc_start(ms(5));
  CHECK(h.nic.peek(0, e1000::FCRTH) == 0);
}

TEST_CASE("e1000 6.2.15 RX copybreak (default 256): every frame shorter than 256 bytes is copied into a new "
          "skb and its ring buffer kept for the refill; every frame delivered intact",
          "[e1000drv][napi]") {
  NapiHost h("e1000-6.2.15", "linux-2.6.14-i386");
  h.send(ms(20), 20, 60);  // 60..79-byte frames: all below 256
  sc_core::sc_start(ms(30));
  h.check_got();
  CHECK(h.counter("rx_copybreak") == 20);
  CHECK(h.a->rx_ring_state().next_to_clean == 20);
}

TEST_CASE("e1000 6.2.15 copybreak=0 (copybreak commented out): no frame is copied, every frame delivered",
          "[e1000drv][napi]") {
  ParamValues pv = params_with("e1000-6.2.15", "copybreak", 0);
  NapiHost h("e1000-6.2.15", "linux-2.6.14-i386", &pv);
  h.send(ms(20), 20, 60);
  sc_core::sc_start(ms(30));
  h.check_got();
  CHECK(h.counter("rx_copybreak") == 0);
}

TEST_CASE("e1000 6.2.15 flow control on by default: original_fc set from the EEPROM, e1000_setup_link writes a "
          "nonzero FCRTH (XON enabled) where 6.0.60 writes 0",
          "[e1000drv][napi]") {
  NapiHost h("e1000-6.2.15", "linux-2.6.14-i386");
  sc_core::sc_start(ms(5));
  CHECK(h.nic.peek(0, e1000::FCRTH) != 0);
}

TEST_CASE("e1000 6.2.15 prefetch: e1000_clean_rx_irq starts each frame's first line early, so its load is no "
          "longer a demand miss",
          "[e1000drv][napi][prefetch]") {
  NapiHost h("e1000-6.2.15", "linux-2.6.14-i386");
  h.hw.snoop_dma = true;
  h.send(ms(20), 20, 60);
  sc_core::sc_start(ms(30));
  h.check_got();
  // The driver loads the same 45 lines the NIC wrote as with prefetch=0 (the next test): each
  // frame's first line (prefetch(skb->data - NET_IP_ALIGN)) and some descriptor lines
  // (prefetch(next_rxd) where the next descriptor's line is not the one just read) are fetched
  // early instead of by a demand miss, one for one. The second line of each frame's copy comes
  // with the first in its 128-byte read sector (adjacent_line_fills), as without prefetch.
  CHECK(sim().counters.get("alpha.cpu0.prefetches") >= 20);
  // Every one of the 45 lines is fetched once, by a demand miss, a prefetch or behind another line of
  // its sector; the prefetches of the next descriptor and the next buffer after the last frame
  // fetch up to two lines nobody loads (here one).
  const uint64_t fetched = sim().counters.get("alpha.cpu0.dma_line_misses") + sim().counters.get("alpha.cpu0.prefetches") +
                           sim().counters.get("alpha.cpu0.adjacent_line_fills");
  CHECK(fetched >= 45);
  CHECK(fetched <= 47);
  CHECK(sim().counters.get("alpha.cpu0.dma_line_misses") <= 5);  // 2 as shipped: the prefetches hide the rest
}

TEST_CASE("e1000 6.2.15 prefetch=0 (the prefetch calls commented out): no prefetch, every frame's first line a "
          "demand miss",
          "[e1000drv][napi][prefetch]") {
  ParamValues pv = params_with("e1000-6.2.15", "prefetch", 0);
  NapiHost h("e1000-6.2.15", "linux-2.6.14-i386", &pv);
  h.hw.snoop_dma = true;
  h.send(ms(20), 20, 60);
  sc_core::sc_start(ms(30));
  h.check_got();
  CHECK(sim().counters.get("alpha.cpu0.prefetches") == 0);
  // 20 frames of 60-79 bytes copied from skb->data - 2 (the copybreak's memcpy reads two lines of
  // each, one 128-byte read sector: one demand miss, the second line fetched behind it) and the
  // descriptor lines the NIC wrote back.
  CHECK(sim().counters.get("alpha.cpu0.dma_line_misses") + sim().counters.get("alpha.cpu0.adjacent_line_fills") == 45);
  CHECK(sim().counters.get("alpha.cpu0.adjacent_line_fills") >= 20);
}

}  // namespace driver_e1000_napi_test
