// VectorBits (models/cpu/cpu.h): the local APIC's 256-bit IRR/ISR/TMR sets.
#include "models/cpu/cpu.h"

#include <catch2/catch.hpp>
#include <vector>

// This file's own names, apart from the other files of a unity batch.
namespace cpu_vector_bits_test {
using namespace nicsim;


TEST_CASE("VectorBits: set, clear, highest and for_each across the four words", "[cpu][apic]") {
  VectorBits b;
  CHECK(b.highest() == -1);
  for (unsigned v : {0u, 63u, 64u, 0x31u, 0xefu, 0xfcu, 255u}) {
    b.set(v);
    CHECK(b[v]);
  }
  CHECK(b.highest() == 255);
  b.set(255, false);
  CHECK_FALSE(b[255]);
  CHECK(b.highest() == 0xfc);
  std::vector<unsigned> seen;
  b.for_each([&](unsigned v) { seen.push_back(v); });
  CHECK(seen == std::vector<unsigned>{0, 0x31, 63, 64, 0xef, 0xfc});
  for (unsigned v : seen) b.set(v, false);
  CHECK(b.highest() == -1);
  b.set(64);
  CHECK(b.highest() == 64);  // the lowest bit of the second word
  CHECK_FALSE(b[63]);
  CHECK_FALSE(b[65]);
}

}  // namespace cpu_vector_bits_test
