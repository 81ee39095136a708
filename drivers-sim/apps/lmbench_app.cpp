#include "drivers-sim/apps/lmbench_app.h"
#include <fmt/format.h>
#include <stdexcept>

namespace nicsim {

namespace {

constexpr int kTrips = 5;  // lat_ctx.c TRIPS
constexpr uint32_t kLocalhost = 0x7f000001u;

struct Names {
  LmbenchTest t;
  const char* name;
};
constexpr Names kNames[] = {{LmbenchTest::lat_syscall, "lat_syscall"},
                            {LmbenchTest::lat_pipe, "lat_pipe"},
                            {LmbenchTest::lat_ctx, "lat_ctx"},
                            {LmbenchTest::lat_tcp, "lat_tcp"},
                            {LmbenchTest::lat_udp, "lat_udp"}};

sc_core::sc_time now() { return sc_core::sc_time_stamp(); }

/// One pass of a read or write that must move exactly `len` bytes; error text otherwise.
bool io_ok(long n, long len, const char* what, std::string* err) {
  if (n == len) return true;
  if (err->empty()) *err = fmt::format("{} returned {} (want {})", what, n, len);
  return false;
}

// ---- children ---------------------------------------------------------------------------------

/// lat_pipe's child and lat_ctx's doit(): read `rd`, write `wr`, until EOF or an error.
Task<void> pipe_relay(Kernel* k, Pipe* rd, Pipe* wr, size_t bytes) {
  uint8_t buf[4] = {};
  for (;;) {
    long n = co_await k->sys_read(*rd, buf, bytes);
    if (n != static_cast<long>(bytes)) co_return;  // EOF: kill(pid, SIGTERM) in the parent
    n = co_await k->sys_write(*wr, buf, bytes);
    if (n != static_cast<long>(bytes)) co_return;
  }
}

/// lat_tcp's doserver (the forked child per connection): echo one byte at a time.
Task<void> tcp_doserver(Kernel* k, Socket* s) {
  for (;;) {
    long n = co_await k->sys_read(*s, 1);
    if (n != 1) co_return;
    n = co_await k->sys_write(*s, 1);
    if (n != 1) co_return;
  }
}

/// `lat_tcp -s`: tcp_server(TCP_XACT) and an accept loop forking doserver.
Task<void> tcp_server_main(LmbenchHost h, uint16_t port) {
  for (;;) {
    Socket* s = co_await h.inet->listen_accept(port, "lat_tcp -s", false);
    h.kernel->spawn_process("lat_tcp", tcp_doserver(h.kernel, s));  // fork(): doserver(newsock)
    co_return;  // one connection per run (the real server loops in accept again)
  }
}

/// `lat_udp -s`: udp_server(UDP_XACT); recvfrom a sequence number, sendto it back.
Task<void> udp_server_main(LmbenchHost h, Socket* s) {
  for (;;) {
    long n = co_await h.kernel->sys_read(*s, 4);
    if (n != 4) co_return;
    n = co_await h.kernel->sys_write(*s, 4);
    if (n != 4) co_return;
  }
}

// ---- the timed bodies ------------------------------------------------------------------------

struct BenchState {
  Kernel* k = nullptr;
  LmbenchTest test = LmbenchTest::lat_syscall;
  bool cost_loop = false;  // lat_ctx: doit_cost instead of ctx
  Pipe* p[2] = {nullptr, nullptr};
  Socket* sock = nullptr;
  int ctx_k = 0;  // doit_cost's static k
  std::string err;
};

/// One call of the BENCH body. Returns false on an error (st.err set).
Task<bool> body(BenchState& st) {
  Kernel& k = *st.k;
  uint8_t c[4] = {1, 0, 0, 0};
  switch (st.test) {
    case LmbenchTest::lat_syscall: {
      long r = co_await k.sys_getppid();
      (void)r;
      co_return true;
    }
    case LmbenchTest::lat_pipe: {  // doit(p2[0], p1[1]): write p1, read p2
      long n = co_await k.sys_write(*st.p[0], c, 1);
      if (!io_ok(n, 1, "write on pipe", &st.err)) co_return false;
      n = co_await k.sys_read(*st.p[1], c, 1);
      co_return io_ok(n, 1, "read on pipe", &st.err);
    }
    case LmbenchTest::lat_ctx: {
      for (int i = 0; i < kTrips; ++i) {
        if (st.cost_loop) {  // doit_cost: through one's own pipe, alternating
          Pipe& pk = *st.p[st.ctx_k];
          long n = co_await k.sys_write(pk, c, 4);
          if (!io_ok(n, 4, "write on pipe", &st.err)) co_return false;
          n = co_await k.sys_read(pk, c, 4);
          if (!io_ok(n, 4, "read on pipe", &st.err)) co_return false;
          if (++st.ctx_k == 2) st.ctx_k = 0;
        } else {  // ctx(2, 2): write p[0], read p[1]; sumit(0) touches nothing
          long n = co_await k.sys_write(*st.p[0], c, 4);
          if (!io_ok(n, 4, "write on pipe", &st.err)) co_return false;
          n = co_await k.sys_read(*st.p[1], c, 4);
          if (!io_ok(n, 4, "read on pipe", &st.err)) co_return false;
        }
      }
      co_return true;
    }
    case LmbenchTest::lat_tcp: {  // doclient: write 1, read 1
      long n = co_await k.sys_write(*st.sock, 1);
      if (!io_ok(n, 1, "write on the TCP socket", &st.err)) co_return false;
      n = co_await k.sys_read(*st.sock, 1);
      co_return io_ok(n, 1, "read on the TCP socket", &st.err);
    }
    case LmbenchTest::lat_udp: {  // doit: send 4, recv 4
      long n = co_await k.sys_write(*st.sock, 4);
      if (!io_ok(n, 4, "lat_udp client: send", &st.err)) co_return false;
      n = co_await k.sys_read(*st.sock, 4);
      co_return io_ok(n, 4, "lat_udp client: recv", &st.err);
    }
  }
  co_return false;
}

/// BENCH(body, ...): a warm-up call, then `tries` loops of `n` calls; the median loop time in whole
/// µs (save_median). Returns -1 on an error.
Task<double> bench(BenchState& st, long n, int tries) {
  bool ok = co_await body(st);  // warm the cache
  if (!ok) co_return -1;
  std::vector<uint64_t> u;
  for (int t = 0; t < tries; ++t) {
    const sc_core::sc_time t0 = now();
    for (long i = 0; i < n; ++i) {
      ok = co_await body(st);
      if (!ok) co_return -1;
    }
    u.push_back(lmbench_whole_usecs((now() - t0).to_seconds()));
  }
  co_return lmbench_median_usecs(u);
}

/// micro(label, n) of a BENCH whose median loop took `u` whole µs: the result and its line.
void set_micro(LmbenchResult& res, const char* label, double u, long n) {
  res.us = u / static_cast<double>(n);
  res.output = lmbench_micro_line(label, u, static_cast<uint64_t>(n));
}

Pipe& new_pipe(LmbenchRun* run, const std::string& name) {
  run->pipes.push_back(std::make_unique<Pipe>(name));
  return *run->pipes.back();
}

/// Close the write end of `p` and wake its reader (the child's read returns EOF): what kill(pid,
/// SIGTERM) achieves for the benchmark, without modelling signals.
Task<void> end_child(Kernel& k, Pipe& p) {
  p.close_write();
  co_await k.wake_up(p.wait);
}

Task<bool> run_one(LmbenchHost h, LmbenchRun* run, LmbenchResult& res) {
  Kernel& k = *h.kernel;
  BenchState st;
  st.k = &k;
  st.test = res.test;
  const long n = run->iterations;
  switch (res.test) {
    case LmbenchTest::lat_syscall: {
      double u = co_await bench(st, n, run->tries);
      if (u < 0) break;
      set_micro(res, "Simple syscall", u, n);
      co_return true;
    }
    case LmbenchTest::lat_pipe: {
      Pipe& p1 = new_pipe(run, "lat_pipe p1");
      Pipe& p2 = new_pipe(run, "lat_pipe p2");
      k.spawn_process("lat_pipe", pipe_relay(&k, &p1, &p2, 1));  // fork(): the child
      st.p[0] = &p1;
      st.p[1] = &p2;
      // "One time around to make sure both processes are started" is bench()'s warm-up call.
      double u = co_await bench(st, n, run->tries);
      co_await end_child(k, p1);
      if (u < 0) break;
      set_micro(res, "Pipe latency", u, n);
      co_return true;
    }
    case LmbenchTest::lat_ctx: {
      Pipe& p0 = new_pipe(run, "lat_ctx p[0]");
      Pipe& p1 = new_pipe(run, "lat_ctx p[1]");
      st.p[0] = &p0;
      st.p[1] = &p1;
      st.cost_loop = true;  // pipe_cost(p, 2) before the daemons exist
      double u = co_await bench(st, n, run->tries);
      if (u < 0) break;
      const double overhead = u / static_cast<double>(n) / kTrips;
      k.spawn_process("lat_ctx", pipe_relay(&k, &p0, &p1, 4));  // create_daemons: doit(p, 0, 1)
      st.cost_loop = false;
      // create_daemons' "once around the loop" is bench()'s warm-up call (of TRIPS rounds).
      u = co_await bench(st, n, run->tries);
      co_await end_child(k, p0);
      if (u < 0) break;
      constexpr int kProcs = 2;
      res.overhead_us = overhead;
      res.us = u / static_cast<double>(n) / kProcs / kTrips - overhead;
      res.output = lat_ctx_header(0, overhead) + lat_ctx_line(kProcs, res.us);
      co_return true;
    }
    case LmbenchTest::lat_tcp: {
      k.spawn_process("lat_tcp -s", tcp_server_main(h, run->tcp_port));
      WaitQueue nap;
      co_await k.schedule_timeout(nap, 1);  // the shell starts the client after the server
      Socket& s = h.inet->tcp_socket("lat_tcp", false);
      int rc = co_await h.inet->connect(s, kLocalhost, run->tcp_port);
      if (rc != 0) {
        st.err = fmt::format("tcp_connect(localhost) failed: {}", rc);
        break;
      }
      st.sock = &s;
      double u = co_await bench(st, n, run->tries);
      if (u < 0) break;
      set_micro(res, "TCP latency using localhost", u, n);
      co_return true;
    }
    case LmbenchTest::lat_udp: {
      Socket& srv = h.inet->udp_socket("lat_udp -s");
      h.inet->udp_bind(srv, run->udp_port);
      k.spawn_process("lat_udp -s", udp_server_main(h, &srv));
      Socket& s = h.inet->udp_socket("lat_udp");
      h.inet->udp_connect(s, kLocalhost, run->udp_port);
      st.sock = &s;
      double u = co_await bench(st, n, run->tries);
      if (u < 0) break;
      set_micro(res, "UDP latency using localhost", u, n);
      co_return true;
    }
  }
  run->error = fmt::format("{}: {}", lmbench_test_name(res.test), st.err.empty() ? "failed" : st.err);
  co_return false;
}

}  // namespace

const char* lmbench_test_name(LmbenchTest t) {
  for (const auto& n : kNames)
    if (n.t == t) return n.name;
  return "?";
}

std::optional<LmbenchTest> lmbench_test_of(const std::string& name) {
  for (const auto& n : kNames)
    if (name == n.name) return n.t;
  return std::nullopt;
}

std::vector<std::string> lmbench_test_names() {
  std::vector<std::string> v;
  for (const auto& n : kNames) v.emplace_back(n.name);
  return v;
}

Task<void> lmbench_main(LmbenchHost host, LmbenchRun* run, std::function<void(size_t)> on_result,
                        std::function<void()> on_done) {
  co_await host.wait_network_up();
  for (LmbenchTest t : run->tests) {
    LmbenchResult r;
    r.test = t;
    bool ok = co_await run_one(host, run, r);
    if (!ok) break;
    run->results.push_back(std::move(r));
    if (on_result) on_result(run->results.size() - 1);
  }
  run->finished = true;
  if (on_done) on_done();
}

}  // namespace nicsim
