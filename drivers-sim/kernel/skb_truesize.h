// skb->truesize as alloc_skb and dev_alloc_skb give it (drivers-sim/kernel/skbuff.cpp), for what
// must be known before a kernel runs (the scenario loader's UDP receive budget).
#pragma once
#include <cstdint>

namespace nicsim {

/// skb->truesize of alloc_skb(size): the SKB_DATA_ALIGN'ed data plus struct sk_buff (what a socket
/// is charged for the skb; Kernel::make_skb sets it so).
uint32_t alloc_skb_truesize(uint32_t size);
/// skb->truesize of dev_alloc_skb(len): alloc_skb(len + 16), 16 bytes of headroom.
inline uint32_t dev_alloc_skb_truesize(uint32_t len) { return alloc_skb_truesize(len + 16); }

}  // namespace nicsim
