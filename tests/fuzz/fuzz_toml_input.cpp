// libFuzzer target: the input check and then Debian's toml++ on what it lets through (the parser's
// undefined behaviour on some malformed input is what platforms/toml_input.h keeps away). Faster than
// fuzz_scenario (no scenario validation). See docs/testing.md "Sanitizers and fuzzing".
#include "platforms/toml_input.h"
#include <cstddef>
#include <cstdint>
#include <toml++/toml.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (nicsim::check_toml_input(text)) return 0;
  try {
    toml::table t = toml::parse(text, std::string_view("fuzz.toml"));
  } catch (const toml::parse_error&) {
  }
  return 0;
}
