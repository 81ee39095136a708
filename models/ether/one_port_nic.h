// The Ethernet side of a NIC that has one port and is that port itself (the GMAC, the BCM5701, the
// 8255x): the PciDevice's port list, EthPort's cable and name, and the MAC's transmit queue and
// receive pipeline built from the NIC's NicTimingParams latencies. A multi-port NIC (the 8254x)
// has a port object per port instead.
#pragma once
#include "models/bus/pci.h"
#include "models/ether/frame.h"
#include "models/ether/mac_tx.h"
#include "models/ether/nic_params.h"
#include <functional>
#include <memory>
#include <string>
#include <systemc>

namespace nicsim {

class OnePortNic : public sc_core::sc_module, public PciDevice, public EthPort {
 public:
  // PciDevice
  unsigned eth_ports() const override { return 1; }
  EthPort* eth_port(unsigned i) override { return i == 0 ? this : nullptr; }
  // EthPort
  void attach_link(EthLinkEnd* end) override {
    mac_tx_->set_link(end);
    cabled_ = end != nullptr;
  }
  std::string port_name() const override { return name(); }

 protected:
  explicit OnePortNic(sc_core::sc_module_name n) : sc_core::sc_module(n) {}
  /// Build the MAC during elaboration, in the device's constructor (both spawn their processes
  /// under it): frames queued on mac_tx_ reach the wire after the MAC and PHY transmit latencies
  /// of `p`; frames from the wire reach `accept` after the PHY and MAC receive latencies.
  void build_mac(const NicTimingParams& p, std::function<void(const EthFrame&)> accept) {
    mac_tx_ = std::make_unique<MacTxQueue>(name(), p.mac_tx_latency + p.phy_tx_latency);
    rx_pipe_ = std::make_unique<MacRxPipeline>(name(), p.phy_rx_latency + p.mac_rx_latency, std::move(accept));
  }

  std::unique_ptr<MacTxQueue> mac_tx_;      ///< MAC transmit (models/ether/mac_tx.h)
  std::unique_ptr<MacRxPipeline> rx_pipe_;  ///< PHY + MAC receive pipeline (models/ether/mac_tx.h)
  bool cabled_ = false;  ///< a link partner on the wire (attach_link): a PHY reports link only then
};

}  // namespace nicsim
