// Parameter values and the "did you mean" rule (core/params.h).
#include "core/params.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace core_params_test {
using namespace nicsim;


TEST_CASE("edit_distance is Levenshtein distance, case-insensitive", "[core][params]") {
  CHECK(edit_distance("kitten", "sitting") == 3);  // k->s, e->i, +g
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("abc", "abc") == 0);
  CHECK(edit_distance("RxIntDelay", "rxintdelay") == 0);
  CHECK(edit_distance("RxIntDelya", "RxIntDelay") == 2);  // a transposition is two substitutions
}

TEST_CASE("nearest_name suggests only plausible misspellings", "[core][params]") {
  const std::vector<std::string> params = {"RxIntDelay", "RxAbsIntDelay", "TxIntDelay", "InterruptThrottleRate"};
  CHECK(nearest_name("RxIntDelya", params) == "RxIntDelay");
  CHECK(nearest_name("rxintdelay", params) == "RxIntDelay");
  CHECK(nearest_name("TxIntDelay", params) == "TxIntDelay");
  CHECK(nearest_name("InterruptThrottle", params) == "InterruptThrottleRate");  // 4 edits <= 17/3 = 5
  CHECK(nearest_name("copybreak", params) == "");
  CHECK(nearest_name("x", {}) == "");
  // The limit is max(2, len/3): a 9-letter word may be 3 edits away, not 4.
  CHECK(nearest_name("abcdefxyz", {"abcdefghi"}) == "abcdefghi");  // 3 substitutions, limit 3
  CHECK(nearest_name("abcdewxyz", {"abcdefghi"}) == "");          // 4 substitutions
  // Short words may always be 2 edits away.
  CHECK(nearest_name("ab", {"xy"}) == "xy");
  CHECK(nearest_name("ab", {"xyz"}) == "");
  CHECK(nearest_name("supermicro-p4dpr-6gm", {"supermicro-p4dpr-6gm+", "dell-pe2650"}) == "supermicro-p4dpr-6gm+");
}

TEST_CASE("ParamValues overlays values on schema defaults", "[core][params]") {
  ParamSchema schema = {int_param("RxIntDelay", 0, 0, 65535, "1.024 µs units", "receive delay"),
                        real_param("clock_ppm", 0.0, -100.0, 100.0, "ppm", "clock offset"),
                        bool_param("napi", false, "use NAPI"), string_param("fc", "full", {"none", "full"}, "flow control")};
  ParamValues v(schema);
  CHECK(v.i("RxIntDelay") == 0);
  CHECK(v.s("fc") == "full");
  CHECK_FALSE(v.b("napi"));
  v.set("RxIntDelay", int64_t{8});
  CHECK(v.i("RxIntDelay") == 8);
  CHECK(v.r("RxIntDelay") == 8.0);  // r() reads integers too
  CHECK_THROWS_AS(v.i("nope"), std::out_of_range);
  CHECK_THROWS_AS(v.i("fc"), std::bad_variant_access);
  auto j = v.to_json();
  CHECK(j["RxIntDelay"] == 8);
  CHECK(j["clock_ppm"] == 0.0);
  CHECK(j["fc"] == "full");
}

TEST_CASE("nearest_name suggests the one name a truncated spelling is the start of", "[core][params]") {
  const std::vector<std::string> kernels = {"linux-2.4.20-i386", "linux-2.6.11-i386"};
  CHECK(nearest_name("linux-2.4.20", kernels) == "linux-2.4.20-i386");
  CHECK(nearest_name("Linux-2.6", kernels) == "linux-2.6.11-i386");
  CHECK(nearest_name("linux", kernels).empty());  // the start of both: no single suggestion
  CHECK(nearest_name("xeon", {"xeon-prestonia"}) == "xeon-prestonia");
  CHECK(nearest_name("xe", {"xeon-prestonia"}).empty());  // too short to be a name
}

TEST_CASE("int_set_param: an integer accepted only in a set of intervals", "[core][params]") {
  const ParamSpec s = int_set_param("FlowControl", 255, {{0, 3}, {255, 255}}, "mode", "flow control");
  CHECK(s.kind == ParamKind::Int);
  CHECK(*s.min == 0);
  CHECK(*s.max == 255);
  CHECK(accepted_text(s) == "0-3, 255");
  for (int64_t v : {0, 1, 3, 255}) CHECK(int_accepted(s, v));
  for (int64_t v : {-1, 4, 100, 254, 256}) CHECK_FALSE(int_accepted(s, v));
  // A plain range accepts all of [min, max] and has no set text.
  const ParamSpec r = int_param("Duplex", 0, 0, 2, "0-2", "duplex");
  CHECK(int_accepted(r, 2));
  CHECK_FALSE(int_accepted(r, 3));
  CHECK(accepted_text(r).empty());
  CHECK_THROWS_AS(int_set_param("x", 0, {}, "", ""), std::logic_error);
}

}  // namespace core_params_test
