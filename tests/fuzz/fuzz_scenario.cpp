// libFuzzer target: arbitrary bytes as a scenario file (load_scenario_text). See docs/testing.md "Sanitizers and fuzzing".
#include "tests/fuzz/harness.h"
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)nicsim::fuzz::scenario_text(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
