// Linux 2.4.20 TCP/IP sysctls and constants, as one parameter struct (DESIGN.md "Parameters are a
// struct with units in the names and a source per field"). Time constants that Linux counts in
// jiffies are given in jiffies; `hz` converts them. Sources: Linux 2.4.20 include/net/tcp.h,
// net/ipv4/tcp.c (tcp_init), tcp_input.c, tcp_output.c, tcp_timer.c, and
// research/tg3-bonding-tcp-gmac-formats.md §2.3.
#pragma once
#include <cstdint>

namespace nicsim {

struct TcpParams {
  // --- kernel clock --------------------------------------------------------------------------
  unsigned hz = 100;                 ///< HZ on i386 2.4 (include/asm-i386/param.h); 1 jiffy = 10 ms
  uint64_t jiffies_phase_ns = 0;     ///< simulated time of jiffy 0's tick modulo the tick period;
                                     ///< estimate: the host's timer-tick phase, set by the glue
  uint64_t jiffies_at_zero = 360000; ///< jiffies at simulated time 0. estimate: 1 h of uptime;
                                     ///< must be > 0 (a TSval of 0 disables RTT sampling)

  // --- sysctls (net/ipv4/sysctl_net_ipv4.c, tcp_init in tcp.c) ---------------------------------
  uint32_t tcp_wmem_min_bytes = 4096;       ///< sysctl_tcp_wmem[0]
  uint32_t tcp_wmem_default_bytes = 16384;  ///< sysctl_tcp_wmem[1]: initial sk->sndbuf
  uint32_t tcp_wmem_max_bytes = 131072;     ///< sysctl_tcp_wmem[2] (tcp_init, >= 128 MB RAM)
  uint32_t tcp_rmem_min_bytes = 4096;       ///< sysctl_tcp_rmem[0]
  uint32_t tcp_rmem_default_bytes = 87380;  ///< sysctl_tcp_rmem[1]: initial sk->rcvbuf
  uint32_t tcp_rmem_max_bytes = 174760;     ///< sysctl_tcp_rmem[2] (tcp_init, 2*87380)
  int tcp_adv_win_scale = 2;                ///< sysctl_tcp_adv_win_scale: window = space - space/4
  int tcp_app_win = 31;                     ///< sysctl_tcp_app_win
  bool tcp_timestamps = true;               ///< sysctl_tcp_timestamps
  bool tcp_window_scaling = true;           ///< sysctl_tcp_window_scaling
  bool tcp_sack = true;                     ///< sysctl_tcp_sack
  bool tcp_fack = true;                     ///< sysctl_tcp_fack
  bool tcp_dsack = true;                    ///< sysctl_tcp_dsack
  unsigned tcp_reordering = 3;              ///< sysctl_tcp_reordering = TCP_FASTRETRANS_THRESH
  bool tcp_low_latency = false;             ///< sysctl_tcp_low_latency (false: prequeue is used)
  uint16_t local_port_low = 32768;          ///< sysctl_local_port_range[0] (tcp_init, large hash)
  uint16_t local_port_high = 61000;         ///< sysctl_local_port_range[1]
  uint8_t ip_default_ttl = 64;              ///< sysctl_ip_default_ttl = IPDEFTTL
  uint32_t core_wmem_max_bytes = 65535;     ///< sysctl_wmem_max = SK_WMEM_MAX (SO_SNDBUF limit)
  uint32_t core_rmem_max_bytes = 65535;     ///< sysctl_rmem_max = SK_RMEM_MAX (SO_RCVBUF limit)

  // --- constants (include/net/tcp.h) -----------------------------------------------------------
  unsigned tcp_max_reordering = 127;        ///< TCP_MAX_REORDERING
  unsigned tcp_max_quickacks = 16;          ///< TCP_MAX_QUICKACKS
  uint32_t max_tcp_window_bytes = 32767;    ///< MAX_TCP_WINDOW: initial window offer limit
  uint32_t tcp_min_rcvmss_bytes = 536;      ///< TCP_MIN_RCVMSS
  uint32_t tcp_min_mss_bytes = 88;          ///< TCP_MIN_MSS
  /// Initial snd_cwnd in segments once the connection is established (tcp_init_metrics).
  /// 2 per the lead's brief and RFC 2581 for mss > 1095; later 2.4 tcp_init_cwnd() may choose 3.
  unsigned initial_cwnd_segments = 2;

  // The jiffy constants below are the 2.4 macros at HZ = 100; they scale with `hz` through the
  // accessors (TCP_ATO_MIN = HZ/25, TCP_DELACK_MAX = HZ/5, TCP_RTO_MIN = HZ/5, TCP_RTO_MAX =
  // 120*HZ, TCP_TIMEOUT_INIT = 3*HZ, half-second cap = HZ/2).
  uint32_t ato_min_jiffies() const { return hz / 25; }      ///< TCP_ATO_MIN = TCP_DELACK_MIN (40 ms)
  uint32_t delack_max_jiffies() const { return hz / 5; }    ///< TCP_DELACK_MAX (200 ms)
  uint32_t rto_min_jiffies() const { return hz / 5; }       ///< TCP_RTO_MIN (200 ms)
  uint32_t rto_max_jiffies() const { return 120 * hz; }     ///< TCP_RTO_MAX (120 s)
  uint32_t timeout_init_jiffies() const { return 3 * hz; }  ///< TCP_TIMEOUT_INIT (3 s)
  uint32_t delack_half_second_jiffies() const { return hz / 2; }  ///< HZ/2 cap (tcp_send_delayed_ack)
  uint32_t resource_probe_jiffies() const { return hz / 2; }  ///< TCP_RESOURCE_PROBE_INTERVAL (HZ/2, 500 ms)
  uint64_t tick_ns() const { return 1000000000ull / hz; }

  // --- link and memory accounting --------------------------------------------------------------
  uint32_t mtu_bytes = 1500;            ///< device MTU (standard Ethernet; seed 000 "standard MTU")
  /// MAX_TCP_HEADER = 128 + MAX_HEADER (LL_MAX_HEADER 32 without tunnels), include/net/tcp.h.
  uint32_t max_tcp_header_bytes = 160;
  /// sizeof(struct sk_buff) on 2.4 i386. estimate: field count of 2.4.20 skbuff.h (~160-170 B).
  uint32_t skb_struct_bytes = 168;
  /// SMP_CACHE_BYTES for SKB_DATA_ALIGN: Pentium 4 L1 line 128 B (CONFIG_X86_L1_CACHE_SHIFT=7).
  uint32_t l1_cache_bytes = 128;
  /// truesize of a received skb when the driver does not say: e1000 4.4.12 allocates
  /// dev_alloc_skb(rx_buffer_len 2048 + 2) (research/intel-8254x-e1000-e100.md §2);
  /// estimate of the result: SKB_DATA_ALIGN(2066) = 2176 + sizeof(struct sk_buff).
  uint32_t rx_truesize_default_bytes = 2176 + 168;
  /// The NIC completes the TCP checksum (NETIF_F_HW_CSUM / CHECKSUM_HW): transmitted packets
  /// carry the pseudo-header sum only. false: the stack writes the full checksum.
  bool hw_tx_csum = false;
};

}  // namespace nicsim
