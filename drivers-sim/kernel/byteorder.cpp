#include "drivers-sim/kernel/byteorder.h"
#include "drivers-sim/kernel/kernel.h"

namespace nicsim {

namespace {
template <typename T>
void put_bytes(uint8_t* p, T v, ByteOrder o) {
  constexpr unsigned n = sizeof(T);
  for (unsigned i = 0; i < n; ++i) p[o == ByteOrder::big ? n - 1 - i : i] = uint8_t(v >> (8 * i));
}
template <typename T>
T get(const uint8_t* p, ByteOrder o) {
  constexpr unsigned n = sizeof(T);
  T v = 0;
  for (unsigned i = 0; i < n; ++i) v |= T(p[o == ByteOrder::big ? n - 1 - i : i]) << (8 * i);
  return v;
}
template <typename T>
void put_mem(Kernel& k, uint64_t addr, T v, ByteOrder o) {
  uint8_t b[sizeof(T)];
  put_bytes(b, v, o);
  k.mem_write(addr, b, sizeof b);
}
template <typename T>
T get_mem(const Kernel& k, uint64_t addr, ByteOrder o) {
  uint8_t b[sizeof(T)];
  k.mem_read(addr, b, sizeof b);
  return get<T>(b, o);
}
}  // namespace

void store_native16(uint8_t* p, uint16_t v, ByteOrder o) { put_bytes(p, v, o); }
void store_native32(uint8_t* p, uint32_t v, ByteOrder o) { put_bytes(p, v, o); }
void store_native64(uint8_t* p, uint64_t v, ByteOrder o) { put_bytes(p, v, o); }
uint16_t load_native16(const uint8_t* p, ByteOrder o) { return get<uint16_t>(p, o); }
uint32_t load_native32(const uint8_t* p, ByteOrder o) { return get<uint32_t>(p, o); }
uint64_t load_native64(const uint8_t* p, ByteOrder o) { return get<uint64_t>(p, o); }
void st_le16(uint8_t* p, uint16_t v) { put_bytes(p, v, ByteOrder::little); }
void st_le32(uint8_t* p, uint32_t v) { put_bytes(p, v, ByteOrder::little); }
uint16_t ld_le16(const uint8_t* p) { return get<uint16_t>(p, ByteOrder::little); }
uint32_t ld_le32(const uint8_t* p) { return get<uint32_t>(p, ByteOrder::little); }

ByteOrder cpu_byte_order(const Kernel& k) { return k.params().byte_order; }
ByteOrderOps byte_order_ops(const Kernel& k) { return ByteOrderOps{cpu_byte_order(k)}; }

void store_native16(Kernel& k, uint64_t addr, uint16_t v) { put_mem(k, addr, v, cpu_byte_order(k)); }
void store_native32(Kernel& k, uint64_t addr, uint32_t v) { put_mem(k, addr, v, cpu_byte_order(k)); }
void store_native64(Kernel& k, uint64_t addr, uint64_t v) { put_mem(k, addr, v, cpu_byte_order(k)); }
uint16_t load_native16(const Kernel& k, uint64_t addr) { return get_mem<uint16_t>(k, addr, cpu_byte_order(k)); }
uint32_t load_native32(const Kernel& k, uint64_t addr) { return get_mem<uint32_t>(k, addr, cpu_byte_order(k)); }
uint64_t load_native64(const Kernel& k, uint64_t addr) { return get_mem<uint64_t>(k, addr, cpu_byte_order(k)); }
void st_le16(Kernel& k, uint64_t addr, uint16_t v) { put_mem(k, addr, v, ByteOrder::little); }
void st_le32(Kernel& k, uint64_t addr, uint32_t v) { put_mem(k, addr, v, ByteOrder::little); }
uint16_t ld_le16(const Kernel& k, uint64_t addr) { return get_mem<uint16_t>(k, addr, ByteOrder::little); }
uint32_t ld_le32(const Kernel& k, uint64_t addr) { return get_mem<uint32_t>(k, addr, ByteOrder::little); }

}  // namespace nicsim
