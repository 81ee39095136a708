// struct sk_buff: a packet buffer with real bytes, backed by simulated DRAM so a NIC can DMA it.
//
// Layout follows Linux 2.4 (include/linux/skbuff.h): a data buffer [head, end) with the packet in
// [data, data+len); skb_reserve/skb_put/skb_push/skb_pull move those marks. The buffer also has a
// physical address in the host's DRAM (allocated by the Kernel), so pci_map_single() gives the
// NIC a real bus address and the bytes the NIC DMAs are the bytes the stack parses.
#pragma once
#include "core/journey.h"
#include "core/units.h"
#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

namespace nicsim {

class Kernel;
class NetDevice;

/// Ethernet protocol numbers (include/linux/if_ether.h), host byte order in Skb::protocol.
constexpr uint16_t ETH_P_IP = 0x0800;
constexpr uint16_t ETH_P_ARP = 0x0806;
constexpr unsigned ETH_HLEN = 14;

/// skb->ip_summed values (include/linux/skbuff.h 2.4).
enum : uint8_t { CHECKSUM_NONE = 0, CHECKSUM_HW = 1, CHECKSUM_UNNECESSARY = 2 };
/// skb->pkt_type values (include/linux/if_packet.h).
enum : uint8_t { PACKET_HOST = 0, PACKET_BROADCAST = 1, PACKET_MULTICAST = 2, PACKET_OTHERHOST = 3, PACKET_OUTGOING = 4 };

struct Skb {
  std::vector<uint8_t> buf;  ///< head .. end (real bytes)
  uint32_t data_off = 0;     ///< skb->data - skb->head
  uint32_t len = 0;          ///< skb->len: bytes in [data, data+len)
  uint64_t head_phys = 0;    ///< DRAM bus address of buf[0]
  uint32_t truesize = 0;     ///< bytes charged to a socket (kmalloc size class + struct)
  uint16_t protocol = 0;     ///< ethertype, host order (eth_type_trans)
  uint8_t pkt_type = PACKET_HOST;
  uint8_t ip_summed = CHECKSUM_NONE;
  /// skb->cloned: the data is shared with another sk_buff (skb_clone), as the copy TCP hands to IP
  /// for a segment it keeps for retransmission. Freeing a cloned skb decrements the shared dataref
  /// (a LOCK-prefixed atomic_dec_and_test); freeing one that is not skips it (skb_release_data's
  /// `if (!skb->cloned || atomic_dec_and_test(...))`, 2.4.20 and 2.6 net/core/skbuff.c).
  bool cloned = false;
  /// skb->csum (2.4): on transmit with CHECKSUM_HW the offset of the checksum field from h.raw
  /// (tcp_v4_send_check: offsetof(struct tcphdr, check) = 16); on receive with CHECKSUM_HW the
  /// device's ones-complement sum of the transport segment (tcp_v4_checksum_init verifies it).
  uint32_t csum = 0;
  uint32_t priority = 0;     ///< selects the pfifo_fast band (prio2band)
  NetDevice* dev = nullptr;
  JourneyId journey = 0;     ///< the message this packet carries (0: none)
  sc_time stamp = SC_ZERO_TIME;  ///< skb->stamp: set by netif_rx
  uint32_t mac_off = 0, nh_off = 0, h_off = 0;  ///< skb->mac.raw / nh.raw / h.raw as offsets from head
  std::array<uint8_t, 48> cb{};  ///< skb->cb: per-layer private control block (e.g. tcp_skb_cb)
  void* sk = nullptr;            ///< owning socket (protocol's own type)

  uint8_t* head() { return buf.data(); }
  uint8_t* data() { return buf.data() + data_off; }
  const uint8_t* data() const { return buf.data() + data_off; }
  uint32_t headroom() const { return data_off; }
  uint32_t tailroom() const { return static_cast<uint32_t>(buf.size()) - data_off - len; }
  /// Bus address of data() (valid while the skb lives).
  uint64_t data_phys() const { return head_phys + data_off; }

  /// skb_reserve: move data and tail forward by `n` on an empty buffer.
  void reserve(uint32_t n) {
    if (len != 0 || n > tailroom()) throw std::logic_error("skb_reserve on a non-empty skb or beyond end");
    data_off += n;
  }
  /// skb_put: extend the data at the tail by `n`; returns the old tail. Throws on overrun (skb_over_panic).
  uint8_t* put(uint32_t n) {
    if (n > tailroom()) throw std::logic_error("skb_over_panic: put beyond end");
    uint8_t* t = data() + len;
    len += n;
    return t;
  }
  /// skb_push: extend the data at the head by `n`; returns the new data. Throws (skb_under_panic).
  uint8_t* push(uint32_t n) {
    if (n > data_off) throw std::logic_error("skb_under_panic: push beyond head");
    data_off -= n;
    len += n;
    return data();
  }
  /// skb_pull: remove `n` bytes from the head; returns the new data. Throws when n > len.
  uint8_t* pull(uint32_t n) {
    if (n > len) throw std::logic_error("skb_pull beyond len");
    data_off += n;
    len -= n;
    return data();
  }
  /// skb_trim: cut the data to `n` bytes.
  void trim(uint32_t n) {
    if (n < len) len = n;
  }
};

/// Returns an skb's DRAM buffer to its kernel when the skb is destroyed (no CPU cost: charge
/// freeing with Kernel::kfree_skb / dev_kfree_skb_irq).
struct SkbDeleter {
  Kernel* kernel = nullptr;
  void operator()(Skb* s) const;
};
using SkbPtr = std::unique_ptr<Skb, SkbDeleter>;

}  // namespace nicsim
