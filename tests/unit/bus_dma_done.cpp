// DmaDone, the completion callback of a DmaRequest (models/bus/dma_engine.h): inline or on the heap,
// move-only, called through a const object like std::function (no allocation per DMA).
#include "models/bus/dma_engine.h"
#include <catch2/catch.hpp>
#include <array>
#include <memory>

// This file's own names, apart from the other files of a unity batch.
namespace bus_dma_done_test {
using namespace nicsim;


TEST_CASE("DmaDone: empty, inline and heap callables, moves, mutable captures", "[bus][dma]") {
  DmaRequest req;
  req.addr = 7;
  DmaDone none;
  CHECK_FALSE(none);

  int calls = 0;
  uint64_t seen = 0;
  DmaDone small = [&calls, &seen](DmaRequest& r) {
    ++calls;
    seen = r.addr;
  };
  REQUIRE(small);
  small(req);
  CHECK(calls == 1);
  CHECK(seen == 7);

  // Larger than the inline buffer: kept on the heap, still called and destroyed exactly once.
  auto token = std::make_shared<int>(0);
  std::array<uint64_t, 16> big{};
  big[15] = 99;
  DmaDone large = [token, big, &seen](DmaRequest&) { seen = big[15]; };
  CHECK(token.use_count() == 2);
  DmaDone moved = std::move(large);
  CHECK_FALSE(large);
  CHECK(token.use_count() == 2);  // moved, not copied
  moved(req);
  CHECK(seen == 99);
  moved = nullptr;
  CHECK_FALSE(moved);
  CHECK(token.use_count() == 1);  // destroyed on reset

  // An inline callable holding a resource moves it along and releases it once.
  DmaDone holder = [token](DmaRequest&) {};
  CHECK(token.use_count() == 2);
  DmaDone other;
  other = std::move(holder);
  CHECK(token.use_count() == 2);
  other.reset();
  CHECK(token.use_count() == 1);

  // A mutable lambda keeps its state between calls, through a const DmaDone as std::function does.
  const DmaDone counter = [n = 0, &calls](DmaRequest&) mutable { calls = ++n; };
  counter(req);
  counter(req);
  CHECK(calls == 2);

  // Wrapping one DmaDone in another (as I8255x::submit does with its epoch check).
  DmaDone inner = [&seen](DmaRequest& r) { seen = r.addr + 1; };
  DmaDone outer = [f = std::move(inner)](DmaRequest& r) { f(r); };
  outer(req);
  CHECK(seen == 8);
}

}  // namespace bus_dma_done_test
