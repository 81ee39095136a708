#include "models/chipset/uninorth.h"

namespace nicsim {

HostBridgeParams uninorth_params(double bus_mhz) {
  HostBridgeParams p;
  p.port_names = {"pci-internal", "pci-slots"};
  // 133 MHz system bus (research seeds §1.1); the MPX bus has 64 data bits (Apple Power Mac G4
  // developer notes: "MaxBus with 36 address bits and 64 data bits") and moves 8 bytes per clock.
  p.fsb_mhz = bus_mhz;
  p.fsb_bytes_per_clock = 8;
  // MPX bus address tenure: arbitration, TS and the address, then AACK (MPC7450 RM, MPX bus
  // protocol). No UniNorth figures: the clock counts are estimates of the same shape as the E7500's
  // (one arbitration clock, one address clock, two to AACK).
  p.fsb_request_clocks = 4;           // estimate
  p.fsb_mem_read_request_clocks = 3;  // estimate: arbitration + address; the SDRAM read starts at once
  p.fsb_response_clocks = 1;          // estimate: the data tenure starts the clock after TA
  p.mmio_decode_ns = 40;              // estimate: the E7500 model's value (no UniNorth figure)
  p.hub_completion_ns = 40;           // estimate: the E7500 model's value
  p.inbound_decode_ns = 30;           // estimate: the E7500 model's value (includes the snoop of the MPX bus)
  // estimate: the OpenPIC drives the CPU's INT pin (a wire, no bus transaction), sampled within
  // two bus clocks.
  p.interrupt_fsb_clocks = 2;
  p.eoi_ns = 20;                      // estimate: the E7500 model's value
  return p;
}

HubLinkParams uninorth_pci_port_params(double bus_mhz) {
  HubLinkParams p;
  // estimate: an on-die port inside the ASIC, as wide as the memory side (64 bits) at the system
  // clock, one transfer per clock, separate directions, a short crossing (no datasheet).
  p.width_bits = 64;
  p.clock_mhz = bus_mhz;
  p.transfers_per_clock = 1;
  p.header_bytes = 8;        // estimate: one address/command beat per request
  p.max_payload_bytes = 32;  // estimate: one 32-byte line per request, the MPX bus's burst and the SDRAM burst of 4
  p.shared_pipe = false;     // estimate
  p.crossing_ns = 30.0;      // estimate: on die, a few system clocks
  return p;
}

PcixBridgeParams uninorth_pci_bridge_params(uint32_t mr_fetch_bytes, uint32_t mrm_prefetch_bytes, bool wait_states) {
  PcixBridgeParams p;
  p.split_queue_active = 4;           // unused in PCI mode
  p.split_queue_pending = 4;          // unused in PCI mode
  p.posted_write_buffer_bytes = 256;  // estimate: a few lines of posted DMA writes
  p.posted_chunk_bytes = 32;          // estimate: forwarded to memory one 32-byte line at a time
  // estimate: what the host bridge reads for one Memory Read. SDRAM and the MPX snoop work in
  // 32-byte lines, so a fetch is at least the rest of the line. No UniNorth figure was found
  // (Darwin AppleMacRiscPCI/AppleMacRISC2PE/IOPCIFamily, Linux 2.4.10-2.4.29 pmac_pci.c/uninorth.h,
  // FreeBSD/NetBSD macppc searched); Apple's earlier host bridges stop at one line: Bandit answers a
  // Memory Read with 8 B and MRL/MRM with one 32-byte line, then disconnects (Apple, "Designing PCI
  // Cards and Drivers for Power Macintosh Computers", Bursting from PCI to PowerPC), and the MPC106
  // fills its 32-byte PCMRB to the end of the line, prefetching the next only for MRM (PCIB/MC User's
  // Manual 8.1.3.1). Whether UniNorth answers with Retry (the delayed read modelled here) or streams
  // the line with wait states as the MPC106 does is not sourced either. Nothing says UniNorth reads
  // further ahead for this command, and Apple's own GMAC driver asks the chip not to use it where it can:
  // Darwin's GMAC register header, kConfiguration_RonPaulBit 0x800, "for pci reads at end of
  // infinite burst, next command is memory read multiple" (NetBSD gemreg.h GEM_CONFIG_RONPAULBIT,
  // "Apple only"), i.e. a Memory Read burst is cut and continued better as a Read Multiple. The
  // value decides how fast the GMAC can fetch TX data with Memory Read (the model's command without
  // that bit, models/nic/gem): one 32-byte delayed read at a time by default, platform parameter
  // uninorth_mr_fetch_bytes for the other readings.
  p.mr_fetch_bytes = mr_fetch_bytes;
  p.mrm_prefetch_bytes = mrm_prefetch_bytes;  // estimate: platform parameter (the P64H2 model's 512 B by default)
  p.delayed_read_slots = 1;           // estimate: one inbound read stream per host bridge
  // How a device's read is answered. A host bridge reads the memory behind it itself, so unlike a
  // PCI-to-PCI bridge it need not retry a read it can start at once: PCI 2.2 §3.5.1.1 gives a target
  // 16 clocks to its first data phase, and Apple's earlier host bridges held the master and streamed
  // the line (MPC106: the PCMRB's data "is forwarded to the PCI bus as soon as it is received",
  // PCIB/MC UM 8.1.3.1; Bandit: a Memory Read Line is an eight-beat transaction, then a disconnect,
  // Apple "Designing PCI Cards and Drivers", Bursting from PCI to PowerPC). No UniNorth document
  // says which UniNorth does. estimate, the default: delayed (Retry at once, as the model had it
  // before this choice was a parameter); platform parameter uninorth_pci_reads = wait-states holds
  // the master up to PCI's 16 clocks (and retries a read whose first data comes later: with this
  // model's SDRAM path, 19-23 clocks after FRAME# at 66 MHz, every one).
  p.target_initial_latency_clocks = wait_states ? 16 : 0;
  p.inbound_request_clocks = 2;       // estimate: on die, shorter than the P64H2's 4
  p.outbound_request_clocks = 6;      // estimate: a CPU access onto the PCI bus without a hub link to cross
  p.completion_return_clocks = 4;     // estimate
  p.apic_message_ns = 20;             // estimate: the interrupt wire to the OpenPIC
  p.eoi_forward_ns = 20;              // estimate
  p.ioxapic_per_segment = false;      // one interrupt controller instance per host bridge
  return p;
}

PciSegmentParams uninorth_pci_bus_params(const std::string& label, unsigned width_bits, unsigned max_mhz) {
  PciSegmentParams s;  // the PCI protocol constants of models/bus/pci_segment.h apply as they are
  s.label = label;
  s.width_bits = width_bits;
  s.max_pcix_mhz = max_mhz;  // no PCI-X device lives here: the bus runs conventional PCI
  s.max_pci_mhz = max_mhz;
  // Linux/PPC (arch/ppc/kernel/pmac_pci.c pmac_pci_enable_device_hook, BK 1.31 of Jan 2002, for the
  // GMAC and FireWire children of "uni-north"): PCI_CACHE_LINE_SIZE 8 (dwords: 32 bytes, the 74xx
  // L1 block) and PCI_LATENCY_TIMER 16.
  s.cache_line_bytes = 32;
  s.latency_timer_clocks = 16;
  s.bridge_decode_clocks = 1;  // estimate: the host bridge claims with fast DEVSEL#
  return s;
}

IoxApicParams openpic_params() {
  IoxApicParams a;
  // estimate: 64 sources (KeyLargo's MPIC; the count was not read); the GMAC is source 41, level
  // (research seeds §1.1: "41: ... OpenPIC Level eth0" in the seed's /proc/interrupts).
  a.redirection_entries = 64;
  a.message_ns = 40.0;  // estimate: source sampled, priority resolved, INT driven
  a.message_address = 0xFEE00000;  // the model's interrupt window (HostBridgeParams::interrupt_base)
  return a;
}

DramParams pc133_sdram_params(uint64_t bytes, double tcl) {
  DramParams d;
  d.size_bytes = bytes;
  d.clock_mhz = 400.0 / 3.0;  // PC133 SDRAM (research seeds §1.1: CNN/Macworld, TIL 58763)
  d.channels = 1;             // "linear" (non-interleaved) memory organisation (TIL 58763, research §1.1)
  d.channel_bytes = 8;        // 64-bit DIMMs (168-pin PC133)
  d.transfers_per_clock = 1;  // single data rate
  d.line_bytes = 32;          // one 32-byte line = a burst of 4 beats of 8 bytes (the 74xx block)
  d.tCL_clocks = tcl;         // PC133 DIMMs are CL2 or CL3: platform parameter
  d.tRCD_clocks = 3.0;        // estimate: PC133 -75 grade, 20 ns at 7.5 ns per clock (slow end)
  d.tRP_clocks = 3.0;         // estimate: as tRCD
  d.tRD_clocks = 3.0;         // estimate: UniNorth's read path from the SDRAM pins to the MPX bus (no figure)
  d.banks = 4;                // SDRAM devices have 4 internal banks (JEDEC SDR SDRAM, 64-256 Mbit)
  d.page_bytes = 8192;        // estimate: x8 devices of 1024 columns across a 64-bit rank (1024 × 8 B)
  return d;
}

}  // namespace nicsim
