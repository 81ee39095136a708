// The fuzz targets' corpus of past findings (tests/fuzz/regressions/) under plain ctest, and the
// input checks that fixed them (platforms/toml_input.h): every *.toml there is a scenario file and
// every *.set a NUL-separated list of --set arguments on scenarios/default.toml; each must be refused
// with a ScenarioError (or, named *-accepted.*, load: e.g. text the parser must not see, taken as a
// bare string), never crash. The sanitizer build
// (.ci/run) runs the same inputs with ASan+UBSan and toml++'s assertions on.
#include "platforms/toml_input.h"
#include "tests/fuzz/harness.h"
#include "tests/support/sweep_check.h"
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>

// This file's own names, apart from the other files of a unity batch.
namespace fuzz_regressions_test {
using namespace nicsim;

namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
std::string refusal(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    (void)load_scenario_text(text, "x.toml", sets);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST_CASE("fuzz: every input in tests/fuzz/regressions is refused (or loads), none crashes", "[fuzz][validation]") {
  const fs::path dir = fs::path(NICSIM_SOURCE_DIR) / "tests/fuzz/regressions";
  size_t n = 0;
  for (auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    const std::string bytes = slurp(e.path());
    const bool accepted = name.find("-accepted.") != std::string::npos;
    INFO(name);
    fuzz::Outcome o;
    if (e.path().extension() == ".toml") o = fuzz::scenario_text(bytes);
    else if (e.path().extension() == ".set") o = fuzz::set_args(bytes);
    else continue;
    CHECK(o == (accepted ? fuzz::Outcome::Loaded : fuzz::Outcome::Refused));
    ++n;
  }
  CHECK(n >= 10);
}

TEST_CASE("scenario: bytes toml++ 3.3.0 cannot read safely are refused with file, line, column and key",
          "[scenario][validation]") {
  const std::string base = fuzz::base_scenario();
  REQUIRE(!check_toml_input(base));
  // The inputs: U+032A outside a string, a control character in a header, a non-ASCII
  // character after a line-ending backslash.
  CHECK(refusal("\xcc\xaa") == "x.toml:1:1: non-ASCII character U+032A in a key (keys are ASCII)");
  CHECK(refusal("[\x0e") == "x.toml:1:2: control character U+000E (TOML allows only TAB, LF and CRLF; write it as "
                            "an escape, e.g. \"\\u000E\")");
  CHECK_THAT(refusal("name = \"x\"\n[workload]\ntype = \"\"\"a \\\n   \xc3\xa9\"\"\"\n"),
             Catch::StartsWith("x.toml:4:4: key 'workload.type': non-ASCII character U+00E9 right after a line-ending "
                               "backslash"));
  CHECK_THAT(refusal("x = \"\"\"\\\xc2\xa1\"\"\""), Catch::StartsWith("x.toml:1:9: key 'x': non-ASCII character U+00A1 after a backslash"));
  CHECK(refusal("\"\xcc\xaa\" = 1") == "x.toml:1:2: non-ASCII character U+032A in a key (quoted keys must be ASCII "
                                       "here: toml++ 3.3.0 cannot read them safely)");
  CHECK(refusal("[hosts.alpha]\nplatform = 1\xcc\xaa\n") ==
        "x.toml:2:13: key 'hosts.alpha.platform': non-ASCII character U+032A outside a string or comment");
  // Not UTF-8: a stray continuation byte, an overlong '/', a surrogate, above U+10FFFF, truncated.
  for (const char* bad : {"name = \"\x80\"", "name = \"\xc0\xaf\"", "name = \"\xed\xa0\x80\"", "name = \"\xf4\x90\x80\x80\"",
                          "name = \"\xe2\x82\""})
    CHECK_THAT(refusal(bad), Catch::StartsWith("x.toml:1:9: key 'name': invalid UTF-8 (byte 0x"));
  CHECK_THAT(refusal("name = \"a\rb\""), Catch::StartsWith("x.toml:1:10: key 'name': carriage return not followed"));
  CHECK_THAT(refusal("name = \"a\x7f\""), Catch::StartsWith("x.toml:1:10: key 'name': control character U+007F"));
  // Nesting: arrays, inline tables and dotted keys count together.
  std::string deep = "x = " + std::string(40, '[') + std::string(40, ']');
  CHECK(refusal(deep) == "x.toml:1:37: key 'x': nesting deeper than 32 levels");  // at the 33rd '['
  CHECK(refusal("[.\n") == "x.toml:1:2: TOML syntax error: expected a key after '[', saw '.'");  // fuzz finding
  CHECK(refusal("d = 1979-05-27Tx") == "x.toml:1:16: key 'd': TOML syntax error: expected the hour's digits after "
                                      "'1979-05-27' in the date-time starting '1979-05-27T'");  // fuzz finding
  CHECK_THAT(refusal("d = 1979-05-27t=1"), Catch::Contains("in the date-time starting '1979-05-27t'"));
  CHECK_THAT(refusal("d = 1979-05-27 0# x"), Catch::Contains("in the date-time starting '1979-05-27 0'"));  // fuzz finding
  CHECK_FALSE(check_toml_input("d = 1979-05-27T07:32:00Z\ne = 1979-05-27\n"));
  CHECK(refusal("x = [1, [}]]") == "x.toml:1:10: key 'x': TOML syntax error: expected a value, saw '}'");  // fuzz finding
  std::string dotted = "a";
  for (int i = 0; i < 40; ++i) dotted += ".a";
  CHECK_THAT(refusal(dotted + " = 1"), Catch::Contains("nesting deeper than 32 levels"));
  CHECK_THAT(refusal("[" + dotted + "]"), Catch::Contains("nesting deeper than 32 levels"));
  CHECK(check_toml_input(std::string(kMaxTomlInputBytes + 1, ' '))->message == "16777217 bytes, more than the limit of 16 MiB");
  // What stays valid: non-ASCII in string values and comments, escapes, multi-line strings, dates,
  // CRLF, nested values within the limit, a byte order mark.
  for (const char* ok : {"# caf\xc3\xa9\nname = \"caf\xc3\xa9 \\u00e9\"  # \xe2\x82\xac\n",
                         "name = '\xcc\xaa'\nd = '''\n\xcc\xaa'''\n", "name = \"\"\"a \\\n  b\xc3\xa9\"\"\"\n",
                         "t = 1979-05-27 07:32:00Z\r\nu = [1, [2, {a.b = \"\xc3\xa9\"}]]\r\n", "\xef\xbb\xbfname = \"x\"\n",
                         "q = \"\"\"\"\"\"\nr = \"\"\"a\"\"\"\"\"\n"})
    CHECK_FALSE(check_toml_input(ok));
  // Every shipped scenario passes.
  size_t files = 0;
  for (auto& e : fs::recursive_directory_iterator(fs::path(NICSIM_SOURCE_DIR) / "scenarios"))
    if (e.path().extension() == ".toml") {
      INFO(e.path().string());
      CHECK_FALSE(check_toml_input(slurp(e.path())));
      ++files;
    }
  CHECK(files >= 5);
}

TEST_CASE("cli: --set values that are not text are refused at load, naming the key", "[scenario][validation]") {
  const std::string base = fuzz::base_scenario();
  CHECK(refusal(base, {"name=\xff"}) ==
        "--set: key 'name': the value is not valid text: invalid UTF-8 (byte 0xff) at byte 1 of the value");
  CHECK(refusal(base, {"name=ab\x01"}) == "--set: key 'name': the value is not valid text: control character U+0001 at byte 3 of the value");
  CHECK(refusal(base, {"na\xffme=1"}) == "--set: the key path is not valid text: invalid UTF-8 (byte 0xff) at byte 3");
  CHECK_THAT(refusal(base, {"name=" + std::string(70000, 'x')}), Catch::Contains("more than the limit of 64 KiB"));
  // Non-ASCII text that is no TOML value the parser may read is a bare string, as any non-TOML text.
  CHECK(refusal(base, {"name=caf\xc3\xa9"}).empty());
  CHECK(load_scenario_text(base, "d.toml", {"name=caf\xc3\xa9"}).name == "caf\xc3\xa9");
  CHECK(load_scenario_text(base, "d.toml", {"name=\"\"\"a \\\n \xc3\xa9\"\"\""}).name == "\"\"\"a \\\n \xc3\xa9\"\"\"");
}

TEST_CASE("cli: --set seed takes the full 64-bit range, as --seed does", "[scenario][validation]") {
  const std::string base = fuzz::base_scenario();
  CHECK(load_scenario_text(base, "d.toml", {"seed=18446744073709551615"}).seed == UINT64_MAX);
  CHECK(load_scenario_text(base, "d.toml", {"seed=9223372036854775808"}).seed == 9223372036854775808ull);
  CHECK(load_scenario_text(base, "d.toml", {"seed=7"}).seed == 7);
  CHECK(load_scenario_text(base, "d.toml", {"seed=18446744073709551615", "seed=3"}).seed == 3);
  CHECK(load_scenario_text(base, "d.toml", {"seed=3", "seed=18446744073709551615"}).seed == UINT64_MAX);
  CHECK(load_scenario_text(base, "d.toml", {"seed=18446744073709551615"}, 5).seed == 5);  // --seed wins
  CHECK_THAT(refusal(base, {"seed=18446744073709551616"}),
             Catch::Contains("key 'seed': value 18446744073709551616 is above the maximum 18446744073709551615"));
  CHECK_THAT(refusal(base, {"seed=-1"}), Catch::Contains("below the minimum 0"));
}

TEST_CASE("cli: an empty --out or --trace name is a usage error, not \"no output\"", "[cli][validation]") {
  auto code = [](const std::string& args) {
    int st = std::system((std::string(NICSIM_BIN) + " " + args + " >/dev/null 2>&1 </dev/null").c_str());
    REQUIRE(WIFEXITED(st));
    return WEXITSTATUS(st);
  };
  CHECK(code("run scenarios/default.toml --out ''") == 2);
  CHECK(code("run scenarios/default.toml --trace ''") == 2);
  CHECK(code("explain scenarios/default.toml --trace ''") == 2);
  // Invalid UTF-8 through --set is refused at load (exit 2), not after the run (the case).
  test::TempDir tmp;
  CHECK(code("run scenarios/default.toml --set \"$(printf 'name=\\377')\" --out " + (tmp / "bad-name").string()) == 2);
  CHECK_FALSE(fs::exists(tmp / "bad-name"));
}

}  // namespace fuzz_regressions_test
