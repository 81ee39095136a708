// SpeedoHost's coroutines, out of line (see driver_eepro100_host.h).
#include "driver_eepro100_host.h"

namespace drvtest {

SpeedoHost::SpeedoHost(std::vector<std::pair<std::string, int64_t>> set) {
  const DriverEntry* de = driver("eepro100");
  ParamValues pv(de->params);
  for (const auto& [n, v] : set) pv.set(n, v);
  devs = de->probe(k, nic, vec, nic_config("alpha", "eth0", "82559", de->name), pv);
  sp = dynamic_cast<nicsim::eepro100drv::Speedo*>(devs[0].get());
  k.dev_add_pack(ETH_P_IP, [this](SkbPtr skb, NetDevice*) -> Task<int> {
    got.push_back({now(), skb->journey, std::vector<uint8_t>(skb->data(), skb->data() + skb->len)});
    co_await k.kfree_skb(std::move(skb));
    co_return NET_RX_SUCCESS;
  });
  k.spawn_process("ifup", ifup(this));
}

Task<void> SpeedoHost::ifup(SpeedoHost* h) { h->open_rc = co_await h->k.dev_open(*h->devs[0]); }

}  // namespace drvtest
