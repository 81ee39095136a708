// errno values the socket calls return to the simulated applications (Linux i386,
// include/asm-i386/errno.h), negated by the caller as the kernel does.
#pragma once

namespace nicsim {

inline constexpr int kEpipe = 32;
inline constexpr int kEdestaddrreq = 89;
inline constexpr int kEmsgsize = 90;
inline constexpr int kEconnreset = 104;
inline constexpr int kEconnrefused = 111;

}  // namespace nicsim
