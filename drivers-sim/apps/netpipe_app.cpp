#include "drivers-sim/apps/netpipe_app.h"
#include "core/sim_context.h"
#include <cstring>
#include <fmt/format.h>

namespace nicsim {

Task<void> netpipe_main(NetpipeSide* side, long start_delay_jiffies) {
  Kernel& k = *side->kernel;
  InetHost& inet = *side->inet;
  co_await side->wait_network_up();
  Socket* s = nullptr;
  if (side->transmitter) {
    WaitQueue nap;
    co_await k.schedule_timeout(nap, start_delay_jiffies);
    s = &inet.tcp_socket("netpipe", side->nodelay);
    int rc = co_await inet.connect(*s, side->peer_ip, side->port);
    if (rc != 0) {
      side->error = fmt::format("connect failed: {}", rc);
      side->finished = true;
      co_return;
    }
  } else {
    s = co_await inet.listen_accept(side->port, "netpipe", side->nodelay);
  }

  NetpipeProgram& prog = *side->program;
  const std::string where = k.host();
  int journey_size = -1, journeys_left = 0;
  auto now_s = [] { return sc_core::sc_time_stamp().to_seconds(); };
  NetpipeOp op = prog.next(now_s());
  while (op.kind != NetpipeOpKind::Done) {
    const bool data = std::strcmp(op.what, "data") == 0;
    if (op.kind == NetpipeOpKind::Send) {
      JourneyId j = 0;
      if (data && side->journeys_per_size > 0) {
        int bytes = prog.step().bytes;
        if (bytes != journey_size) {
          journey_size = bytes;
          journeys_left = side->journeys_per_size;
        }
        if (journeys_left > 0) {
          --journeys_left;
          j = sim().journeys.begin(fmt::format("netpipe {} B", bytes), sc_core::sc_time_stamp(), "app write", where);
        }
      }
      long n = co_await k.sys_write(*s, op.bytes, j);
      if (n != static_cast<long>(op.bytes)) {
        side->error = fmt::format("write of {} bytes returned {}", op.bytes, n);
        break;
      }
    } else {
      size_t got = 0;
      while (got < op.bytes) {
        long n = co_await k.sys_read(*s, op.bytes - got);
        if (n <= 0) {
          side->error = fmt::format("read returned {} after {} of {} bytes", n, got, op.bytes);
          break;
        }
        got += static_cast<size_t>(n);
        if (s->rx_journey) {
          sim().journeys.finish(s->rx_journey, sc_core::sc_time_stamp());
          s->rx_journey = 0;
        }
      }
      if (!side->error.empty()) break;
    }
    if (side->on_progress) side->on_progress();
    op = prog.next(now_s());
  }
  side->finished = true;
  if (side->on_progress) side->on_progress();
}

}  // namespace nicsim
