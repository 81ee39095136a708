// Pipes (2.4.20 fs/pipe.c as drivers-sim/kernel/pipe.h models them), the null system call and the
// loopback device (drivers-sim/drivers/loopback): blocking, PIPE_BUF atomicity, EOF and EPIPE,
// costs charged per the rules, and a loopback TCP exchange received on the sending CPU.
#include "drivers-sim/drivers/loopback/loopback.h"
#include "drivers-sim/kernel/pipe.h"
#include "drivers-sim/net/inet.h"
#include "kernel_fake_host.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace kernel_pipe_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {
}  // namespace

TEST_CASE("pipe: getppid costs syscall entry + exit, a write to an empty pipe adds pipe_rw + the copy",
          "[kernel][pipe]") {
  FakeHost hw;
  Kernel k(hw, bench_params());
  Pipe p;
  sc_time t0, t1, t2;
  long w = 0;
  auto main = [&]() -> Task<void> {
    t0 = now();
    co_await k.sys_getppid();
    t1 = now();
    const uint8_t b[3] = {1, 2, 3};
    w = co_await k.sys_write(p, b, 3);
    t2 = now();
  };
  k.spawn_process("lat_syscall", 0, main());
  sc_core::sc_start(us(50));
  CHECK(t1 - t0 == C(k, CostId::syscall_entry) + C(k, CostId::syscall_exit));
  // Nobody sleeps on PIPE_WAIT: its wake_up wakes no task and charges no wakeup.
  CHECK(t2 - t1 == C(k, CostId::syscall_entry) + C(k, CostId::pipe_rw) + C(k, CostId::copy_user_cached, 3) +
                        C(k, CostId::syscall_exit));
  CHECK(w == 3);
  CHECK(p.len == 3);
}

TEST_CASE("pipe: a reader of an empty pipe sleeps until the writer's data arrives, then gets it", "[kernel][pipe]") {
  FakeHost hw;
  Kernel k(hw, bench_params(2));  // reader on CPU1, writer on CPU0: both start at once
  Pipe p;
  uint8_t got[8] = {};
  long r = -1;
  sc_time t_read_back, t_write_start;
  auto reader = [&]() -> Task<void> {
    r = co_await k.sys_read(p, got, sizeof got);  // asks for 8, gets what is there (2)
    t_read_back = now();
  };
  auto writer = [&]() -> Task<void> {
    co_await cpu_work(4000);  // the reader is asleep by now
    const uint8_t b[2] = {7, 9};
    t_write_start = now();
    co_await k.sys_write(p, b, 2);
  };
  Process& rp = k.spawn_process("reader", 1, reader());
  k.spawn_process("writer", 0, writer());
  sc_core::sc_start(us(100));
  CHECK(r == 2);
  CHECK(got[0] == 7);
  CHECK(got[1] == 9);
  CHECK(p.empty());
  CHECK(rp.nvcsw() == 1);           // it slept once, in pipe_wait
  CHECK(t_read_back > t_write_start);  // it returned only after the write
}

TEST_CASE("pipe: writes up to PIPE_BUF are atomic, larger ones fill the page and wait for room", "[kernel][pipe]") {
  FakeHost hw;
  Kernel k(hw, bench_params(2));  // writer on CPU0, reader on CPU1 (it looks at the pipe after 10 us)
  Pipe p;
  std::vector<uint8_t> big(6000, 0x5a);
  long w_small = 0, w_big = 0;
  size_t len_when_small_done = 0, len_seen_first = 0, len_seen_full = 0;
  unsigned writers_waiting_first = 0, writers_waiting_full = 0;
  long drained = 0;
  auto writer = [&]() -> Task<void> {
    long n = co_await k.sys_write(p, big.data(), 4000);  // fits: 96 bytes left
    CHECK(n == 4000);
    w_small = co_await k.sys_write(p, big.data(), 100);  // 100 <= PIPE_BUF: waits for 100 free, not 96
    len_when_small_done = p.len;
    w_big = co_await k.sys_write(p, big.data(), 6000);   // > PIPE_BUF: copies what fits, sleeps, continues
  };
  auto reader = [&]() -> Task<void> {
    co_await cpu_work(20000);
    len_seen_first = p.len;  // the 100-byte writer is asleep: it wrote nothing of its 100 bytes
    writers_waiting_first = p.waiting_writers;
    std::vector<uint8_t> buf(8192);
    drained = co_await k.sys_read(p, buf.data(), 1000);  // room for the 100 bytes
    co_await cpu_work(20000);
    len_seen_full = p.len;  // the big writer copied what fitted and sleeps on a full page
    writers_waiting_full = p.waiting_writers;
    while (drained < 4000 + 100 + 6000) {
      long n = co_await k.sys_read(p, buf.data(), 1000);
      if (n <= 0) break;
      drained += n;
    }
  };
  k.spawn_process("writer", 0, writer());
  k.spawn_process("reader", 1, reader());
  sc_core::sc_start(ms(5));
  CHECK(w_small == 100);
  CHECK(len_seen_first == 4000);      // atomic: not 96 of the 100 bytes while it waited
  CHECK(writers_waiting_first == 1);
  CHECK(len_when_small_done >= 100);
  CHECK(w_big == 6000);
  CHECK(len_seen_full == kPipeSize);   // the big write filled the page and slept
  CHECK(writers_waiting_full == 1);
  CHECK(drained == 10100);
  CHECK(p.empty());
}

TEST_CASE("pipe: read returns 0 at EOF once no writer is left, write without readers is -EPIPE", "[kernel][pipe]") {
  FakeHost hw;
  Kernel k(hw, bench_params());
  Pipe a, b;
  long r = -1, w = 0;
  auto reader = [&]() -> Task<void> { r = co_await k.sys_read(a, nullptr, 4); };
  auto closer = [&]() -> Task<void> {
    co_await cpu_work(2000);
    a.close_write();
    co_await k.wake_up(a.wait);  // pipe_release wakes the sleepers
    b.close_read();
    w = co_await k.sys_write(b, nullptr, 4);
  };
  k.spawn_process("reader", 0, reader());
  k.spawn_process("closer", 0, closer());
  sc_core::sc_start(us(100));
  CHECK(r == 0);
  CHECK(w == -32);
}

TEST_CASE("loopback: a TCP exchange to 127.0.0.1 goes through lo and is received on the sending CPU",
          "[kernel][loopback]") {
  FakeHost hw;
  KernelParams kp = bench_params(2, true);  // two CPUs, ticking (TCP timers); IRQs go to CPU0
  Kernel k(hw, kp);
  MessageTags tags;
  InetHost inet(k, 0, &tags);  // no NIC, no interface address: only lo
  loopback::Loopback lo(k);
  inet.add_loopback(lo);
  CHECK(lo.mtu == 16436);
  CHECK(lo.tx_queue_len == 0);
  long got = 0, echoed = 0;
  auto server = [&]() -> Task<void> {
    co_await k.dev_open(lo);
    Socket* s = co_await inet.listen_accept(5000, "srv", false);
    got = co_await k.sys_read(*s, 16);
    co_await k.sys_write(*s, 1);
  };
  auto client = [&]() -> Task<void> {
    WaitQueue nap;
    co_await k.schedule_timeout(nap, 1);
    Socket& s = inet.tcp_socket("cli", false);
    int rc = co_await inet.connect(s, 0x7f000001u, 5000);
    CHECK(rc == 0);
    co_await k.sys_write(s, 1);
    echoed = co_await k.sys_read(s, 16);
  };
  k.spawn_process("server", 1, server());
  k.spawn_process("client", 1, client());
  sc_core::sc_start(ms(50));
  CHECK(got == 1);
  CHECK(echoed == 1);
  // SYN, SYN-ACK, ACK, data, reply (carrying the ACK): lo counts each frame in both directions.
  CHECK(lo.stats.tx_packets >= 5);
  CHECK(lo.stats.rx_packets == lo.stats.tx_packets);
  // netif_rx queued every frame on CPU1's backlog (the sender's), none on CPU0's.
  CHECK(sim().counters.get("alpha.softnet.CPU1.total") == lo.stats.rx_packets);
  CHECK(sim().counters.get("alpha.softnet.CPU0.total") == 0);
}

}  // namespace kernel_pipe_test
