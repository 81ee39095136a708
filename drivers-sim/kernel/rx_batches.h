// Frames per interrupt and per NAPI poll of each net_device (`nicsim explain --transfer`,
// result.json transfer.<host>.rx_batches): the kernel counts the frames a driver hands to
// netif_rx during each hard interrupt of the device's line (Kernel::do_irq), and the frames each
// poll() delivers (net_rx_action, NAPI). Kept in a table beside the kernel (dev.cpp), keyed
// by device and reset by register_netdev, so the counts cost no field in struct net_device.
#pragma once
#include <cstdint>
#include <vector>

namespace nicsim {

class NetDevice;

/// Histograms indexed by frame count: `per_irq[n]` hard interrupts of the device's line during
/// which its driver passed n frames to netif_rx; `per_poll[n]` poll() calls that delivered n.
struct RxBatches {
  std::vector<uint64_t> per_irq, per_poll;
};

/// The device's histograms so far (empty for a device never registered).
const RxBatches& rx_batches(const NetDevice& dev);

// The kernel's bookkeeping (irq.cpp: per interrupt; dev.cpp: the rest).
void rx_batches_reset(const NetDevice& dev);  ///< register_netdev
void rx_batches_frame(const NetDevice& dev);  ///< netif_rx: one frame from the driver
uint64_t rx_batches_frames(const NetDevice& dev);  ///< frames so far (netif_rx calls)
void rx_batches_irq(const NetDevice& dev, uint64_t frames);   ///< an interrupt passed `frames`
void rx_batches_poll(const NetDevice& dev, uint64_t frames);  ///< a poll() delivered `frames`

}  // namespace nicsim
