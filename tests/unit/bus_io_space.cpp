// I/O-space cycles layer by layer (models/bus/pci.h PciSpaceExt): the segment's I/O BAR decode,
// the P64H2's I/O windows, the E7500 MCH's I/O routing and the non-posted I/O write. Expected
// values come from the decode rules and the composition of the parts, not from a run.
#include "core/sim_context.h"
#include "e7500_test_bench.h"
#include "models/nic/i8255x/i8255x.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace bus_io_space_test {
using namespace nicsim;
using namespace nicsim::test;

namespace {
/// A CPU access in I/O space (IN/OUT) of `len` bytes; returns the CPU's hold time.
sc_time io_access(TestCpu& c, bool write, uint64_t port, uint32_t& val, unsigned len,
                  tlm::tlm_response_status* st = nullptr) {
  tlm::tlm_generic_payload tr;
  PciSpaceExt ext;
  tr.set_extension(&ext);
  tr.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  tr.set_address(port);
  tr.set_data_ptr(reinterpret_cast<unsigned char*>(&val));
  tr.set_data_length(len);
  tr.set_streaming_width(len);
  tr.set_byte_enable_ptr(nullptr);
  tr.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time d = SC_ZERO_TIME;
  c.fsb->b_transport(tr, d);
  tr.clear_extension(&ext);
  if (st) *st = tr.get_response_status();
  return d;
}
}  // namespace

TEST_CASE("segment decodes I/O cycles against I/O BARs only and memory cycles against memory BARs", "[bus][io]") {
  PciSegment seg("segX");
  i8255x::I8255x nic("nic", i8255x::variant("82559"));
  PciDmaMaster m("m", master(64, true, 133));
  seg.plug(nic);
  seg.plug(m);
  nic.set_bar(0, 0xF0000000);
  nic.set_io_bar(0, 0x3000);
  m.set_bar(0, 0x3000);  // a memory BAR at the same number as the I/O BAR: a different space
  const unsigned io_bytes = nic.info().io_bar_size;
  REQUIRE(io_bytes == 64);  // 82559: 64-byte CSR I/O window (variants.h)
  CHECK(seg.decode(PciSpace::Io, 0x3000, 2) == 0);
  CHECK(seg.decode(PciSpace::Io, 0x3000 + io_bytes - 4, 4) == 0);
  CHECK(seg.decode(PciSpace::Io, 0x3000 + io_bytes - 1, 2) == -1);  // runs past the BAR
  CHECK(seg.decode(PciSpace::Io, 0x3000 + io_bytes, 1) == -1);
  CHECK(seg.decode(PciSpace::Memory, 0x3000, 4) == 1);   // the master's memory BAR
  CHECK(seg.decode(PciSpace::Memory, 0xF0000010, 4) == 0);
  CHECK(seg.decode(PciSpace::Io, 0xF0000010, 4) == -1);
  // A device without an I/O BAR refuses an assignment.
  CHECK_THROWS_AS(m.set_io_bar(0, 0x3100), std::logic_error);
  CHECK_THROWS_AS(nic.set_io_bar(0, 0x3010), std::invalid_argument);  // not aligned to 64 bytes
}

TEST_CASE("P64H2 I/O windows take 4 KB granularity inside the 64 KB I/O space", "[bridge][io]") {
  P64H2 br("br", P64H2Params{}, PciSegmentParams{}, [] { PciSegmentParams b; b.label = "B"; return b; }());
  CHECK_NOTHROW(br.set_io_window(0, 0x2000, 0x1000));
  CHECK_NOTHROW(br.set_io_window(1, 0x3000, 0x2000));
  CHECK_NOTHROW(br.set_io_window(1, 0, 0));  // off
  CHECK_THROWS_AS(br.set_io_window(0, 0x2800, 0x1000), std::invalid_argument);
  CHECK_THROWS_AS(br.set_io_window(0, 0x2000, 0x800), std::invalid_argument);
  CHECK_THROWS_AS(br.set_io_window(0, 0xF000, 0x2000), std::invalid_argument);
  CHECK_THROWS_AS(br.set_io_window(2, 0x2000, 0x1000), std::out_of_range);
}

TEST_CASE("MCH routes I/O by its hub I/O windows - the P64H2 by segment - outside both master-aborts", "[chipset][io]") {
  E7500BoardSpec spec = p4dpr();
  Bench b(spec);
  i8255x::I8255x nic("nic", i8255x::variant("82559"));
  b.host->attach("pcix", nic);
  const uint64_t io = nic.io_bar(0);
  // Like a BIOS: inside segment B's I/O window (the second 4 KB block above io_base).
  CHECK(io >= spec.io_base + spec.segment_io_bytes);
  CHECK(io + nic.info().io_bar_size <= spec.io_base + 2 * spec.segment_io_bytes);
  CHECK(io >= 0x1000);
  tlm::tlm_response_status s_ok, s_none, s_seg;
  uint32_t st = 0, none = 0, hole = 0;
  const std::string mch = b.host->mch().name(), segB = b.host->bridge().segment(1).counter_prefix(),
                    segA = b.host->bridge().segment(0).counter_prefix();
  b.run([&](TestCpu& c) {
    sc_core::wait(io_access(c, false, io + i8255x::SCBStatus, st, 2, &s_ok));
    sc_core::wait(io_access(c, false, 0x0400, none, 2, &s_none));  // below every hub I/O window (ICH3 land)
    sc_core::wait(io_access(c, false, spec.io_base + 0x10, hole, 4, &s_seg));  // segment A: nobody claims it
  });
  CHECK(s_ok == tlm::TLM_OK_RESPONSE);
  CHECK(s_none == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(none == 0xFFFF);
  CHECK(s_seg == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(hole == 0xFFFFFFFFu);
  CHECK(sim().counters.get(mch + ".io_reads") == 2);  // the two that went down the hub port
  CHECK(sim().counters.get(mch + ".master_aborts") == 1);
  CHECK(sim().counters.get(segB + ".io_reads") == 1);
  CHECK(sim().counters.get(segA + ".master_aborts") == 1);
  CHECK(sim().counters.get(mch + ".mmio_reads") == 0);
}

TEST_CASE("an OUT is not posted - it holds the CPU for the round trip like an IN - an MMIO write does not", "[chipset][io]") {
  Bench b(p4dpr());
  i8255x::I8255x nic("nic", i8255x::variant("82559"));
  b.host->attach("pcix", nic);
  sc_time t_in, t_out, t_mmio_w, t_mmio_r;
  b.run([&](TestCpu& c) {
    uint32_t v = 0;
    t_in = io_access(c, false, nic.io_bar(0) + i8255x::SCBPointer, v, 4);
    sc_core::wait(t_in + us(1));
    v = 0x1234;
    t_out = io_access(c, true, nic.io_bar(0) + i8255x::SCBPointer, v, 4);
    sc_core::wait(t_out + us(1));
    t_mmio_w = c.access(true, nic.bar(0) + i8255x::SCBPointer, v);
    sc_core::wait(t_mmio_w + us(1));
    t_mmio_r = c.access(false, nic.bar(0) + i8255x::SCBPointer, v);
    sc_core::wait(t_mmio_r + us(1));
  });
  const E7500Mch& mch = b.host->mch();
  const PciSegment& seg = b.host->bridge().segment(1);
  REQUIRE(!seg.mode().pcix);
  REQUIRE(seg.mode().mhz == 33);  // an 8255x puts segment B in PCI mode at 33 MHz
  // The posted MMIO write releases the CPU after the FSB request and one data clock.
  CHECK(t_mmio_w == mch.fsb_clocks(mch.params().fsb_request_clocks + 1));
  // IN and a memory read of the same register take the same path; issued at different times,
  // they differ only by where their start falls against the FSB and segment clocks (the
  // P64H2 masters the segment on a clock edge): less than one clock of each. Measured: 12.5 ns
  // apart at PCI 33 (30 ns clock).
  const sc_time slack = mch.fsb_clocks(1) + seg.clock_period();
  CHECK(t_in + slack >= t_mmio_r);
  CHECK(t_in <= t_mmio_r + slack);
  // OUT = IN with the data carried out instead of back: one packet each way either way, so the
  // two differ only by where the FSB data clock falls and the segment clock alignment.
  CHECK(t_out + slack >= t_in);
  CHECK(t_out <= t_in + slack);
  // Composed from the parts, at least: FSB request + MCH decode + 2 hub crossings (each way a
  // packet) + the P64H2 outbound request and completion return clocks + one PCI tenure.
  const auto& hp = b.host->hub().params();
  const auto& bp = b.host->bridge().params();
  sc_time floor = mch.fsb_clocks(mch.params().fsb_request_clocks) + ns(mch.params().mmio_decode_ns) +
                  b.host->hub().wire_time(4) + b.host->hub().wire_time(0) + 2 * ns(hp.crossing_ns) +
                  seg.clocks(bp.outbound_request_clocks + bp.completion_return_clocks) +
                  ns(mch.params().hub_completion_ns) + mch.fsb_clocks(mch.params().fsb_response_clocks);
  CHECK(t_out >= floor);
  CHECK(t_out <= floor + seg.clocks(12));  // one PCI tenure: address, DEVSEL, a data phase, turnaround (+ alignment)
  CHECK(t_out > 5 * t_mmio_w);
}

}  // namespace bus_io_space_test
