// The protocol-agnostic socket system calls of the kernel model (Linux 2.4.20 net/socket.c,
// fs/read_write.c; see kernel.h for the other files). The protocols behind them implement SockOps
// (socket.h).
//
//   Linux                                           here
//   sys_write() -> sock_write -> sock_sendmsg       Kernel::sys_write
//   sys_read() -> sock_read -> sock_recvmsg         Kernel::sys_read
//   sys_recv() -> sys_recvfrom                      Kernel::sys_recv (both: socket_read)
//   ret_from_sys_call's need_resched test           cond_resched at the end of each (sched.cpp)
#include "drivers-sim/kernel/kernel.h"
#include <stdexcept>

namespace nicsim {

namespace {
/// The system call entry and the locked operations of its file lookup: two costs with no code
/// between, so one burn chain (task.h CpuBurnChain: the same times as awaiting each).
CpuBurnChain syscall_entry_chain(const Kernel& k, unsigned locked_ops) {
  CpuBurnChain c;
  c.add(k.cost(CostId::syscall_entry));
  c.add(k.locked_ops(locked_ops));
  return c;
}
}  // namespace

Task<long> Kernel::sys_write(Socket& sock, size_t len, JourneyId journey) {
  Process* p = current();
  if (!p) throw std::logic_error("sys_write outside process context");
  if (!sock.ops) throw std::logic_error("sys_write on a socket without protocol operations");
  p->in_kernel_ = true;
  co_await syscall_entry_chain(*this, kVfsRwLockedOps);
  mark(journey, "write syscall");
  long r = co_await sock.ops->sendmsg(sock, len, journey);
  co_await cost(CostId::syscall_exit);
  p->in_kernel_ = false;
  co_await cond_resched();  // ret_from_sys_call: need_resched -> schedule
  co_return r;
}

Task<long> Kernel::sys_read(Socket& sock, size_t len) { return socket_read(sock, len, 0, kVfsRwLockedOps); }

Task<long> Kernel::sys_recv(Socket& sock, size_t len, int flags) {
  return socket_read(sock, len, flags, kSockfdLockedOps);
}

Task<long> Kernel::socket_read(Socket& sock, size_t len, int flags, unsigned vfs_locked_ops) {
  Process* p = current();
  if (!p) throw std::logic_error("sys_recv outside process context");
  if (!sock.ops) throw std::logic_error("sys_recv on a socket without protocol operations");
  p->in_kernel_ = true;
  co_await syscall_entry_chain(*this, vfs_locked_ops);
  long r = co_await sock.ops->recvmsg(sock, len, flags);
  co_await cost(CostId::syscall_exit);
  p->in_kernel_ = false;
  co_await cond_resched();
  co_return r;
}

}  // namespace nicsim
