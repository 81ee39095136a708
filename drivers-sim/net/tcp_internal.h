// Constants and tiny helpers shared by the TcpSocket implementation files (not a public API).
#pragma once
#include "drivers-sim/net/sock_errno.h"
#include "drivers-sim/net/wire.h"

#include <cstdint>

namespace nicsim::tcp_detail {

// tcp_ack() flags (tcp_input.c).
inline constexpr int FLAG_DATA = 0x01;
inline constexpr int FLAG_WIN_UPDATE = 0x02;
inline constexpr int FLAG_DATA_ACKED = 0x04;
inline constexpr int FLAG_RETRANS_DATA_ACKED = 0x08;
inline constexpr int FLAG_SYN_ACKED = 0x10;
inline constexpr int FLAG_DATA_SACKED = 0x20;
inline constexpr int FLAG_ECE = 0x40;
inline constexpr int FLAG_DATA_LOST = 0x80;
inline constexpr int FLAG_SLOWPATH = 0x100;
inline constexpr int FLAG_ACKED = FLAG_DATA_ACKED | FLAG_SYN_ACKED;
inline constexpr int FLAG_NOT_DUP = FLAG_DATA | FLAG_WIN_UPDATE | FLAG_ACKED;
inline constexpr int FLAG_CA_ALERT = FLAG_DATA_SACKED | FLAG_ECE;

inline constexpr uint8_t RCV_SHUTDOWN = 1;
inline constexpr uint8_t SEND_SHUTDOWN = 2;

// Header-prediction word (tcp_flag_word & TCP_HP_BITS): doff nibble, flags byte, window.
inline constexpr uint32_t TCP_RESERVED_BITS = 0x0F000000;
inline constexpr uint32_t TCP_FLAG_PSH_WORD = 0x00080000;
inline constexpr uint32_t TCP_HP_BITS = ~(TCP_RESERVED_BITS | TCP_FLAG_PSH_WORD);
inline constexpr uint32_t TCP_FLAG_ACK_WORD = 0x00100000;

inline uint32_t flag_word(const TcpHeader& th) {
  return uint32_t(th.doff_bytes / 4) << 28 | uint32_t(th.flags) << 16 | th.window;
}
// tcp_sack_extend
inline bool sack_extend(SackBlock& sp, uint32_t seq, uint32_t end_seq) {
  if (!seq_after(seq, sp.end_seq) && !seq_after(sp.start_seq, end_seq)) {
    if (seq_before(seq, sp.start_seq)) sp.start_seq = seq;
    if (seq_after(end_seq, sp.end_seq)) sp.end_seq = end_seq;
    return true;
  }
  return false;
}
inline uint32_t skb_data_align(uint32_t n, uint32_t line) { return (n + line - 1) / line * line; }

}  // namespace nicsim::tcp_detail
