// Reference files: parsing, validation messages, evaluation, table and JUnit XML.
#include "cli/check_refs.h"
#include "tests/support/sweep_check.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace check_refs_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {
const char* kGood = R"(# seed 000 references
fast = true

[[reference]]
metric = "one_way_us.1B"
expected = 28.0
tolerance = 0.15
source = "seed 000: NetPIPE 2.4, 82544GC, step 0"

[[reference]]
metric = "one_way_us.24B"
expected = 63
tolerance_abs = 3
source = "seed 000: run2 step 11"

[[reference]]
metric = "one_way_us.8B"
range = [60.0, 130]
source = "seed 000: bimodal 63/125"
)";

size_t count_of(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

std::string error_of(const std::string& text) {
  try {
    parse_ref_text(text, "scenarios/x.ref.toml");
  } catch (const RefFileError& e) {
    return e.what();
  }
  return "no error";
}

Reference rel(double expected, double tol) {
  Reference r;
  r.metric = "m";
  r.expected = expected;
  r.tolerance = tol;
  r.source = "s";
  return r;
}
}  // namespace

TEST_CASE("check: a reference file parses into its references", "[check]") {
  RefFile f = parse_ref_text(kGood, "scenarios/seed000/x.ref.toml");
  CHECK(f.fast);
  CHECK(f.scenario == fs::path("scenarios/seed000/x.toml"));
  REQUIRE(f.refs.size() == 3);
  CHECK(f.refs[0].metric == "one_way_us.1B");
  CHECK(*f.refs[0].expected == 28.0);
  CHECK(*f.refs[0].tolerance == 0.15);
  CHECK_FALSE(f.refs[0].tolerance_abs);
  CHECK(f.refs[0].line == 4);
  CHECK(*f.refs[1].expected == 63.0);  // integers are numbers too
  CHECK(*f.refs[1].tolerance_abs == 3.0);
  CHECK(f.refs[2].range == std::pair{60.0, 130.0});
  CHECK(f.refs[2].source == "seed 000: bimodal 63/125");
  CHECK(scenario_of_ref("a/b.ref.toml") == fs::path("a/b.toml"));
  CHECK(ref_of_scenario("a/b.toml") == fs::path("a/b.ref.toml"));
}

TEST_CASE("check: malformed reference files name file, line, key and a suggestion", "[check]") {
  std::string head = "[[reference]]\nmetric = \"m\"\nsource = \"s\"\n";
  // Misspelt key, with the nearest valid name.
  CHECK(error_of(head + "expected = 1.0\ntolerence = 0.1\n") ==
        "scenarios/x.ref.toml:5:1: key 'reference[0].tolerence': unknown key in a [[reference]] "
        "(did you mean 'tolerance'?)");
  CHECK_THAT(error_of("fats = true\n" + head + "expected = 1.0\ntolerance = 0.1\n"),
             Catch::StartsWith("scenarios/x.ref.toml:1:1: key 'fats'") && Catch::Contains("did you mean 'fast'?"));
  CHECK_THAT(error_of("[[referense]]\nmetric = \"m\"\n"),
             Catch::StartsWith("scenarios/x.ref.toml:1:3: key 'referense'") && Catch::Contains("'reference'"));
  // The second reference is reference[1] and the error points at its line.
  std::string two = head + "expected = 1.0\ntolerance = 0.1\n\n" + head + "expected = \"28\"\ntolerance = 0.1\n";
  CHECK(error_of(two) == "scenarios/x.ref.toml:10:12: key 'reference[1].expected': must be a number, got a string");
  CHECK_THAT(error_of("[[reference]]\nmetric = \"m\"\nexpected = 1.0\ntolerance = 0.1\n"),
             Catch::StartsWith("scenarios/x.ref.toml:1:") && Catch::Contains("reference[0].source': missing"));
  CHECK_THAT(error_of(head + "expected = 28.0\ntolerance = 15\n"),
             Catch::StartsWith("scenarios/x.ref.toml:5:13:") && Catch::Contains("0.15 means 15 %"));
  CHECK_THAT(error_of(head + "expected = 28.0\n"), Catch::Contains("add tolerance = 0.15"));
  CHECK_THAT(error_of(head + "expected = 28.0\ntolerance = 0.1\ntolerance_abs = 2\n"),
             Catch::StartsWith("scenarios/x.ref.toml:6:") && Catch::Contains("not both"));
  CHECK_THAT(error_of(head + "range = [1, 2]\nexpected = 1.5\n"), Catch::Contains("cannot be combined with range"));
  CHECK_THAT(error_of(head + "range = [3, 2]\n"), Catch::Contains("write [2, 3]"));
  CHECK_THAT(error_of(head + "range = [3]\n"), Catch::Contains("[low, high]"));
  CHECK_THAT(error_of(head + "expected = 0\ntolerance = 0.1\n"), Catch::Contains("use tolerance_abs"));
  CHECK_THAT(error_of(head + "tolerance = 0.1\n"), Catch::Contains("reference[0].expected': missing"));
  CHECK_THAT(error_of("fast = \"yes\"\n"), Catch::Contains("key 'fast': must be true or false"));
  CHECK_THAT(error_of("[reference]\nmetric = \"m\"\n"), Catch::Contains("[[reference]] header"));
  CHECK_THAT(error_of("fast = true\n"), Catch::Contains("no [[reference]]"));
  // known_miss: a non-empty string; misspelt, it is suggested.
  CHECK(error_of(head + "expected = 1.0\ntolerance = 0.1\nknown_miss = \"\"\n") ==
        "scenarios/x.ref.toml:6:14: key 'reference[0].known_miss': must not be empty");
  CHECK(error_of(head + "expected = 1.0\ntolerance = 0.1\nknown_miss = true\n") ==
        "scenarios/x.ref.toml:6:14: key 'reference[0].known_miss': must be a string, got a boolean");
  CHECK_THAT(error_of(head + "expected = 1.0\ntolerance = 0.1\nknown_mis = \"x\"\n"),
             Catch::Contains("did you mean 'known_miss'?"));
  // vs: another scenario file beside this one, not a reference file and not its own scenario.
  CHECK(error_of(head + "expected = 1.0\ntolerance_abs = 1\nvs = \"y.ref.toml\"\n") ==
        "scenarios/x.ref.toml:6:6: key 'reference[0].vs': 'y.ref.toml' is not a scenario file: name the other "
        "configuration's X.toml (beside this file, e.g. vs = \"x.toml\")");
  CHECK_THAT(error_of(head + "expected = 1.0\ntolerance_abs = 1\nvs = \"./x.toml\"\n"),
             Catch::Contains("is this file's own scenario"));
  CHECK_THAT(error_of(head + "expected = 1.0\ntolerance_abs = 1\nvss = \"y.toml\"\n"), Catch::Contains("did you mean 'vs'?"));
  CHECK(parse_ref_text(head + "expected = 1.0\ntolerance_abs = 1\nvs = \"../b/y.toml\"\n", "s/a/x.ref.toml").refs[0].vs ==
        fs::path("s/b/y.toml"));
  // TOML syntax error: position from the TOML parser.
  CHECK_THAT(error_of(head + "expected = 28.0 0\n"), Catch::StartsWith("scenarios/x.ref.toml:4:"));
}

TEST_CASE("check: relative, absolute and range references pass and fail at their bounds", "[check]") {
  nlohmann::json m = {{"m", 0.0}};
  auto verdict = [&](const Reference& r, double sim) {
    m["m"] = sim;
    return evaluate_reference(r, m).verdict;
  };
  // 28 ± 15 % -> [23.8, 32.2]
  Reference r = rel(28.0, 0.15);
  CHECK(verdict(r, 28.0) == Verdict::Pass);
  CHECK(verdict(r, 32.2) == Verdict::Pass);
  CHECK(verdict(r, 23.8) == Verdict::Pass);
  CHECK(verdict(r, 32.21) == Verdict::Fail);
  CHECK(verdict(r, 23.79) == Verdict::Fail);
  m["m"] = 40.6;
  RefCheck c = evaluate_reference(r, m);
  CHECK(c.error_text == "+45.0%");  // (40.6 - 28) / 28
  CHECK(c.message == "m: simulated 40.6, expected 28 ±15% (error +45.0%, allowed ±4.2)");
  // 63 ± 3 (absolute)
  Reference a = r;
  a.expected = 63;
  a.tolerance.reset();
  a.tolerance_abs = 3;
  CHECK(verdict(a, 66) == Verdict::Pass);
  CHECK(verdict(a, 59.9) == Verdict::Fail);
  m["m"] = 61;
  CHECK(evaluate_reference(a, m).error_text == "-2");
  // range [60, 130]
  Reference g = r;
  g.expected.reset();
  g.tolerance.reset();
  g.range = {60.0, 130.0};
  CHECK(verdict(g, 63) == Verdict::Pass);
  CHECK(verdict(g, 125) == Verdict::Pass);
  CHECK(verdict(g, 60) == Verdict::Pass);
  CHECK(verdict(g, 28) == Verdict::Fail);
  m["m"] = 140;
  c = evaluate_reference(g, m);
  CHECK(c.verdict == Verdict::Fail);
  CHECK(c.error_text == "10 above");
  CHECK(expected_text(g) == "[60, 130]");
  CHECK(expected_text(a) == "63 ±3");
}

TEST_CASE("check: a missing metric fails with the nearest metric name", "[check]") {
  Reference r = rel(28, 0.15);
  r.metric = "one_way_us.1b";
  RefCheck c = evaluate_reference(r, {{"one_way_us.1B", 28.0}, {"throughput_mbps.1B", 0.06}});
  CHECK(c.verdict == Verdict::Fail);
  CHECK_FALSE(c.simulated);
  CHECK_THAT(c.message, Catch::Contains("did you mean 'one_way_us.1B'?"));
  c = evaluate_reference(r, {{"one_way_us.1b", nullptr}});
  CHECK(c.verdict == Verdict::Fail);
  CHECK_THAT(c.message, Catch::Contains("not a number"));
  c = run_failed_reference(r, 2, "x.toml:3:1: key 'foo': unknown\nsecond line");
  CHECK(c.verdict == Verdict::Error);
  CHECK(c.message == "nicsim run failed (exit 2): second line");
}

TEST_CASE("check: JUnit names a missing or non-numeric metric as such, not as out of tolerance (bug: every failure "
          "was type out_of_tolerance)",
          "[check]") {
  Reference r = rel(28, 0.15);
  r.metric = "one_way_us.1b";
  std::vector<RefCheck> cs = {evaluate_reference(r, {{"one_way_us.1B", 28.0}}),
                              evaluate_reference(r, {{"one_way_us.1b", nullptr}}),
                              evaluate_reference(r, {{"one_way_us.1b", 40.0}})};
  for (auto& c : cs) c.scenario = "scenarios/a.toml";
  const std::string x = junit_xml(cs);
  CHECK(count_of(x, "<failure type=\"missing_metric\"") == 1);
  CHECK(count_of(x, "<failure type=\"not_a_number\"") == 1);
  CHECK(count_of(x, "<failure type=\"out_of_tolerance\"") == 1);
}

TEST_CASE("check: the table and the JUnit XML report every reference", "[check]") {
  std::vector<RefCheck> cs;
  nlohmann::json m = {{"m", 30.0}};
  cs.push_back(evaluate_reference(rel(28, 0.15), m));
  cs.back().scenario = "scenarios/a&b.toml";
  Reference bad = rel(20, 0.1);
  bad.source = "paper <table 2> \"quoted\" & more";
  cs.push_back(evaluate_reference(bad, m));
  cs.back().scenario = "scenarios/a&b.toml";
  cs.push_back(run_failed_reference(rel(1, 0.1), 1, "boom <here>"));
  cs.back().scenario = "scenarios/c.toml";

  std::string t = format_table(cs);
  CHECK_THAT(t, Catch::Contains("scenario") && Catch::Contains("simulated") && Catch::Contains("source"));
  CHECK_THAT(t, Catch::Contains("28 ±15%") && Catch::Contains("+7.1%") && Catch::Contains("pass"));
  CHECK_THAT(t, Catch::Contains("+50.0%") && Catch::Contains("FAIL"));
  CHECK_THAT(t, Catch::Contains("ERROR") && Catch::Contains("run failed"));
  CHECK_THAT(t, Catch::EndsWith("3 references: 1 passed, 0 known misses, 1 failed, 1 not run (run failed or interrupted)\n"));

  std::string x = junit_xml(cs);
  std::map<std::string, int> counts;
  CHECK(xml_problem(x, &counts) == "");
  CHECK(counts["testsuites"] == 1);
  CHECK(counts["testsuite"] == 2);
  CHECK(counts["testcase"] == 3);
  CHECK(counts["failure"] == 1);
  CHECK(counts["error"] == 1);
  CHECK_THAT(x, Catch::Contains("tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"0\""));
  CHECK(counts.count("skipped") == 0);
  CHECK_THAT(x, Catch::Contains("message=\"m: simulated 30, expected 20 ±10% (error +50.0%, allowed ±2)\""));
  CHECK_THAT(x, Catch::Contains("paper &lt;table 2&gt; &quot;quoted&quot; &amp; more"));
  CHECK_THAT(x, Catch::Contains("classname=\"scenarios.a&amp;b\""));
  // The checker itself rejects broken XML.
  CHECK(xml_problem("<a><b></a></b>") != "");
  CHECK(xml_problem("<a x=1></a>") != "");
  CHECK(xml_problem("<a>&nbsp;</a>") != "");
  CHECK(xml_problem("<a></a><b/>") != "");
}

TEST_CASE("check: reference files are found in directories, beside scenarios, or named", "[check]") {
  TempDir tmp;
  write_text(tmp / "s/seed000/a.toml", "");
  write_text(tmp / "s/seed000/a.ref.toml", kGood);
  write_text(tmp / "s/seed001/deep/b.toml", "");
  write_text(tmp / "s/seed001/deep/b.ref.toml", kGood);
  write_text(tmp / "s/seed001/c.toml", "");  // no references
  auto all = find_ref_files({tmp / "s"});
  REQUIRE(all.size() == 2);
  CHECK(all[0] == (tmp / "s/seed000/a.ref.toml"));
  CHECK(all[1] == (tmp / "s/seed001/deep/b.ref.toml"));
  CHECK(find_ref_files({tmp / "s/seed000/a.toml", tmp / "s/seed000/a.ref.toml", tmp / "s/seed000"}).size() == 1);
  CHECK_THROWS_WITH(find_ref_files({tmp / "s/seed001/c.toml"}), Catch::Contains("no reference file c.ref.toml"));
  CHECK_THROWS_WITH(find_ref_files({tmp / "nope"}), Catch::Contains("no such file or directory"));
}

TEST_CASE("check: every reference file shipped in scenarios/ is well-formed and beside its scenario", "[check]") {
  auto files = find_ref_files({fs::path(NICSIM_SOURCE_DIR) / "scenarios"});
  CHECK_FALSE(files.empty());
  for (auto& f : files) {
    INFO(f.string());
    RefFile rf;
    CHECK_NOTHROW(rf = parse_ref_file(f));
    CHECK(fs::is_regular_file(rf.scenario));
  }
}

TEST_CASE("check: a known_miss reference out of tolerance is a known miss, in tolerance a pass with a note", "[check]") {
  RefFile f = parse_ref_text(R"([[reference]]
metric = "one_way_us.1B"
expected = 28.0
tolerance = 0.15
source = "seed 000"
known_miss = "model gives ~19 us"
)",
                             "x.ref.toml");
  REQUIRE(f.refs.size() == 1);
  REQUIRE(f.refs[0].known_miss);
  CHECK(*f.refs[0].known_miss == "model gives ~19 us");
  CHECK_FALSE(parse_ref_text(kGood, "x.ref.toml").refs[0].known_miss);

  Reference r = f.refs[0];
  // 19 is 32.1 % below 28: outside ±15 % -> known miss, not a failure.
  RefCheck miss = evaluate_reference(r, {{"one_way_us.1B", 19.0}});
  CHECK(miss.verdict == Verdict::KnownMiss);
  CHECK(verdict_ok(miss.verdict));
  CHECK(miss.message ==
        "one_way_us.1B: simulated 19, expected 28 ±15% (error -32.1%, allowed ±4.2); known miss: model gives ~19 us");
  // 30 is within 28 ± 4.2 -> a plain pass.
  RefCheck ok = evaluate_reference(r, {{"one_way_us.1B", 30.0}});
  CHECK(ok.verdict == Verdict::Pass);
  CHECK(ok.message.empty());
  // A range reference misses the same way; a missing metric still fails, a failed run is an error.
  Reference g = r;
  g.expected.reset();
  g.tolerance.reset();
  g.range = {60.0, 130.0};
  CHECK(evaluate_reference(g, {{"one_way_us.1B", 41.0}}).verdict == Verdict::KnownMiss);
  CHECK(evaluate_reference(r, {{"one_way_us.24B", 19.0}}).verdict == Verdict::Fail);
  CHECK(run_failed_reference(r, 1, "boom").verdict == Verdict::Error);
  CHECK_FALSE(verdict_ok(Verdict::Fail));
  CHECK_FALSE(verdict_ok(Verdict::Error));
  CHECK(verdict_ok(Verdict::Pass));

  std::vector<RefCheck> cs = {miss, ok};
  cs[0].scenario = cs[1].scenario = "scenarios/a.toml";
  std::string t = format_table(cs);
  CHECK_THAT(t, Catch::Contains("  MISS (known)" + std::string(22, ' ') + "seed 000\n"));  // padded to the note
  CHECK_THAT(t, Catch::Contains("  pass (known_miss can be removed)  seed 000\n"));
  CHECK_THAT(t, Catch::Contains("MISS (known) scenarios/a.toml: one_way_us.1B: simulated 19, expected 28 ±15% "
                                "(error -32.1%, allowed ±4.2); known miss: model gives ~19 us\n"));
  CHECK_THAT(t, Catch::Contains("NOTE scenarios/a.toml: one_way_us.1B passes: its known_miss can be removed\n"));
  CHECK_THAT(t, Catch::EndsWith("2 references: 1 passed, 1 known misses, 0 failed, 0 not run (run failed or interrupted)\n"));

  std::string x = junit_xml(cs);
  std::map<std::string, int> counts;
  CHECK(xml_problem(x, &counts) == "");
  CHECK(counts["testcase"] == 2);
  CHECK(counts["skipped"] == 1);
  CHECK(counts.count("failure") == 0);
  CHECK(counts.count("error") == 0);
  CHECK_THAT(x, Catch::Contains("<skipped message=\"known miss: model gives ~19 us\"/>"));
  CHECK_THAT(x, Catch::Contains("tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"1\""));
  CHECK_THAT(x, Catch::Contains("passes: its known_miss can be removed"));
}

TEST_CASE("check: a metric may be an expression over metrics and counters -- ratio, sum, parentheses", "[check]") {
  const nlohmann::json m = {{"mbps.65536B", 600.0}};
  const nlohmann::json counters = {{"beta.netstat.Tcp.RetransSegs", 234},
                                   {"beta.netstat.TcpExt.DelayedACKLost", 234},
                                   {"alpha.netstat.Tcp.RetransSegs", 100},
                                   {"beta.netstat.TcpExt.TCPPrequeued", 0}};
  Reference r = rel(1.0, 0.1);
  // A counter by name alone (not among the metrics).
  r.metric = "beta.netstat.Tcp.RetransSegs";
  r.expected = 234;
  CHECK(evaluate_reference(r, m, counters).verdict == Verdict::Pass);
  // Ratio of two counters of the same run: 234 / 234 = 1.
  r.metric = "beta.netstat.TcpExt.DelayedACKLost / beta.netstat.Tcp.RetransSegs";
  r.expected = 1.0;
  RefCheck c = evaluate_reference(r, m, counters);
  CHECK(c.verdict == Verdict::Pass);
  CHECK(*c.simulated == Approx(1.0));
  // The failing case: 234 / 100 = 2.34 is not 1 +-10%.
  r.metric = "beta.netstat.TcpExt.DelayedACKLost / alpha.netstat.Tcp.RetransSegs";
  c = evaluate_reference(r, m, counters);
  CHECK(c.verdict == Verdict::Fail);
  CHECK(*c.simulated == Approx(2.34));
  CHECK_THAT(c.message, Catch::Contains("simulated 2.34"));
  // Precedence and parentheses: (234 + 100) / 2 = 167; 234 + 100 / 2 = 284; a metric and a number mix.
  r.metric = "(beta.netstat.Tcp.RetransSegs + alpha.netstat.Tcp.RetransSegs) / 2";
  r.expected = 167;
  CHECK(evaluate_reference(r, m, counters).verdict == Verdict::Pass);
  r.metric = "beta.netstat.Tcp.RetransSegs + alpha.netstat.Tcp.RetransSegs / 2";
  r.expected = 284;
  CHECK(evaluate_reference(r, m, counters).verdict == Verdict::Pass);
  r.metric = "mbps.65536B * 2 - - 10";  // "-10" would be a name: operators are words
  r.expected = 1210;
  CHECK(evaluate_reference(r, m, counters).verdict == Verdict::Pass);
  // A divisor of 0 has no value: it fails (even with known_miss, like a missing metric).
  r.metric = "beta.netstat.Tcp.RetransSegs / beta.netstat.TcpExt.TCPPrequeued";
  r.known_miss = "explained";
  c = evaluate_reference(r, m, counters);
  CHECK(c.verdict == Verdict::Fail);
  CHECK_FALSE(c.simulated);
  CHECK_THAT(c.message, Catch::Contains("division by zero ('beta.netstat.TcpExt.TCPPrequeued' is 0)"));
  // A misspelt name inside an expression: the nearest metric or counter.
  r.metric = "beta.netstat.Tcp.RetransSeg / beta.netstat.Tcp.RetransSegs";
  c = evaluate_reference(r, m, counters);
  CHECK(c.verdict == Verdict::Fail);
  CHECK_THAT(c.message, Catch::Contains("metric 'beta.netstat.Tcp.RetransSeg' is not in the run's result.json metrics or "
                                        "counters (did you mean 'beta.netstat.Tcp.RetransSegs'?)"));
}

TEST_CASE("check: a malformed metric expression is refused when the file is read, naming file, line and key",
          "[check]") {
  const std::string head = "[[reference]]\nsource = \"s\"\nexpected = 1.0\ntolerance = 0.1\n";
  CHECK_THAT(error_of(head + "metric = \"a /\"\n"),
             Catch::StartsWith("scenarios/x.ref.toml:5:10: key 'reference[0].metric': 'a /' is neither one metric name "
                               "nor an expression: expected a name or a number after '/'"));
  CHECK_THAT(error_of(head + "metric = \"a b\"\n"), Catch::Contains("expected an operator (+ - * /) between words"));
  CHECK_THAT(error_of(head + "metric = \"(a / b\"\n"), Catch::Contains("missing ')'"));
  CHECK_THAT(error_of(head + "metric = \"a / * b\"\n"), Catch::Contains("found '*'"));
  CHECK(parse_metric_expr("(a + b) / c").tokens == std::vector<std::string>{"(", "a", "+", "b", ")", "/", "c"});
  CHECK(parse_metric_expr("a-b.c_d").single_name());  // '-' inside a word is part of the name
  CHECK(parse_metric_expr("a / b + a").names() == std::vector<std::string>{"a", "b"});
}

TEST_CASE("check: a metric expression nested 20000 deep is a clear error, not a stack overflow (bug: segfault)",
          "[check]") {
  const std::string head = "[[reference]]\nsource = \"s\"\nexpected = 1.0\ntolerance = 0.1\n";
  const std::string parens = std::string(20000, '(') + "a" + std::string(20000, ')');
  CHECK_THAT(error_of(head + "metric = \"" + parens + "\"\n"),
             Catch::StartsWith("scenarios/x.ref.toml:5:10: key 'reference[0].metric':") &&
                 Catch::Contains("nested too deep: more than 256 levels"));
  std::string minus;
  for (int i = 0; i < 40000; ++i) minus += "- ";
  CHECK_THAT(error_of(head + "metric = \"" + minus + "1\"\n"), Catch::Contains("nested too deep"));
  // At the limit it still parses: 256 levels of parentheses, or of unary minus.
  CHECK(parse_metric_expr(std::string(256, '(') + "a" + std::string(256, ')')).single_name() == false);
  std::string m256;
  for (int i = 0; i < 256; ++i) m256 += "- ";
  CHECK_NOTHROW(parse_metric_expr(m256 + "a"));
  CHECK_THROWS_AS(parse_metric_expr(std::string(257, '(') + "a" + std::string(257, ')')), std::invalid_argument);
}

}  // namespace check_refs_test
