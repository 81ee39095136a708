// NetPIPE 2.4 (TCP module) as a process on the kernel model: drives a NetpipeProgram
// (netpipe_logic.h) over a real TCP socket of InetHost, one process per side.
#pragma once
#include "drivers-sim/apps/netpipe_logic.h"
#include "drivers-sim/net/inet.h"
#include <functional>
#include <string>

namespace nicsim {

struct NetpipeSide {
  Kernel* kernel = nullptr;
  InetHost* inet = nullptr;
  std::function<Task<void>()> wait_network_up;  ///< returns when the host's interfaces are up
  NetpipeProgram* program = nullptr;
  bool transmitter = false;
  uint32_t peer_ip = 0;     ///< the receiver's address (transmitter only)
  uint16_t port = 5002;     ///< NetPIPE's DEFPORT
  bool nodelay = true;      ///< TCP.c sets TCP_NODELAY
  /// Messages of the main loop's first trial per size that get a journey (0: none). Later trials
  /// repeat the same path; recording them all would cost memory without adding information.
  int journeys_per_size = 200;
  /// Called after each completed operation (e.g. to print new progress lines).
  std::function<void()> on_progress;
  bool finished = false;
  std::string error;        ///< set when a socket call failed
};

/// The NetPIPE process body for one side. The transmitter waits `start_delay_jiffies` (the user
/// starts the receiver first) and connects; the receiver listens and accepts. Each message of the
/// main loop may carry a journey ("netpipe <bytes> B") from the sender's write to the receiver's
/// read returning its last byte.
Task<void> netpipe_main(NetpipeSide* side, long start_delay_jiffies);

}  // namespace nicsim
