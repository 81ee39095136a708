// Linux <asm/byteorder.h> for driver models: cpu_to_le32 and friends, and PowerPC's st_le32 /
// ld_le32 (include/asm-ppc/byteorder.h 2.4: stwbrx / lwbrx), on a host whose CPU profile gives its
// byte order (profiles.h ByteOrder, KernelParams::byte_order).
//
// Simulated memory holds bytes. A driver model stores what its source stores, the way it stores it:
//  * a plain C store of an int (`dp->flags = TX_FL_INTERRUPT;`)  -> store_native32(k, addr, v):
//    the bytes in the CPU's order (big-endian on PowerPC, little-endian on i386);
//  * `st_le32(&dp->size, v)`                                   -> st_le32(k, addr, v): little-endian
//    bytes whatever the CPU; ld_le32 the same for loads;
//  * `txd->control_word = cpu_to_le64(ctrl)` (macro, then a plain store)
//                                                              -> store_native64(k, addr,
//    byte_order_ops(k).cpu_to_le64(ctrl)): the swap the macro makes on this CPU, then the CPU's store.
// A device parses its DMA structures in its own byte order (e.g. the GMAC's little-endian 64-bit
// descriptor words), so a field stored in the wrong order reaches the chip byte-reversed, as on the
// real machine (tests/unit/kernel_byteorder.cpp).
//
// MMIO is not here: the bus carries bytes in address order and the CPU model's mmio puts a value's
// low byte at the lowest address, which is what readl/writel do on i386 and what in_le32/out_le32
// (and readl/writel, which are them on PowerPC) do there; drivers-sim/kernel/io.h has the PowerPC
// accessors.
#pragma once
#include "drivers-sim/kernel/profiles.h"
#include <cstdint>

namespace nicsim {

class Kernel;

// Linux include/linux/byteorder/swab.h ___swab16/32/64.
constexpr uint16_t swab16(uint16_t v) { return uint16_t(v << 8 | v >> 8); }
constexpr uint32_t swab32(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0x0000ff00u) | ((v << 8) & 0x00ff0000u) | (v << 24);
}
constexpr uint64_t swab64(uint64_t v) { return uint64_t(swab32(uint32_t(v))) << 32 | swab32(uint32_t(v >> 32)); }

/// The conversions of one CPU byte order, as Linux's include/linux/byteorder/little_endian.h and
/// big_endian.h define them: the identity where the CPU's order and the named one agree, a swab
/// otherwise. htons/htonl are cpu_to_be16/32. Pure: `ByteOrderOps{ByteOrder::big}.cpu_to_le32(v)`.
struct ByteOrderOps {
  ByteOrder cpu = ByteOrder::little;
  constexpr bool big() const { return cpu == ByteOrder::big; }
  constexpr uint16_t cpu_to_le16(uint16_t v) const { return big() ? swab16(v) : v; }
  constexpr uint32_t cpu_to_le32(uint32_t v) const { return big() ? swab32(v) : v; }
  constexpr uint64_t cpu_to_le64(uint64_t v) const { return big() ? swab64(v) : v; }
  constexpr uint16_t le16_to_cpu(uint16_t v) const { return cpu_to_le16(v); }
  constexpr uint32_t le32_to_cpu(uint32_t v) const { return cpu_to_le32(v); }
  constexpr uint64_t le64_to_cpu(uint64_t v) const { return cpu_to_le64(v); }
  constexpr uint16_t cpu_to_be16(uint16_t v) const { return big() ? v : swab16(v); }
  constexpr uint32_t cpu_to_be32(uint32_t v) const { return big() ? v : swab32(v); }
  constexpr uint64_t cpu_to_be64(uint64_t v) const { return big() ? v : swab64(v); }
  constexpr uint16_t be16_to_cpu(uint16_t v) const { return cpu_to_be16(v); }
  constexpr uint32_t be32_to_cpu(uint32_t v) const { return cpu_to_be32(v); }
  constexpr uint64_t be64_to_cpu(uint64_t v) const { return cpu_to_be64(v); }
  constexpr uint16_t htons(uint16_t v) const { return cpu_to_be16(v); }
  constexpr uint16_t ntohs(uint16_t v) const { return be16_to_cpu(v); }
  constexpr uint32_t htonl(uint32_t v) const { return cpu_to_be32(v); }
  constexpr uint32_t ntohl(uint32_t v) const { return be32_to_cpu(v); }
};

// Byte images (pure; `p` holds at least the value's size).
/// What a plain store of `v` by a CPU of byte order `o` leaves at `p`.
void store_native16(uint8_t* p, uint16_t v, ByteOrder o);
void store_native32(uint8_t* p, uint32_t v, ByteOrder o);
void store_native64(uint8_t* p, uint64_t v, ByteOrder o);
/// What a plain load by a CPU of byte order `o` reads from `p`.
uint16_t load_native16(const uint8_t* p, ByteOrder o);
uint32_t load_native32(const uint8_t* p, ByteOrder o);
uint64_t load_native64(const uint8_t* p, ByteOrder o);
/// Little-endian bytes whatever the CPU (PowerPC st_le16/st_le32: sthbrx/stwbrx; ld_le16/ld_le32:
/// lhbrx/lwbrx).
void st_le16(uint8_t* p, uint16_t v);
void st_le32(uint8_t* p, uint32_t v);
uint16_t ld_le16(const uint8_t* p);
uint32_t ld_le32(const uint8_t* p);

// On a host's simulated memory: functional and zero-time (Kernel::mem_write / mem_read, so a store
// is seen by the DMA-line tracking as the CPU's); the caller charges the CPU's cost. `addr` is a
// physical (bus) address; an address outside DRAM throws as mem_write / mem_read do.
/// The byte order of the CPU `k` runs on (KernelParams::byte_order, from its CPU profile).
ByteOrder cpu_byte_order(const Kernel& k);
/// cpu_byte_order(k) as conversions: `byte_order_ops(k).cpu_to_le32(v)`.
ByteOrderOps byte_order_ops(const Kernel& k);
void store_native16(Kernel& k, uint64_t addr, uint16_t v);
void store_native32(Kernel& k, uint64_t addr, uint32_t v);
void store_native64(Kernel& k, uint64_t addr, uint64_t v);
uint16_t load_native16(const Kernel& k, uint64_t addr);
uint32_t load_native32(const Kernel& k, uint64_t addr);
uint64_t load_native64(const Kernel& k, uint64_t addr);
void st_le16(Kernel& k, uint64_t addr, uint16_t v);
void st_le32(Kernel& k, uint64_t addr, uint32_t v);
uint16_t ld_le16(const Kernel& k, uint64_t addr);
uint32_t ld_le32(const Kernel& k, uint64_t addr);

}  // namespace nicsim
