#include "models/chipset/serverworks_cmic.h"

namespace nicsim {

HostBridgeParams serverworks_cmic_params() {
  HostBridgeParams p;
  p.port_names = {"IMB0", "IMB1"};  // GC-LE: two IMBus links, one to each CIOB-X2 (research seeds §4.2, wangchao)
  // The FSB is the Xeons' 400 MT/s, 64-bit bus (tecchannel IDF 2002, research seeds §4.2; the
  // PE2650 dmesg "host bus clock speed is 99.7 MHz", tg3-bonding §1.3): its phases are the
  // processor bus protocol's, so the E7500 FSB clock counts apply unchanged.
  p.fsb_mhz = 100.0;
  p.fsb_bytes_per_clock = 32;
  p.fsb_request_clocks = 6;           // estimate: the Xeon bus protocol's phases, as set for the E7500
  p.fsb_mem_read_request_clocks = 3;  // estimate: as the E7500 (arbitration + 2-clock request, speculative read)
  p.fsb_response_clocks = 2;          // estimate: as the E7500
  // No CMIC latency was published (research seeds §4.2: "Published latencies: none"): the bridge's
  // own decode and completion times are the E7500's, calibrated there vs MMIO read 0.7–0.9 µs.
  p.mmio_decode_ns = 40;              // estimate: E7500 value
  p.hub_completion_ns = 40;           // estimate: E7500 value
  p.inbound_decode_ns = 30;           // estimate: E7500 value (incl. the FSB snoop of inbound accesses)
  p.interrupt_fsb_clocks = 6;         // estimate: E7500 value
  p.eoi_ns = 20;                      // estimate: E7500 value
  return p;
}

HubLinkParams imbus_link_params() {
  HubLinkParams p;
  // "IMBus 1.6 GB/s (2 B @ 400 MHz)" (PE6650 GC-HE chipset page, research seeds §4.2); GC-HE's
  // bridges each have a "full duplex link of 1.6 GB/s" (tweakers 15973). 2 B × 400 MT/s is
  // 800 MB/s, so the 1.6 GB/s is both directions together: one 800 MB/s pipe per direction.
  // That the GC-LE's IMBus is the same link is an assumption (research seeds §4.2 [I]).
  p.width_bits = 16;
  p.clock_mhz = 400.0;
  p.transfers_per_clock = 1;
  p.shared_pipe = false;
  p.header_bytes = 8;          // estimate: HI 2.0 value (research e7500 §1: 8–16 B); no IMBus packet format found
  p.max_payload_bytes = 64;    // estimate: HI 2.0 value (one cache line per packet)
  p.crossing_ns = 100.0;       // estimate: HI 2.0 value (research e7500 §1: 50–150 ns per crossing)
  return p;
}

}  // namespace nicsim
