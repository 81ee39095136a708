// Linux/PPC 2.4 <asm-ppc/io.h> MMIO accessors for driver models, beside the i386 ones in task.h
// (readb/readw/readl, writeb/writew/writel; Linux's argument order, value first for writes).
//
// The bus carries bytes in address order and the CPU model's mmio puts a value's low byte at the
// lowest address (Cpu::mmio), which is a little-endian access. So on PowerPC:
//  * in_le32/out_le32, in_le16/out_le16 (lwbrx/stwbrx, lhbrx/sthbrx) are that access, and so are
//    readl/writel and readw/writew, which asm-ppc/io.h defines as them (2.4.0 include/asm-ppc/io.h:
//    `#define readl(addr) in_le32((volatile u32 *)(addr))`, `writel(b,addr) out_le32(..., (b))`
//    except on APUS): the i386-named accessors in task.h serve a PowerPC driver unchanged;
//  * in_be32/out_be32, in_be16/out_be16 (lwz/stw, lhz/sth) put the value's bytes on the bus
//    most significant first, so a little-endian register sees the value byte-swapped;
//  * in_8/out_8 (lbz/stb): one byte.
// As in Linux, these take (address, value). Each is an awaitable: `uint32_t v = co_await in_le32(a)`.
#pragma once
#include "drivers-sim/kernel/byteorder.h"
#include "drivers-sim/kernel/task.h"

namespace nicsim {

/// A big-endian access (lwz/stw, lhz/sth of a big-endian CPU): the value crosses the bus lanes
/// swapped; `co_await` yields it in the CPU's view (swapped back).
template <typename T>
struct SwappedAccess : MmioAccess {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4);
  T await_resume() const noexcept {
    if constexpr (sizeof(T) == 2) return swab16(uint16_t(data));
    else return swab32(data);
  }
};

inline TypedAccess<uint32_t> in_le32(uint64_t addr) { return readl(addr); }
inline TypedAccess<uint32_t> out_le32(uint64_t addr, uint32_t v) { return writel(v, addr); }
inline TypedAccess<uint16_t> in_le16(uint64_t addr) { return readw(addr); }
inline TypedAccess<uint16_t> out_le16(uint64_t addr, uint16_t v) { return writew(v, addr); }
inline TypedAccess<uint8_t> in_8(uint64_t addr) { return readb(addr); }
inline TypedAccess<uint8_t> out_8(uint64_t addr, uint8_t v) { return writeb(v, addr); }
inline SwappedAccess<uint32_t> in_be32(uint64_t addr) { return {{false, addr, 0, 4}}; }
inline SwappedAccess<uint32_t> out_be32(uint64_t addr, uint32_t v) { return {{true, addr, swab32(v), 4}}; }
inline SwappedAccess<uint16_t> in_be16(uint64_t addr) { return {{false, addr, 0, 2}}; }
inline SwappedAccess<uint16_t> out_be16(uint64_t addr, uint16_t v) { return {{true, addr, swab16(v), 2}}; }

}  // namespace nicsim
