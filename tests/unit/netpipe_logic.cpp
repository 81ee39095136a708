// NetPIPE 2.4 logic against the seed 000 output (../shared/seeds/000_*.txt).
#include "drivers-sim/apps/netpipe_logic.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

// This file's own names, apart from the other files of a unity batch.
namespace netpipe_logic_test {
using namespace nicsim;

namespace {

struct SeedRow {
  std::string line;
  int n = 0, bytes = 0, times = 0;
  double mbps = 0, t = 0;
};
struct SeedRun {
  std::string latency_line;
  double latency = 0;
  std::vector<SeedRow> rows;
};

std::vector<SeedRun> read_seed000() {
  namespace fs = std::filesystem;
  std::string path;
  for (auto& e : fs::directory_iterator(std::string(NICSIM_SHARED_DIR) + "/seeds"))
    if (e.path().filename().string().rfind("000_", 0) == 0) path = e.path().string();
  std::ifstream in(path);
  std::vector<SeedRun> runs;
  for (std::string l; std::getline(in, l);) {
    if (l.rfind("Latency: ", 0) == 0) {
      runs.emplace_back();
      runs.back().latency_line = l;
      runs.back().latency = std::stod(l.substr(9));
      continue;
    }
    SeedRow r;
    if (!runs.empty() &&
        std::sscanf(l.c_str(), "%d: %d bytes %d times --> %lf Mbps in %lf sec", &r.n, &r.bytes,
                    &r.times, &r.mbps, &r.t) == 5) {
      r.line = l;
      runs.back().rows.push_back(r);
    }
  }
  return runs;
}

struct Interval {
  double lo, hi;  // (lo, hi]
  bool empty() const { return !(lo < hi); }
  Interval meet(Interval o) const { return {std::max(lo, o.lo), std::min(hi, o.hi)}; }
  double mid() const { return 0.5 * (lo + hi); }
};

// Times printed with %f are rounded to the microsecond.
Interval printed(double t) { return {t - 0.5e-6, t + 0.5e-6}; }
// nrepeat = (int)(RUNTM / (ratio * t)) = N  <=>  RUNTM/(ratio (N+1)) < t <= RUNTM/(ratio N)
Interval from_repeat(int N, double ratio, double runtm = 0.25) {
  return {runtm / (ratio * (N + 1)), runtm / (ratio * N)};
}

}  // namespace

TEST_CASE("NetPIPE schedule: the seed's sizes, then the familiar 29 32 35 ... 125 128 131",
          "[netpipe]") {
  NetpipeOptions o;
  NetpipeSchedule s(o);
  std::vector<int> got;
  NetpipeStep st;
  for (int i = 0; i < 30 && s.next(0.0001, &st); ++i) {
    CHECK(st.n == i);
    got.push_back(st.bytes);
  }
  const std::vector<int> expect = {1,  2,  3,  4,  6,  8,  12, 13, 16, 19,  21,  24,  27,  29,  32,
                                   35, 45, 48, 51, 61, 64, 67, 93, 96, 99, 125, 128, 131, 189, 192};
  CHECK(got == expect);
}

TEST_CASE("NetPIPE schedule stops at the upper limit and at STOPTM, after the whole group",
          "[netpipe]") {
  NetpipeOptions o;
  o.end_bytes = 24;
  NetpipeSchedule s(o);
  NetpipeStep st;
  int last = 0, count = 0;
  while (s.next(0.0001, &st)) {
    last = st.bytes;
    ++count;
  }
  CHECK(count == 13);  // the 24-byte group (21, 24, 27) runs whole; len 32 > end stops
  CHECK(last == 27);
  NetpipeSchedule t(NetpipeOptions{});
  REQUIRE(t.next(0.5, &st));
  CHECK_FALSE(t.next(1.0, &st));  // tlast >= STOPTM (1 s) ends the loop
}

TEST_CASE("NetPIPE repeat rule and line format reproduce the seed 000 output exactly",
          "[netpipe]") {
  auto runs = read_seed000();
  REQUIRE(runs.size() == 3);
  NetpipeOptions o;
  for (auto& run : runs) {
    REQUIRE(run.rows.size() == 12);
    NetpipeSchedule sched(o);
    std::vector<NetpipeStep> steps(12);
    for (auto& st : steps) REQUIRE(sched.next(0.0001, &st));
    // One-way times consistent with both their printed value and the next row's repeat count
    // under the NetPIPE rule (previous size, current increment, previous time).
    std::vector<Interval> t(12);
    Interval lat = printed(run.latency).meet(from_repeat(run.rows[0].times, 1.0));
    REQUIRE_FALSE(lat.empty());
    for (size_t i = 0; i < 12; ++i) {
      REQUIRE(run.rows[i].bytes == steps[i].bytes);
      t[i] = printed(run.rows[i].t);
      // The printed Mbps (%6.2f) bounds t too: Mbps = 8 bytes / (t 2^20).
      const double bits = 8.0 * run.rows[i].bytes;
      t[i] = t[i].meet({bits / ((run.rows[i].mbps + 0.005) * 1048576.0),
                        bits / ((run.rows[i].mbps - 0.005) * 1048576.0)});
      if (i + 1 < 12) {
        double prev = steps[i].bytes, inc = steps[i + 1].inc;
        t[i] = t[i].meet(from_repeat(run.rows[i + 1].times, prev / (prev - inc + 1.0)));
      }
      INFO("row " << i << " of " << run.latency_line);
      REQUIRE_FALSE(t[i].empty());
    }
    // With those times the pure functions print the seed's text byte for byte.
    CHECK(netpipe_latency_lines(lat.mid()) == run.latency_line + "\nNow starting main loop\n");
    int prev = 1;
    double tlast = lat.mid();
    for (size_t i = 0; i < 12; ++i) {
      CHECK(netpipe_nrepeat(o.runtm_s, prev, steps[i].inc, tlast, o.trials) == run.rows[i].times);
      std::string line = netpipe_progress_line(steps[i].n, steps[i].bytes, run.rows[i].times,
                                               netpipe_mbps(steps[i].bytes, t[i].mid()), t[i].mid());
      CHECK(line == run.rows[i].line + "\n");
      prev = steps[i].bytes;
      tlast = t[i].mid();
    }
  }
  // The rule can fail: using the current size instead of the previous one makes the printed
  // times and the repeat counts contradict each other somewhere in the seed.
  bool contradiction = false;
  for (auto& run : runs) {
    NetpipeSchedule sched(o);
    std::vector<NetpipeStep> steps(12);
    for (auto& st : steps) sched.next(0.0001, &st);
    for (size_t i = 0; i + 1 < 12; ++i) {
      double cur = steps[i + 1].bytes, inc = steps[i + 1].inc;
      if (printed(run.rows[i].t).meet(from_repeat(run.rows[i + 1].times, cur / (cur - inc + 1.0))).empty())
        contradiction = true;
    }
  }
  CHECK(contradiction);
}

TEST_CASE("NetPIPE Mbps counts 2^20 bits per second", "[netpipe]") {
  CHECK(netpipe_mbps(1, 0.000123) == Approx(8.0 / (0.000123 * 1048576.0)));
  CHECK(netpipe_mbps(65536, 0.000657) == Approx(761.0).epsilon(0.001));  // seed 004: 760.54
  CHECK(netpipe_out_line(0.000123, 0.062, 8, 1, 0.0) == "0.000123\t0.062000\t8\t1\t0.000000\n");
}

TEST_CASE("NetPIPE programs: ping-pong over a fixed-delay pipe measure that delay", "[netpipe]") {
  // A byte pipe with one-way time d + bytes * c in each direction; both programs run to the end.
  NetpipeOptions o;
  o.end_bytes = 24;
  o.runtm_s = 0.002;  // a shorter run
  o.trials = 3;
  const double d = 28e-6, c = 8e-9;
  NetpipeChannel ch;
  NetpipeProgram tx(o, true, &ch), rx(o, false, &ch);
  struct Side {
    NetpipeProgram* p;
    NetpipeOp op;
    double t = 0;
    std::deque<std::pair<double, size_t>> in;  // arrival time, bytes
  } side[2] = {{&tx, {}, 0, {}}, {&rx, {}, 0, {}}};
  for (auto& s : side) s.op = s.p->next(0);
  long ops = 0;
  while (!(tx.done() && rx.done())) {
    bool progress = false;
    for (int k = 0; k < 2; ++k) {
      Side& s = side[k];
      Side& o2 = side[1 - k];
      if (s.op.kind == NetpipeOpKind::Send) {
        o2.in.push_back({s.t + d + double(s.op.bytes) * c, s.op.bytes});
        s.op = s.p->next(s.t);
        progress = true;
      } else if (s.op.kind == NetpipeOpKind::Recv) {
        size_t avail = 0;
        for (auto& x : s.in) avail += x.second;
        if (avail >= s.op.bytes) {
          size_t need = s.op.bytes;
          while (need) {
            auto& x = s.in.front();
            size_t take = std::min(need, x.second);
            s.t = std::max(s.t, x.first);
            x.second -= take;
            need -= take;
            if (!x.second) s.in.pop_front();
          }
          s.op = s.p->next(s.t);
          progress = true;
        }
      }
      ++ops;
    }
    REQUIRE(progress);  // no deadlock: both sides follow the same script
  }
  CHECK(ch.values.empty());
  CHECK(tx.latency_s() == Approx(d + c));
  const auto& res = tx.results();
  REQUIRE(res.size() == 13);
  int prev = 1;
  double tlast = tx.latency_s();
  NetpipeSchedule sched(o);
  for (auto& r : res) {
    NetpipeStep st;
    REQUIRE(sched.next(tlast, &st));
    CHECK(r.bytes == st.bytes);
    CHECK(r.t_s == Approx(d + r.bytes * c).epsilon(1e-9));
    CHECK(r.nrepeat == netpipe_nrepeat(o.runtm_s, prev, st.inc, tlast, o.trials));
    CHECK(r.variance == Approx(0.0).margin(1e-15));
    prev = r.bytes;
    tlast = r.t_s;
  }
  // Output: the Latency line, "Now starting main loop", one progress line per size; NetPIPE.out
  // holds one line per size.
  std::istringstream prog(tx.progress_text());
  std::vector<std::string> lines;
  for (std::string l; std::getline(prog, l);) lines.push_back(l);
  REQUIRE(lines.size() == 2 + res.size());
  CHECK(lines[0].rfind("Latency: 0.000028", 0) == 0);
  CHECK(lines[1] == "Now starting main loop");
  CHECK(lines[2].rfind("  0:         1 bytes ", 0) == 0);
  CHECK(std::count(tx.out_file().begin(), tx.out_file().end(), '\n') == long(res.size()));
  CHECK(rx.results().empty());
}

TEST_CASE("NetPIPE -l 65536 -u 65536: the group 65533, 65536, 65539 numbered 0..2 -- seed 004's line 1 with its "
          "times and Mbps",
          "[netpipe]") {
  NetpipeOptions o;
  o.start_bytes = 65536;
  o.end_bytes = 65536;
  NetpipeSchedule s(o);
  NetpipeStep st;
  std::vector<int> bytes, ns;
  double tlast = 0.000657;
  while (s.next(tlast, &st)) {
    bytes.push_back(st.bytes);
    ns.push_back(st.n);
    CHECK(st.inc == 32768);  // inc = start / 2 (start > 1), above PERT + 1: perturbed by -3, 0, +3
  }
  CHECK(bytes == std::vector<int>{65533, 65536, 65539});  // len += inc then exceeds -u: the loop ends
  CHECK(ns == std::vector<int>{0, 1, 2});
  // nrepeat = RUNTM / ((bufflen / (bufflen - inc + 1)) * tlast), bufflen = the previous size:
  // line 0 follows bufflen = 1 (a negative quotient: TRIALS), line 1 follows 65533 at 657 us.
  CHECK(netpipe_nrepeat(0.25, 1, 32768, 0.000032, 7) == 7);
  const int n1 = netpipe_nrepeat(0.25, 65533, 32768, 0.000657, 7);
  CHECK(n1 == int(0.25 / (65533.0 / 32766.0 * 0.000657)));
  CHECK(n1 == 190);  // seed 004: "190 times"
  CHECK(netpipe_progress_line(1, 65536, n1, netpipe_mbps(65536, 0.000657), 0.000657) ==
        "  1:     65536 bytes  190 times -->  761.04 Mbps in 0.000657 sec\n");
}

}  // namespace netpipe_logic_test
