// libFuzzer target: arbitrary bytes as `--set` arguments (NUL-separated) on scenarios/default.toml.
// See docs/testing.md "Sanitizers and fuzzing".
#include "tests/fuzz/harness.h"
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)nicsim::fuzz::set_args(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
