// drivers-sim/kernel/byteorder.h and io.h: what a driver's stores look like in memory on a
// big-endian and a little-endian CPU, that a byte-order mistake reproduces (a native store of a
// little-endian device field reaches the device byte-reversed on the big-endian CPU only), and what
// the PowerPC MMIO accessors put on the bus.
#include "core/registry.h"
#include "drivers-sim/kernel/byteorder.h"
#include "drivers-sim/kernel/io.h"
#include "kernel_fake_host.h"
#include "models/nic/gem/regs.h"
#include <array>
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace kernel_byteorder_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {
/// How a little-endian device (the GMAC) decodes a 64-bit descriptor word from memory.
uint64_t device_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | p[i];
  return v;
}
}  // namespace

TEST_CASE("byteorder: every IA-32 CPU profile is little-endian, and the kernel takes the profile's order",
          "[kernel][byteorder]") {
  for (auto& [name, c] : Registry<CpuProfile>::instance().all())
    if (c.isa.rfind("IA-32", 0) == 0) {
      INFO(name);
      CHECK(c.byte_order == ByteOrder::little);
    }
  CHECK(cpu_profile("xeon-prestonia").byte_order == ByteOrder::little);
  CHECK(KernelParams{}.byte_order == ByteOrder::little);
  CpuProfile be = cpu_profile("xeon-prestonia");
  be.byte_order = ByteOrder::big;
  CHECK(kernel_params_of(kernel_profile("linux-2.4.20-i386"), be).byte_order == ByteOrder::big);
  CHECK(std::string(byte_order_name(ByteOrder::big)) == "big-endian");
}

TEST_CASE("byteorder: a plain store is big-endian on a big-endian CPU, st_le32 little-endian on both",
          "[kernel][byteorder]") {
  std::array<uint8_t, 4> be{}, le{}, st{};
  store_native32(be.data(), 0x11223344u, ByteOrder::big);
  store_native32(le.data(), 0x11223344u, ByteOrder::little);
  st_le32(st.data(), 0x11223344u);
  CHECK(be == std::array<uint8_t, 4>{0x11, 0x22, 0x33, 0x44});
  CHECK(le == std::array<uint8_t, 4>{0x44, 0x33, 0x22, 0x11});
  CHECK(st == le);
  CHECK(load_native32(be.data(), ByteOrder::big) == 0x11223344u);
  CHECK(load_native32(be.data(), ByteOrder::little) == 0x44332211u);
  CHECK(ld_le32(be.data()) == 0x44332211u);
  std::array<uint8_t, 2> h{};
  st_le16(h.data(), 0xABCD);
  CHECK(h == std::array<uint8_t, 2>{0xCD, 0xAB});
  CHECK(ld_le16(h.data()) == 0xABCD);
  store_native16(h.data(), 0xABCD, ByteOrder::big);
  CHECK(h == std::array<uint8_t, 2>{0xAB, 0xCD});
  uint8_t q[8];
  store_native64(q, 0x0102030405060708ull, ByteOrder::big);
  CHECK(q[0] == 0x01);
  CHECK(q[7] == 0x08);
  CHECK(load_native64(q, ByteOrder::big) == 0x0102030405060708ull);
}

TEST_CASE("byteorder: cpu_to_le swaps on a big-endian CPU only, the swapped value stored natively is little-endian",
          "[kernel][byteorder]") {
  constexpr ByteOrderOps ppc{ByteOrder::big}, x86{ByteOrder::little};
  static_assert(swab32(0x11223344u) == 0x44332211u);
  static_assert(swab64(0x0102030405060708ull) == 0x0807060504030201ull);
  CHECK(ppc.cpu_to_le32(0x11223344u) == 0x44332211u);
  CHECK(x86.cpu_to_le32(0x11223344u) == 0x11223344u);
  CHECK(ppc.cpu_to_be32(0x11223344u) == 0x11223344u);
  CHECK(x86.cpu_to_be32(0x11223344u) == 0x44332211u);
  CHECK(ppc.le16_to_cpu(0x3412) == 0x1234);
  CHECK(ppc.htons(0x0800) == 0x0800);
  CHECK(x86.htons(0x0800) == 0x0008);
  CHECK(x86.ntohl(x86.htonl(0xC0A80001u)) == 0xC0A80001u);
  // sungem: txd->control_word = cpu_to_le64(ctrl), a plain 64-bit store: the device reads ctrl on both.
  const uint64_t ctrl = gem::TXDCTRL_SOF | gem::TXDCTRL_EOF | gem::TXDCTRL_INTME | 1514u;
  uint8_t a[8], b[8], c[8];
  store_native64(a, ppc.cpu_to_le64(ctrl), ByteOrder::big);
  store_native64(b, x86.cpu_to_le64(ctrl), ByteOrder::little);
  store_native64(c, ctrl, ByteOrder::big);  // the same store without cpu_to_le64: a bug on PowerPC
  CHECK(device_le64(a) == ctrl);
  CHECK(device_le64(b) == ctrl);
  CHECK(device_le64(c) == swab64(ctrl));
}

TEST_CASE("byteorder: gmac's native store of TX_FL_INTERRUPT lands in control bit 56 on big-endian, INTME (32) on "
          "little-endian", "[kernel][byteorder]") {
  // gmac.h v1.5k4 struct gmac_dma_desc { size; flags; lo_addr; hi_addr; }; gmac_start_xmit:
  // st_le32(&dp->size, TX_SZ_SOP | TX_SZ_EOP | len), dp->flags = TX_FL_INTERRUPT (a plain store).
  // The GMAC reads bytes 0-7 as one little-endian control word (sungem.h: INTME is bit 32).
  for (ByteOrder o : {ByteOrder::big, ByteOrder::little}) {
    uint8_t d[16] = {};
    st_le32(d, 0xC0000000u | 1514u);
    store_native32(d + 4, 0x00000001u, o);
    const uint64_t ctrl = device_le64(d);
    CHECK((ctrl & gem::TXDCTRL_BUFSZ) == 1514u);
    CHECK((ctrl & gem::TXDCTRL_SOF) != 0u);
    CHECK((ctrl & gem::TXDCTRL_EOF) != 0u);
    if (o == ByteOrder::big) {
      CHECK((ctrl & gem::TXDCTRL_INTME) == 0u);
      CHECK(ctrl >> 32 == 0x01000000u);
    } else {
      CHECK((ctrl & gem::TXDCTRL_INTME) != 0u);
      CHECK(ctrl >> 32 == 0x00000001u);
    }
  }
}

TEST_CASE("byteorder: a kernel on a big-endian CPU stores natively big-endian in DRAM, st_le32 little-endian",
          "[kernel][byteorder]") {
  FakeHost hw;
  KernelParams p = bench_params();
  p.byte_order = ByteOrder::big;
  Kernel k(hw, p);
  CHECK(cpu_byte_order(k) == ByteOrder::big);
  CHECK(byte_order_ops(k).cpu_to_le32(0x11223344u) == 0x44332211u);
  constexpr uint64_t a = 0x100000;
  store_native32(k, a, 0x11223344u);
  st_le32(k, a + 4, 0x11223344u);
  store_native64(k, a + 8, 0x0102030405060708ull);
  store_native16(k, a + 16, 0xABCD);
  st_le16(k, a + 18, 0xABCD);
  CHECK(std::vector<uint8_t>(hw.dram.begin() + a, hw.dram.begin() + a + 20) ==
        std::vector<uint8_t>{0x11, 0x22, 0x33, 0x44, 0x44, 0x33, 0x22, 0x11, 1, 2, 3, 4, 5, 6, 7, 8, 0xAB, 0xCD,
                             0xCD, 0xAB});
  CHECK(load_native32(k, a) == 0x11223344u);
  CHECK(ld_le32(k, a) == 0x44332211u);
  CHECK(ld_le32(k, a + 4) == 0x11223344u);
  CHECK(load_native64(k, a + 8) == 0x0102030405060708ull);
  CHECK(load_native16(k, a + 16) == 0xABCD);
  CHECK(ld_le16(k, a + 18) == 0xABCD);
  CHECK_THROWS_AS(store_native32(k, hw.dram.size() - 2, 0), std::out_of_range);

  FakeHost hw2("beta");
  Kernel k2(hw2, bench_params());  // little-endian (the default CPU profile)
  store_native32(k2, a, 0x11223344u);
  CHECK(std::vector<uint8_t>(hw2.dram.begin() + a, hw2.dram.begin() + a + 4) ==
        std::vector<uint8_t>{0x44, 0x33, 0x22, 0x11});
}

TEST_CASE("byteorder: io.h — out_le32/writel put the value on the bus as a little-endian register reads it, "
          "out_be32 byte-swapped; in_be32 swaps back", "[kernel][byteorder][mmio]") {
  FakeHost hw;
  Kernel k(hw, bench_params());
  constexpr uint64_t R = 0xfe000100;
  hw.mch.regs[R + 0x10] = 0x11223344u;
  uint32_t le = 0, be = 0;
  uint16_t le16 = 0;
  uint8_t b8 = 0;
  auto main = [&]() -> Task<void> {
    co_await out_le32(R, 0x11223344u);
    co_await writel(0x11223344u, R + 4);
    co_await out_be32(R + 8, 0x11223344u);
    le = co_await in_le32(R + 0x10);
    be = co_await in_be32(R + 0x10);
    le16 = co_await in_le16(R + 0x10);
    b8 = co_await in_8(R + 0x10);
  };
  k.spawn_process("io", 0, main());
  sc_core::sc_start(us(20));
  REQUIRE(hw.mch.log.size() >= 3);
  CHECK(hw.mch.regs[R] == 0x11223344u);
  CHECK(hw.mch.regs[R + 4] == 0x11223344u);
  CHECK(hw.mch.regs[R + 8] == 0x44332211u);
  CHECK(le == 0x11223344u);
  CHECK(be == 0x44332211u);  // lwz of the register's bytes 44 33 22 11 (address order) on a BE CPU
  CHECK(le16 == 0x3344u);
  CHECK(b8 == 0x44u);
  CHECK(out_be16(R, 0x1234).data == 0x3412u);
  CHECK(out_le16(R, 0x1234).bytes == 2u);
  CHECK(out_8(R, 0x12).bytes == 1u);
}

}  // namespace kernel_byteorder_test
