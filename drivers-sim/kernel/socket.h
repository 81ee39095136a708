// struct socket and its protocol operations, the protocol-agnostic part (Linux 2.4
// include/linux/net.h: struct socket, struct proto_ops). The system calls are socket.cpp.
#pragma once
#include "core/journey.h"
#include "drivers-sim/kernel/task.h"
#include "drivers-sim/kernel/wait.h"
#include <cstddef>
#include <string>

namespace nicsim {

class Socket;
/// Protocol operations behind a socket (implemented by the TCP glue). Called in process context
/// inside a system call; they may sleep on Socket::wait.
struct SockOps {
  virtual ~SockOps() = default;
  /// Send `len` bytes of the message `journey` (0: none). Returns bytes sent or -errno.
  virtual Task<long> sendmsg(Socket& sock, size_t len, JourneyId journey) = 0;
  /// Receive up to `len` bytes (flags: MSG_* bits). Returns bytes received, 0 at EOF, or -errno.
  /// Sets sock.rx_journey to the journey of the data returned, if any.
  virtual Task<long> recvmsg(Socket& sock, size_t len, int flags) = 0;
};

/// struct socket: the protocol-agnostic part.
class Socket {
 public:
  std::string name;             ///< e.g. "netpipe tcp"
  SockOps* ops = nullptr;       ///< protocol operations
  void* sk = nullptr;           ///< the protocol's socket (struct sock), owned by the protocol
  WaitQueue wait;               ///< sk->sleep
  JourneyId rx_journey = 0;     ///< journey of the data the last recvmsg returned
};

}  // namespace nicsim
