#include "models/nic/e1000/e1000.h"
#include "core/events.h"
#include "core/fidelity.h"
#include "core/sim_context.h"
#include "models/ether/link.h"
#include "models/ether/pause.h"
#include "models/ether/phy.h"
#include "models/ether/station_address.h"
#include "models/device_entry.h"
#include <algorithm>
#include <fmt/format.h>
#include <cstdio>
#include <deque>
#include <functional>
#include <stdexcept>
#include <unordered_map>
#include <zlib.h>

namespace nicsim::e1000 {

// ============================================================================================
// Parameters
// ============================================================================================

ParamSchema E1000Params::schema() {
  E1000Params d;
  return concat_schemas({
      d.clock_schema("offset of the NIC's 25 MHz reference crystal; timers (RDTR, RADV, TIDV, TADV, ITR) tick from it"),
      d.latency_schema("estimate"),
      {
        int_param("dma_read_burst_bytes", d.dma_read_burst_bytes, 8, 4096, "bytes", "largest DMA read burst",
                  "PCI-X default MMRBC 512 B (research/e7500-p64h2-pcix.md [S28])"),
        int_param("dma_write_burst_bytes", d.dma_write_burst_bytes, 8, 4096, "bytes", "largest DMA write burst",
                  "estimate"),
        int_param("cache_line_bytes", d.cache_line_bytes, 16, 256, "bytes", "PCI cache line size register",
                  "research/e7500-p64h2-pcix.md [S10]"),
        bool_param("mwi_enable", d.mwi_enable, "use Memory Write and Invalidate for whole-line writes",
                   "PCI 2.2 §3.1.1"),
        bool_param("rdtr_per_packet", d.rdtr_per_packet,
                   "what-if: restart RDTR on every packet on the 82544GC/EI too (false: absolute from the first "
                   "packet, SDM §3.2.8 p=45)",
                   "the 82540+ rule of SDM §13.4.30 p=305 applied to the 82544, against its own §3.2.8"),
        bool_param("rx_desc_line_packing", d.rx_desc_line_packing,
                   "what-if: with RXDCTL.WTHRESH = 0 pack used RX descriptors into cache lines; a partial line is "
                   "written back only on RDTR/RADV expiry or FPD (false: each descriptor at once)",
                   "one reading of SDM §3.2.5.1 p=40 / §3.2.8 p=45 (descriptor packing); the SDM leaves WTHRESH=0 open"),
        string_param("mac_address", "", {}, "station address of port A (empty: derived from the device name)"),
        bool_param("closed_form_rx_drops", d.closed_form_rx_drops,
                   "speed only: count frames a tester train offers while the port drops everything in closed form "
                   "(false: each through the per-frame path; same results)",
                   "not a model constant: a simulation method switch (speed only)"),
      },
  });
}

E1000Params E1000Params::from(const ParamValues& v) {
  E1000Params p;
  p.read_timing(v);
  p.dma_read_burst_bytes = static_cast<unsigned>(v.i("dma_read_burst_bytes"));
  p.dma_write_burst_bytes = static_cast<unsigned>(v.i("dma_write_burst_bytes"));
  p.cache_line_bytes = static_cast<unsigned>(v.i("cache_line_bytes"));
  p.mwi_enable = v.b("mwi_enable");
  p.rx_desc_line_packing = v.b("rx_desc_line_packing");
  p.rdtr_per_packet = v.b("rdtr_per_packet");
  p.mac_address = v.s("mac_address");
  p.closed_form_rx_drops = v.b("closed_form_rx_drops");
  return p;
}

PciDeviceInfo device_info(const Variant& v) {
  PciDeviceInfo i;
  i.name = std::string(v.name);
  i.width_bits = v.width_bits;
  i.pcix_capable = v.pcix_capable;
  i.max_mhz = v.max_mhz;
  i.bar_size = 128 * 1024;  // SDM §4.1: 128 KB memory BAR
  i.functions = v.functions;
  return i;
}

namespace {

bool power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/// DeviceEntry::check of every 8254x: the values the schema's ranges cannot rule out.
std::vector<ParamProblem> e1000_device_check(const ParamValues& v) {
  // mac_address (RAL0/RAH0 from the EEPROM) and cache_line_bytes, as every NIC.
  std::vector<ParamProblem> out = nic_param_problems(v);
  // DMA bursts: whole 64-bit data phases, in power-of-two sizes like the PCI-X MMRBC they stand
  // for (512/1024/2048/4096, PCI-X 1.0 §7.2.3 [S28]).
  for (const char* k : {"dma_read_burst_bytes", "dma_write_burst_bytes"})
    if (!power_of_two(v.i(k)) || v.i(k) < 8)
      out.push_back({k, fmt::format("{} bytes is not a power of two of at least 8 (one 64-bit data phase): 8, 16, "
                                    "..., 4096",
                                    v.i(k))});
  return out;
}

/// IEEE 802.3 CRC-32 (reflected, poly 0xEDB88320), the FCS appended to a frame (§3.2.9).
/// zlib's crc32() is exactly this CRC (RFC 1952 §8), table-driven and word-at-a-time.
uint32_t crc32_ieee(const uint8_t* d, size_t n) {
  uLong c = ::crc32(0L, Z_NULL, 0);
  return static_cast<uint32_t>(::crc32_z(c, d, n));
}

bool is_stat_reg(uint32_t off) { return off >= CRCERRS && off <= BPTC; }
bool is_64bit_stat_low(uint32_t off) { return off == GORCL || off == GOTCL || off == TORL || off == TOTL; }
bool is_64bit_stat_high(uint32_t off) { return off == GORCH || off == GOTCH || off == TORH || off == TOTH; }

uint32_t size_bucket_rx(unsigned len_with_fcs) {
  if (len_with_fcs <= 64) return PRC64;
  if (len_with_fcs <= 127) return PRC127;
  if (len_with_fcs <= 255) return PRC255;
  if (len_with_fcs <= 511) return PRC511;
  if (len_with_fcs <= 1023) return PRC1023;
  return PRC1522;
}
uint32_t size_bucket_tx(unsigned len_with_fcs) { return size_bucket_rx(len_with_fcs) - PRC64 + PTC64; }

}  // namespace

// ============================================================================================
// DMA engine: one bus master shared by every function and direction; FIFO, one burst at a time
// (models/bus/dma_engine.h). The 8254x's burst rule is below.
// ============================================================================================

using DmaReq = DmaRequest;

/// 8254x DMA burst: at most dma_write/read_burst_bytes, never across a 4 KB boundary (PCI-X 1.0
/// §2.5); MWI for whole cache lines when enabled, MR/MRL/MRM by length for reads.
static DmaBurst e1000_dma_burst(const E1000Params& p, bool write, uint64_t a, size_t left) {
  size_t maxb = write ? p.dma_write_burst_bytes : p.dma_read_burst_bytes;
  size_t to_4k = 4096 - (a & 4095);
  size_t n = std::min({left, maxb, to_4k});
  unsigned cls = p.cache_line_bytes;
  if (write) {
    bool whole_lines = (a % cls) == 0 && (n % cls) == 0;
    return {n, (p.mwi_enable && whole_lines) ? PciCommand::MemWriteInvalidate : PciCommand::MemWrite};
  }
  return {n, n <= 4 ? PciCommand::MemRead : (n <= cls ? PciCommand::MemReadLine : PciCommand::MemReadMultiple)};
}

// ============================================================================================
// One MAC / PCI function
// ============================================================================================

struct E1000::Port : EthPort, EthLineSide {
  E1000& dev;
  unsigned fn;
  std::string where;  ///< journey/counter prefix, e.g. "alpha.eth1" or "alpha.eth1.port1"
  std::vector<uint32_t> regs = std::vector<uint32_t>(0x20000 / 4, 0);
  std::unordered_map<uint32_t, uint64_t> stats;  ///< statistics registers (64-bit ones by low offset)
  std::unique_ptr<Moderation> mod;
  /// Fast mode (core/fidelity.h): the FCS the MAC stores with a received frame (RCTL.SECRC = 0) is
  /// four zero bytes, not the CRC-32 over the frame's bytes. Exact mode computes it (3 % of a bulk
  /// stream's instructions, bench/README.md). No deviation in time or counters: a frame that
  /// reaches a port arrived with a good FCS (EthPort::frame_received), nothing in the model times
  /// by the FCS's value, and the drivers strip those four bytes unread (e1000's length - 4).
  const bool fast_fcs = run_fidelity() == Fidelity::Fast;
  bool line_out = false;
  uint64_t epoch = 0;  ///< bumped by a device reset; stale DMA completions are ignored
  std::array<uint16_t, 64> eeprom{};
  std::array<uint16_t, 32> phy{};
  EthLinkEnd* link = nullptr;
  /// The internal PHY's link monitor (models/ether/phy.h): link status after the line's signal.
  std::unique_ptr<EthPhy> phy_mon;
  /// The MAC's internal link indication as last seen (STATUS.LU): a change sets ICR.LSC.
  bool mac_up = false;

  sc_core::sc_event mod_ev, rx_ev, tx_ev, mac_ev, arrive_ev;

  // ---- RX ----
  /// What the PHY delivered with a frame: good, a bad FCS, or RX_ER asserted during it.
  enum class RxErr : uint8_t { none, fcs, rx_er };
  struct Arrival { sc_time at; EthFrame f; RxErr err = RxErr::none; };
  std::deque<Arrival> arrivals;  ///< frames in the PHY/MAC receive pipeline
  struct RxFrame { std::vector<uint8_t> bytes; JourneyId journey; size_t off = 0; uint64_t first_addr = 0; };
  std::deque<RxFrame> rx_fifo;
  size_t rx_fifo_used = 0;
  struct RxSlot { unsigned index; uint64_t addr; };
  std::deque<RxSlot> rx_cache;
  unsigned rx_fetch_next = 0, rx_head = 0;
  bool rx_fetching = false, rx_dma_busy = false;
  struct RxUsed { unsigned index; RxDesc d; };
  std::vector<RxUsed> rx_used;
  struct Await { JourneyId j; sc_time stored; std::optional<sc_time> wb_done; bool cause_marked = false, itr_marked = false; };
  std::vector<Await> rx_await;
  bool xoff_sent = false;
  // Closed-form drops (E1000Params::closed_form_rx_drops): the link holds a train while rx_held.
  EthRxFeed* rx_feed = nullptr;
  bool rx_held = false;
  uint64_t settler = 0;

  // ---- TX ----
  struct TxSlot { unsigned index; TxDesc d; std::array<uint8_t, 16> raw; };
  std::deque<TxSlot> tx_cache;
  unsigned tx_fetch_next = 0, tx_head = 0;
  bool tx_fetching = false, tx_dma_busy = false, tx_fifo_blocked = false;
  size_t tx_fifo_used = 0;
  std::vector<uint8_t> tx_pkt;
  JourneyId tx_journey = 0;
  size_t tx_pkt_fifo = 0;
  struct TxUsed { unsigned index; std::array<uint8_t, 16> raw; bool ide; };
  std::vector<TxUsed> tx_used, tx_pkt_rps;
  struct TxReady { EthFrame f; size_t fifo_bytes; sc_time ready; std::vector<TxUsed> rps; bool control; bool wait_marked = false; };
  std::deque<TxReady> mac_q;
  struct TxSent { sc_time end; size_t fifo_bytes; std::vector<TxUsed> rps; };
  std::deque<TxSent> mac_sent;
  sc_time pause_until = SC_ZERO_TIME;

  Port(E1000& d, unsigned f) : dev(d), fn(f) {
    where = dev.v_.functions > 1 ? std::string(dev.name()) + ".port" + std::to_string(fn) : std::string(dev.name());
    spawn("mod", &mod_ev, [this] { on_mod(); });
    spawn("rx", &rx_ev, [this] {
      rx_settle(true);  // an RDT/RCTL write takes effect here: it may give the held frames a buffer
      rx_process();
    });
    spawn("tx", &tx_ev, [this] { tx_process(); });
    spawn("mac", &mac_ev, [this] { mac_run(); });
    spawn("arrive", &arrive_ev, [this] { on_arrivals(); });
    phy_mon = std::make_unique<EthPhy>("port" + std::to_string(fn), [this](bool up) { on_phy_change(up); });
    reset();
    register_counters();
    settler = sim().counters.add_settler([this] { rx_settle(false); });
  }
  ~Port() override { sim().counters.remove_settler(settler); }
  Port(const Port&) = delete;
  Port& operator=(const Port&) = delete;

  template <typename F>
  void spawn(const char* what, sc_core::sc_event* ev, F f) {
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.dont_initialize();
    o.set_sensitivity(ev);
    sc_core::sc_spawn(f, (std::string(what) + std::to_string(fn)).c_str(), &o);
  }

  // ---------------------------------------------------------------- reset & helpers
  void reset() {
    ++epoch;
    std::fill(regs.begin(), regs.end(), 0);
    for (const auto& r : kRegs)
      if (r.access != Access::RC) regs[r.offset / 4] = r.reset;
    stats.clear();
    ModFeatures mf{dev.v_.has_itr, dev.v_.has_radv, dev.v_.has_tadv, dev.v_.rdtr_absolute && !dev.p_.rdtr_per_packet};
    mod = std::make_unique<Moderation>(mf, dev.clk_);
    // EEPROM image (SDM §5.6): words 0-2 the port-A MAC; word 0x3F makes the checksum 0xBABA.
    eeprom.fill(0xFFFF);
    for (int i = 0; i < 3; ++i) eeprom[i] = uint16_t(dev.mac_[2 * i] | (dev.mac_[2 * i + 1] << 8));
    uint16_t sum = 0;
    for (int i = 0; i < 0x3F; ++i) sum = uint16_t(sum + eeprom[i]);
    eeprom[0x3F] = uint16_t(0xBABA - sum);
    // Receive address 0 loaded from the EEPROM at reset (SDM §13.5.2), AV set.
    auto m = dev.mac_address(fn);
    regs[RAL0 / 4] = m[0] | (m[1] << 8) | (m[2] << 16) | (uint32_t(m[3]) << 24);
    regs[RAH0 / 4] = m[4] | (m[5] << 8) | rah::AV;
    // PHY registers for MDIC (IEEE 802.3 clause 22; M88E1000-family ids as in e1000_hw.h).
    phy.fill(0);
    phy[0] = 0x1140;  // PHY_CTRL: autoneg enable, full duplex, 1000
    phy[1] = 0x796D;  // PHY_STATUS: link up, autoneg complete
    phy[2] = 0x0141;  // PHY_ID1
    phy[3] = dev.v_.rdtr_absolute ? 0x0C30 : 0x0C20;  // M88E1000_I (82544) / M88E1011_I (82540+)
    phy[4] = 0x01E1;
    phy[5] = 0x45E1;
    phy[9] = 0x0300;
    phy[10] = 0x3C00;
    phy[17] = 0xBC00;  // M88 PHY specific status: 1000 Mb/s, full duplex, resolved, link
    if (link && phy_mon && !phy_mon->link_up()) phy_link_bits(false);
    // Frames in the TX packet buffer not yet sent are lost with the reset (a driver resetting a
    // NIC whose link is down: e1000 5.6's tx_timeout_task): counted, not vanished.
    if (!mac_q.empty()) sim().counters.at(where + ".tx_dropped_reset") += mac_q.size();
    // Frames still in the MAC receive pipeline are lost with the reset: counted, not vanished.
    if (!arrivals.empty()) sim().counters.at(where + ".rx_dropped_reset") += arrivals.size();
    arrivals.clear();
    rx_fifo.clear();
    rx_fifo_used = 0;
    rx_cache.clear();
    rx_fetch_next = rx_head = 0;
    rx_fetching = rx_dma_busy = false;
    rx_used.clear();
    rx_await.clear();
    xoff_sent = false;
    tx_cache.clear();
    tx_fetch_next = tx_head = 0;
    tx_fetching = tx_dma_busy = tx_fifo_blocked = false;
    tx_fifo_used = 0;
    tx_pkt.clear();
    tx_journey = 0;
    tx_pkt_fifo = 0;
    tx_used.clear();
    tx_pkt_rps.clear();
    mac_q.clear();
    mac_sent.clear();
    pause_until = SC_ZERO_TIME;
    if (line_out) set_line(false);
    mac_up = link_up();
  }

  /// PHY_STATUS (BMSR) bit 2 Link Status and the M88 PHY specific status bit 10 Link (real time).
  void phy_link_bits(bool up) {
    phy[1] = up ? uint16_t(phy[1] | 0x0004) : uint16_t(phy[1] & ~0x0004);
    phy[17] = up ? uint16_t(phy[17] | 0x0400) : uint16_t(phy[17] & ~0x0400);
  }
  /// CTRL.SLU with CTRL.ILOS: software forces the MAC's link indication up whatever the PHY says
  /// (e1000 5.0.43's e1000_tx_flush: "force link up" to send what the ring holds; SDM §13.4.1).
  bool forced_link() const { return (reg(CTRL) & ctrl::SLU) && (reg(CTRL) & ctrl::ILOS); }
  /// The MAC's internal link indication (STATUS.LU): a cable, and the PHY's link or a forced one.
  /// "Indication that the link is not up disables MAC operation" (SDM §8.6.5.2).
  bool link_up() const { return link && ((phy_mon && phy_mon->link_up()) || forced_link()); }
  /// Re-evaluate the link indication; a change sets ICR.LSC ("each time the link status changes",
  /// SDM §13.4.17) and a link back restarts the transmitter.
  void link_changed() {
    const bool up = link_up();
    if (up == mac_up) return;
    mac_up = up;
    mod->set_cause(now(), icr::LSC);
    sync_irq();
    if (up) mac_ev.notify(SC_ZERO_TIME);
  }
  void on_phy_change(bool up) {
    rx_settle(true);
    run_events().note(now(), where, up ? "PHY link up" : "PHY link down",
                      up ? "auto-negotiation and training done" : "link-fail timer expired");
    phy_link_bits(up);
    link_changed();
  }

  uint32_t reg(uint32_t off) const { return regs[off / 4]; }
  unsigned rx_ring() const { return (reg(RDLEN) & 0xFFF80) / kDescBytes; }
  unsigned tx_ring() const { return (reg(TDLEN) & 0xFFF80) / kDescBytes; }
  uint64_t rx_base() const { return (uint64_t(reg(RDBAH)) << 32) | (reg(RDBAL) & ~0xFu); }
  uint64_t tx_base() const { return (uint64_t(reg(TDBAH)) << 32) | (reg(TDBAL) & ~0xFu); }
  size_t rx_fifo_capacity() const { return size_t(reg(PBA) & pba::RXA_MASK) * 1024; }
  size_t tx_fifo_capacity() const { return size_t(dev.v_.packet_buffer_kb - (reg(PBA) & pba::RXA_MASK)) * 1024; }
  /// A PTHRESH/HTHRESH/WTHRESH field in descriptors (GRAN=0: cache lines, SDM p=320).
  unsigned thresh(uint32_t dctl, unsigned shift) const {
    unsigned v = (dctl >> shift) & 0x3F;
    return (dctl & dctl::GRAN) ? v : v * (dev.p_.cache_line_bytes / kDescBytes);
  }
  bool has(const RegInfo* r) const { return !(r->avail == Avail::Not82544 && dev.v_.rdtr_absolute); }

  void stat_add(uint32_t off, uint64_t v) {
    auto& s = stats[off];
    s += v;
    if (!is_64bit_stat_low(off) && s > 0xFFFFFFFFull) s = 0xFFFFFFFFull;  // sticks at max (SDM §13.7)
    *stat_counter(off) += v;
  }
  /// The run counter behind statistics register `off` ("alpha.eth1.MPC"; a 64-bit pair is one
  /// counter named without its L/H suffix, "alpha.eth1.GORC"). Its name is built once per
  /// register, not per frame.
  uint64_t* stat_counter(uint32_t off) {
    uint64_t*& c = stat_ctr[off];
    if (!c) {
      const RegInfo* r = find_reg(off);
      c = &sim().counters.at(where + "." + std::string(r ? r->name.substr(0, r->name.size() - (is_64bit_stat_low(off) ? 1 : 0)) : "?"));
    }
    return c;
  }
  /// Every statistics register and drop counter exists from the start, so one that stays zero is
  /// still in result.json (a zero MPC is an answer, a missing one is not).
  void register_counters() {
    for (const auto& r : kRegs)
      if (is_stat_reg(r.offset) && r.offset != GORCH && r.offset != GOTCH && r.offset != TORH && r.offset != TOTH)
        stat_counter(r.offset);
    for (const char* n :
         {".interrupts", ".rx_dropped_receiver_disabled", ".rx_filtered", ".rx_dropped_overrun", ".rx_dropped_reset"})
      sim().counters.at(where + n);
    c_rx_disabled = &sim().counters.at(where + ".rx_dropped_receiver_disabled");
    c_rx_filtered = &sim().counters.at(where + ".rx_filtered");
    c_rx_overrun = &sim().counters.at(where + ".rx_dropped_overrun");
  }
  /// The per-frame drop counters, looked up once (a flood drops millions of frames per second).
  uint64_t *c_rx_disabled = nullptr, *c_rx_filtered = nullptr, *c_rx_overrun = nullptr;
  std::unordered_map<uint32_t, uint64_t*> stat_ctr;

  // ---------------------------------------------------------------- interrupts
  void set_line(bool level) {
    // The NIC's trace track shows each INTx assertion until the driver's ICR read deasserts it.
    if (!level && line_out && sim().trace.enabled()) sim().trace.span(where + " INTx", "INTx asserted", line_since, now());
    if (level && !line_out) line_since = now();
    line_out = level;
    dev.irq[fn]->set_irq_level(level);
  }
  sc_time line_since = SC_ZERO_TIME;

  /// Drive INTx from the moderation decision; mark waiting journeys; re-arm the timer event.
  void sync_irq() {
    bool l = mod->line();
    if (l != line_out) {
      set_line(l);
      if (l) {
        sim().counters.at(where + ".interrupts") += 1;
        for (auto& a : rx_await) sim().journeys.mark(a.j, now(), "interrupt", where, "");
        rx_await.clear();
      }
    }
    if (mod->itr_holding()) {
      sc_time since = now();
      for (auto& a : rx_await)
        if (!a.itr_marked && a.cause_marked) {
          sim().journeys.mark(a.j, since, "moderation wait", where, "ITR");
          a.itr_marked = true;
        }
    }
    if (auto d = mod->next_deadline()) mod_ev.notify(*d > now() ? *d - now() : SC_ZERO_TIME);
  }

  /// RXT0 is being raised at now() because of `cause` (a timer name, or "" for immediate).
  void raise_rxt0(const char* cause) {
    for (auto& a : rx_await)
      if (!a.cause_marked) {
        if (cause[0]) sim().journeys.mark(a.j, a.wb_done ? *a.wb_done : a.stored, "moderation wait", where, cause);
        a.cause_marked = true;
      }
    bool was_high = line_out;
    mod->set_cause(now(), icr::RXT0);
    if (was_high && mod->line()) {  // joins the interrupt already asserted
      for (auto& a : rx_await) sim().journeys.mark(a.j, now(), "interrupt", where, "line already asserted");
      rx_await.clear();
    }
    sync_irq();
  }

  void on_mod() {
    rx_settle(true);
    for (const auto& e : mod->advance(now())) {
      sim().counters.at(where + ".moderation." + mod_timer_name(e.timer)) += 1;
      switch (e.timer) {
        case ModTimer::RDTR:
        case ModTimer::RADV:
        case ModTimer::FPD: {
          const char* c = mod_timer_name(e.timer);
          rx_writeback([this, c] { raise_rxt0(c); });
          break;
        }
        case ModTimer::TIDV:
        case ModTimer::TADV:
          tx_writeback([this] {
            mod->set_cause(now(), icr::TXDW);
            sync_irq();
          });
          break;
      }
    }
    sync_irq();
  }

  // ---------------------------------------------------------------- MMIO
  uint32_t read(uint32_t off, const sc_time& t) {
    rx_settle(true);  // statistics as the per-frame path has them; ICR reads change what a drop does
    off &= ~3u;
    if (off >= MTA && off < MTA + 4 * kMtaEntries) return reg(off);
    if (off >= RAL0 && off < RAL0 + 8 * kRaEntries) return reg(off);
    if (off >= VFTA && off < VFTA + 4 * kVftaEntries) return reg(off);
    if (is_stat_reg(off)) return read_stat(off);
    const RegInfo* r = find_reg(off);
    if (!r) return 0;
    if (!has(r) || r->access == Access::WO) return 0;
    switch (off) {
      case ICR: {
        uint32_t v = mod->read_icr(t);
        sync_irq();
        return v;
      }
      case IMS: return mod->ims();
      case ITR: return mod->itr();
      case RDTR: return mod->rdtr();
      case RADV: return mod->radv();
      case TIDV: return mod->tidv();
      case TADV: return mod->tadv();
      case STATUS: return status();
      default: return reg(off);
    }
  }

  uint32_t read_stat(uint32_t off) {
    if (is_64bit_stat_low(off)) return uint32_t(stats[off]);
    if (is_64bit_stat_high(off)) {  // high read returns bits 63:32 and clears the pair (SDM §13.7)
      uint64_t v = stats[off - 4];
      stats[off - 4] = 0;
      return uint32_t(v >> 32);
    }
    uint64_t v = stats[off];
    stats[off] = 0;
    return uint32_t(v);
  }

  uint32_t status() const {
    uint32_t s = status::FD | (fn << status::FUNC_SHIFT);
    if (link_up()) {
      s |= status::LU;
      unsigned sp = link->speed_mbps();
      s |= sp == 1000 ? status::SPEED_1000 : sp == 100 ? status::SPEED_100 : status::SPEED_10;
    }
    if (dev.status_m66_) s |= status::PCI66;
    if (dev.status_bus64_) s |= status::BUS64;
    if (dev.status_pcix_) s |= status::PCIX_MODE;
    return s;
  }

  void write(uint32_t off, uint32_t v, const sc_time& t, const sc_time& delay) {
    rx_settle(true);
    off &= ~3u;
    if ((off >= MTA && off < MTA + 4 * kMtaEntries) || (off >= RAL0 && off < RAL0 + 8 * kRaEntries) ||
        (off >= VFTA && off < VFTA + 4 * kVftaEntries)) {
      regs[off / 4] = v;
      return;
    }
    const RegInfo* r = find_reg(off);
    if (!r || !has(r) || r->access == Access::RO || r->access == Access::RC) return;
    switch (off) {
      case CTRL:
        if (v & ctrl::RST) {  // device reset, self-clearing (SDM §13.4.1)
          reset();
          return;
        }
        regs[off / 4] = v & ~ctrl::PHY_RST;
        link_changed();  // CTRL.SLU|ILOS may force the link indication
        mac_ev.notify(delay);
        return;
      case ICR: mod->clear_causes(t, v); sync_irq(); return;
      case ICS: mod->set_cause(t, v); sync_irq(); return;
      case IMS: mod->write_ims(t, v); sync_irq(); return;
      case IMC: mod->write_imc(t, v); sync_irq(); return;
      case ITR: mod->write_itr(t, v); sync_irq(); return;
      case RDTR:
        mod->write_rdtr(t, v);
        if (v & rdtr::FPD) mod_ev.notify(delay);
        return;
      case RADV: mod->write_radv(v); return;
      case TIDV: mod->write_tidv(v); return;
      case TADV: mod->write_tadv(v); return;
      case RCTL:
        regs[off / 4] = v;
        rx_ev.notify(delay);
        return;
      case TCTL:
        regs[off / 4] = v;
        tx_ev.notify(delay);
        return;
      case RDT:
        regs[off / 4] = v & 0xFFFF;
        rx_ev.notify(delay);
        return;
      case TDT:
        regs[off / 4] = v & 0xFFFF;
        tx_ev.notify(delay);
        return;
      case RDH:  // only valid while the receiver is idle (SDM p=303): resets the internal pointers
        regs[off / 4] = v & 0xFFFF;
        rx_head = rx_fetch_next = v & 0xFFFF;
        rx_cache.clear();
        return;
      case TDH:
        regs[off / 4] = v & 0xFFFF;
        tx_head = tx_fetch_next = v & 0xFFFF;
        tx_cache.clear();
        return;
      case RDLEN:
      case TDLEN: regs[off / 4] = v & 0xFFF80; return;
      case PBA: regs[off / 4] = (v & pba::RXA_MASK) | ((dev.v_.packet_buffer_kb - (v & pba::RXA_MASK)) << pba::TXA_SHIFT); return;
      case EERD:
        if ((v & eerd::START)) {
          unsigned a = (v >> eerd::ADDR_SHIFT) & 0xFF;
          uint16_t w = a < eeprom.size() ? eeprom[a] : 0xFFFF;
          regs[off / 4] = (v & 0xFF00) | eerd::DONE | (uint32_t(w) << eerd::DATA_SHIFT);
        }
        return;
      case MDIC: {
        unsigned pr = (v >> mdic::REG_SHIFT) & 0x1F;
        if ((v & (3u << 26)) == mdic::OP_WRITE) {
          phy[pr] = uint16_t(v & mdic::DATA_MASK);
          regs[off / 4] = v | mdic::READY;
        } else {
          regs[off / 4] = (v & ~mdic::DATA_MASK) | phy[pr] | mdic::READY;
        }
        return;
      }
      default: regs[off / 4] = v; return;
    }
  }

  // ---------------------------------------------------------------- EthPort
  void attach_link(EthLinkEnd* end) override {
    link = end;
    phy_mon->set_initial(true);  // a cable to a partner: linked from the start
    mac_up = link_up();
  }
  // EthLineSide (models/ether/phy.h): the internal PHY hears the line; frames with a bad FCS.
  void line_signal(const LineSignal& ls) override { phy_mon->line(ls, link ? link->speed_mbps() : 1000); }
  void frame_received_bad_fcs(const EthFrame& f) override { receive(f, RxErr::fcs); }
  void frame_received_rx_er(const EthFrame& f) override { receive(f, RxErr::rx_er); }
  void attach_rx(EthRxFeed* feed) override { rx_feed = feed; }
  std::string port_name() const override { return where; }
  std::optional<FrameTally> tally() const override {
    // The run's counters, not the clear-on-read registers: they cover the whole run.
    const_cast<Port*>(this)->rx_settle(false);  // closed-form drops up to now (no visible state change)
    auto c = [this](uint32_t off) {
      auto it = stat_ctr.find(off);
      return it == stat_ctr.end() ? uint64_t(0) : *it->second;
    };
    auto named = [this](const char* n) { return sim().counters.get(where + n); };
    FrameTally t;
    t.sent = c(TPT);
    t.accepted = c(GPRC);
    t.held = {{"in the MAC receive pipeline", arrivals.size()}};
    t.consumed = {{"802.3x PAUSE (XONRXC + XOFFRXC)", c(XONRXC) + c(XOFFRXC)}};
    t.dropped = {{"receiver disabled (rx_dropped_receiver_disabled)", named(".rx_dropped_receiver_disabled")},
                 {"address filter (rx_filtered)", named(".rx_filtered")},
                 {"oversize, RCTL.LPE=0 (ROC)", c(ROC)},
                 {"RX FIFO overrun (MPC)", c(MPC)},
                 {"device reset, in the MAC receive pipeline (rx_dropped_reset)", named(".rx_dropped_reset")}};
    // Faults (docs/faults.md): listed only when they happened, so a run without faults reports as before.
    if (const uint64_t n = c(CRCERRS)) t.dropped.push_back({"bad FCS (CRCERRS)", n});
    if (const uint64_t n = c(RXERRC)) t.dropped.push_back({"PHY receive error, RX_ER (RXERRC)", n});
    if (const uint64_t n = named(".rx_dropped_link_down")) t.dropped.push_back({"PHY link down (rx_dropped_link_down)", n});
    return t;
  }

  void frame_received(const EthFrame& f) override { receive(f, RxErr::none); }
  void receive(const EthFrame& f, RxErr err) {
    if (!phy_mon->link_up()) {  // the PHY has no link (still training): nothing reaches the MAC
      sim().counters.at(where + ".rx_dropped_link_down") += 1;
      sim().journeys.mark(f.journey, now(), "dropped", where, "PHY link down");
      return;
    }
    sim().journeys.mark(f.journey, now(), "MAC RX", where, "");
    arrivals.push_back({now() + dev.p_.phy_rx_latency + dev.p_.mac_rx_latency, f, err});
    if (arrivals.size() == 1) arrive_ev.notify(arrivals.front().at - now());
  }

  bool address_match(const std::vector<uint8_t>& b) const {
    if (b.size() < 6) return false;
    uint32_t rctl_v = reg(RCTL);
    bool mcast = b[0] & 1;
    bool bcast = std::all_of(b.begin(), b.begin() + 6, [](uint8_t x) { return x == 0xFF; });
    if (bcast) return (rctl_v & rctl::BAM) || (rctl_v & rctl::MPE);
    if (mcast) {
      if (rctl_v & rctl::MPE) return true;
      // Multicast table hash (SDM §13.5.1): 12 bits selected by RCTL.MO from the last two bytes.
      unsigned mo = (rctl_v & rctl::MO_MASK) >> rctl::MO_SHIFT;
      static constexpr unsigned shift[4] = {4, 3, 2, 0};
      unsigned h = ((b[4] >> shift[mo]) | (unsigned(b[5]) << (8 - shift[mo]))) & 0xFFF;
      return (reg(MTA + 4 * (h >> 5)) >> (h & 31)) & 1;
    }
    if (rctl_v & rctl::UPE) return true;
    for (unsigned i = 0; i < kRaEntries; ++i) {
      uint32_t lo = reg(RAL0 + 8 * i), hi = reg(RAH0 + 8 * i);
      if (!(hi & rah::AV)) continue;
      uint8_t m[6] = {uint8_t(lo), uint8_t(lo >> 8), uint8_t(lo >> 16), uint8_t(lo >> 24), uint8_t(hi), uint8_t(hi >> 8)};
      if (std::equal(m, m + 6, b.begin())) return true;
    }
    return false;
  }

  void on_arrivals() {
    while (!arrivals.empty() && arrivals.front().at <= now()) {
      EthFrame f = std::move(arrivals.front().f);
      const RxErr err = arrivals.front().err;
      arrivals.pop_front();
      accept_frame(f, err);
    }
    if (!arrivals.empty()) arrive_ev.notify(arrivals.front().at - now());
  }

  /// What the MAC does with a frame of `len` bytes (FCS included) in the current state.
  enum class RxVerdict { Pause, Disabled, Filtered, Oversize, Overrun, Store, BadFcs, RxErr };
  RxVerdict rx_verdict(const EthFrame& f, unsigned len, bool& no_desc, RxErr err = RxErr::none) const {
    no_desc = false;
    if (err != RxErr::none) {
      // CRCERRS counts packets with CRC errors that "must pass address filtering and must be 64
      // bytes or greater", not counted while receives are disabled (SDM §13.7, research
      // link-faults-failover.md §A2); a frame whose address does not match is counted nowhere.
      // RXERRC counts "packets received in which I_RX_ER was asserted by the PHY", with the same
      // two conditions: a frame the PHY flagged (symbol errors it could not decode) counts there;
      // one whose errors decoded as valid symbols is caught by the FCS only (CRCERRS). One
      // counter per frame: the note's reading (§A10 "CRCERRS ... or RXERRC"); e1000's rx_errors
      // adds both, so a frame in both would count twice there.
      if (!(reg(RCTL) & rctl::EN)) return RxVerdict::Disabled;
      if (!address_match(f.bytes)) return RxVerdict::Filtered;
      return err == RxErr::rx_er ? RxVerdict::RxErr : RxVerdict::BadFcs;
    }
    if (is_pause_frame(f.bytes) && (reg(CTRL) & ctrl::RFCE)) return RxVerdict::Pause;  // 802.3x MAC control
    if (!(reg(RCTL) & rctl::EN)) return RxVerdict::Disabled;
    if (!address_match(f.bytes)) return RxVerdict::Filtered;
    if (len > 1522 && !(reg(RCTL) & rctl::LPE)) return RxVerdict::Oversize;  // SDM §13.4.22
    // RNBC: received while the host ring had no buffer (RDH == RDT); the frame is still kept if the
    // packet buffer has room (SDM §13.7 RNBC).
    no_desc = rx_cache.empty() && ring_distance(rx_fetch_next, reg(RDT) % std::max(1u, rx_ring()), rx_ring()) == 0;
    if (rx_fifo_used + len > rx_fifo_capacity()) return RxVerdict::Overrun;  // SDM §3.2.7.4 p=45
    return RxVerdict::Store;
  }

  /// Count `n` frames like `f` dropped with verdict `v` (not Pause or Store), the last at `last`:
  /// the statistics and drop counters exactly as n passes through accept_frame would leave them.
  void rx_count_dropped(const EthFrame& f, RxVerdict v, bool no_desc, uint64_t n, const sc_time& last) {
    const unsigned len = static_cast<unsigned>(f.bytes.size()) + kEthFcsBytes;
    stat_add(TPR, n);
    stat_add(TORL, uint64_t(std::max(len, kEthMinFrameBytes)) * n);
    switch (v) {
      case RxVerdict::Disabled: *c_rx_disabled += n; break;
      case RxVerdict::Filtered: *c_rx_filtered += n; break;
      case RxVerdict::Oversize: stat_add(ROC, n); break;
      case RxVerdict::BadFcs: stat_add(CRCERRS, n); break;
      case RxVerdict::RxErr: stat_add(RXERRC, n); break;
      case RxVerdict::Overrun:
        if (no_desc) stat_add(RNBC, n);
        stat_add(MPC, n);
        *c_rx_overrun += n;
        // RXO for each: after the first the cause is already pending and the moderation state only
        // notes the latest time, so one call at the last drop leaves it as n calls would.
        mod->set_cause(last, icr::RXO);
        sync_irq();
        break;
      case RxVerdict::Pause:
      case RxVerdict::Store: throw std::logic_error(where + ": closed-form count of frames that are not dropped");
    }
  }

  /// Bring the held train's frames up to now: those whose pipeline exit (arrival + PHY/MAC RX
  /// latency) is before now are counted as dropped with the verdict the state has had since the
  /// hold began; those still in the pipeline go into it one by one. With `release`, the link
  /// delivers frame by frame again (call it before anything that may change the verdict).
  void rx_settle(bool release) {
    if (!rx_held) return;
    const sc_time lat = dev.p_.phy_rx_latency + dev.p_.mac_rx_latency;
    EthFrameTrain t = rx_feed->take(now());
    if (t.n) {
      // Frame i leaves the pipeline at t.at(i) + lat; decided when that is at or before now (one
      // leaving exactly now is taken as decided before the event that settles: arrival first).
      uint64_t decided = 0;
      const uint64_t exit0 = t.first.value() + lat.value();
      if (exit0 <= now().value()) decided = std::min<uint64_t>(t.n, (now().value() - exit0) / t.period.value() + 1);
      if (decided) {
        bool no_desc = false;
        const unsigned len = static_cast<unsigned>(t.f->bytes.size()) + kEthFcsBytes;
        const RxVerdict v = rx_verdict(*t.f, len, no_desc);
        rx_count_dropped(*t.f, v, no_desc, decided, t.at(decided - 1) + lat);
      }
      const bool was_empty = arrivals.empty();
      for (uint64_t i = decided; i < t.n; ++i) arrivals.push_back({t.at(i) + lat, *t.f});
      if (was_empty && !arrivals.empty()) arrive_ev.notify(arrivals.front().at - now());
    }
    if (release) {
      rx_feed->release();
      rx_held = false;
    }
  }

  /// A frame is through the MAC receive pipeline: flow control, filters, packet buffer.
  void accept_frame(const EthFrame& f, RxErr err) {
    unsigned len = static_cast<unsigned>(f.bytes.size()) + kEthFcsBytes;
    unsigned wire_len = std::max(len, kEthMinFrameBytes);
    bool no_desc = false;
    const RxVerdict v = rx_verdict(f, len, no_desc, err);
    if (v == RxVerdict::Pause) {  // 802.3x MAC control: consumed by the MAC
      stat_add(TPR, 1);
      stat_add(TORL, wire_len);
      unsigned quanta = pause_time_quanta(f.bytes);
      unsigned speed = link ? link->speed_mbps() : 1000;
      pause_until = now() + pause_duration(quanta, speed);
      stat_add(quanta ? XOFFRXC : XONRXC, 1);
      mac_ev.notify(SC_ZERO_TIME);
      return;
    }
    if (v != RxVerdict::Store) {
      rx_count_dropped(f, v, no_desc, 1, now());
      if (f.journey) {
        static constexpr const char* why[] = {"", "receiver disabled (RCTL.EN=0)", "address filter",
                                              "oversize (RCTL.LPE=0)", "RX FIFO overrun (RXO, MPC)", "", "bad FCS (CRCERRS)",
                                              "PHY receive error, RX_ER (RXERRC)"};
        sim().journeys.mark(f.journey, now(), "dropped", where, why[static_cast<int>(v)]);
      }
      // Nothing but this port's own events can change the verdict: hold a tester's train.
      if (!rx_held && rx_feed && dev.p_.closed_form_rx_drops) rx_held = rx_feed->hold(f);
      return;
    }
    stat_add(TPR, 1);
    stat_add(TORL, wire_len);
    if (no_desc) stat_add(RNBC, 1);
    // Stored in the packet buffer: counted as received (SDM §13.7).
    RxFrame rf;
    rf.bytes.reserve(f.bytes.size() + 4);
    rf.bytes = f.bytes;
    if (!(reg(RCTL) & rctl::SECRC)) {
      const uint32_t crc = fast_fcs ? 0 : crc32_ieee(f.bytes.data(), f.bytes.size());
      for (int i = 0; i < 4; ++i) rf.bytes.push_back(uint8_t(crc >> (8 * i)));
    }
    rf.journey = f.journey;
    rx_fifo_used += len;
    stat_add(GPRC, 1);
    stat_add(GORCL, wire_len);
    stat_add(size_bucket_rx(len), 1);
    if (f.bytes[0] & 1) stat_add((f.bytes[0] == 0xFF && f.bytes[1] == 0xFF) ? BPRC : MPRC, 1);
    if (f.journey) sim().journeys.mark(f.journey, now(), "RX FIFO", where, no_desc ? "no RX descriptors" : "");
    rx_fifo.push_back(std::move(rf));
    flow_control_check();
    rx_process();
  }

  // ---------------------------------------------------------------- 802.3x transmit side
  void flow_control_check() {
    if (!(reg(CTRL) & ctrl::TFCE)) return;
    size_t hi = reg(FCRTH) & fcrt::RT_MASK, lo = reg(FCRTL) & fcrt::RT_MASK;
    if (!xoff_sent && hi != 0 && rx_fifo_used >= hi) {
      send_pause(uint16_t(reg(FCTTV) & 0xFFFF));
      stat_add(XOFFTXC, 1);
      xoff_sent = true;
    } else if (xoff_sent && rx_fifo_used <= lo) {
      xoff_sent = false;
      if (reg(FCRTL) & fcrt::XONE) {
        send_pause(0);
        stat_add(XONTXC, 1);
      }
    }
  }

  void send_pause(uint16_t quanta) {
    EthFrame f = make_pause_frame(dev.mac_address(fn), quanta);  // 802.3 Annex 31B (models/ether/pause.h)
    // Control frames go ahead of queued data frames and ignore a received PAUSE (802.3 §31.5.3).
    auto it = std::find_if(mac_q.begin(), mac_q.end(), [](const TxReady& r) { return !r.control; });
    mac_q.insert(it, TxReady{std::move(f), 0, now(), {}, true});
    mac_ev.notify(SC_ZERO_TIME);
  }

  // ---------------------------------------------------------------- RX descriptors and data
  void rx_maybe_fetch() {
    unsigned n_ring = rx_ring();
    if (rx_fetching || !(reg(RCTL) & rctl::EN) || n_ring == 0) return;
    unsigned avail = ring_distance(rx_fetch_next, reg(RDT) % n_ring, n_ring);
    size_t cached = rx_cache.size();
    size_t space = dev.v_.rx_desc_cache - cached;
    if (avail == 0 || space == 0) return;
    uint32_t dctl = reg(RXDCTL);
    if (!(cached == 0 || (cached < thresh(dctl, 0) && avail >= thresh(dctl, dctl::HTHRESH_SHIFT)))) return;
    unsigned n = std::min<unsigned>({avail, unsigned(space), n_ring - rx_fetch_next});
    rx_fetching = true;
    auto r = dev.dma_->request();
    r->addr = rx_base() + uint64_t(rx_fetch_next) * kDescBytes;
    r->buf.resize(n * kDescBytes);
    r->what = "RX desc fetch";
    r->stage = "descriptor fetch";
    r->where = where;
    if (!rx_fifo.empty()) r->journeys.push_back(rx_fifo.front().journey);
    unsigned first = rx_fetch_next;
    uint64_t ep = epoch;
    r->done = [this, first, n, ep, n_ring](DmaReq& q) {
      if (ep != epoch) return;
      rx_settle(true);  // a DMA completion may change the RX verdict
      for (unsigned i = 0; i < n; ++i) {
        RxDesc d = decode_rx_desc(q.buf.data() + i * kDescBytes);
        rx_cache.push_back({(first + i) % n_ring, d.addr});
      }
      rx_fetch_next = (first + n) % n_ring;
      rx_fetching = false;
      rx_process();
    };
    dev.dma_->submit(std::move(r));
  }

  void rx_process() {
    rx_maybe_fetch();  // prefetch is considered even while a data transfer is in flight (SDM p=39)
    if (rx_dma_busy) return;
    if (rx_fifo.empty() || rx_cache.empty()) return;
    RxFrame& fr = rx_fifo.front();
    RxSlot slot = rx_cache.front();
    rx_cache.pop_front();
    unsigned bufsz = rx_buffer_bytes(reg(RCTL));
    size_t chunk = std::min<size_t>(bufsz, fr.bytes.size() - fr.off);
    bool last = fr.off + chunk >= fr.bytes.size();
    if (fr.off == 0) fr.first_addr = slot.addr;
    rx_dma_busy = true;
    auto r = dev.dma_->request();
    r->write = true;
    r->addr = slot.addr;
    r->buf.assign(fr.bytes.begin() + fr.off, fr.bytes.begin() + fr.off + chunk);
    r->what = "RX data";
    r->stage = "RX DMA";
    r->where = where;
    r->journeys.push_back(fr.journey);
    uint64_t ep = epoch;
    r->done = [this, slot, chunk, last, ep](DmaReq&) {
      if (ep != epoch) return;
      rx_settle(true);  // a DMA completion may change the RX verdict
      rx_dma_busy = false;
      RxFrame& f = rx_fifo.front();
      f.off += chunk;
      rx_fifo_used -= std::min(rx_fifo_used, chunk);
      RxDesc d;
      d.addr = slot.addr;
      d.length = uint16_t(chunk);
      d.status = rxsta::DD | (last ? rxsta::EOP : 0);
      rx_used.push_back({slot.index, d});
      unsigned n_ring = rx_ring();
      rx_head = (slot.index + 1) % n_ring;
      // RXDMT0: free descriptors fell to RCTL.RDMTS × ring (1/2, 1/4, 1/8; SDM §3.2.7.3 p=45).
      unsigned rdmts = (reg(RCTL) & rctl::RDMTS_MASK) >> rctl::RDMTS_SHIFT;
      if (rdmts < 3 && ring_distance(rx_head, reg(RDT) % n_ring, n_ring) == (n_ring >> (rdmts + 1))) {
        mod->set_cause(now(), icr::RXDMT0);
        sync_irq();
      }
      if (last) {
        JourneyId j = f.journey;
        dma_tags().tag(dev.space_, f.first_addr, j);
        rx_fifo.pop_front();
        if (j) rx_await.push_back({j, now(), std::nullopt});
        if (mod->rx_packet_stored(now()) == ModOutcome::Immediate) {
          rx_writeback([this] { raise_rxt0(""); });
        } else {
          if (rx_wb_due(slot.index, true)) rx_writeback(nullptr);
          sync_irq();
        }
      } else if (rx_wb_due(slot.index, false)) {
        rx_writeback(nullptr);
      }
      flow_control_check();
      rx_process();
    };
    dev.dma_->submit(std::move(r));
  }

  /// Whether the used descriptors are written back now that descriptor `index` was used (the timer
  /// and FPD paths write back regardless): WTHRESH of them used (counted at a frame's last
  /// descriptor, `last`); with WTHRESH = 0 at once, or, with rx_desc_line_packing, when `index`
  /// completes a cache line of descriptors (see E1000Params).
  bool rx_wb_due(unsigned index, bool last) const {
    const unsigned w = thresh(reg(RXDCTL), dctl::WTHRESH_SHIFT);
    if (w) return last && rx_used.size() >= w;
    if (!dev.p_.rx_desc_line_packing) return true;
    const unsigned per_line = std::max(1u, dev.p_.cache_line_bytes / kDescBytes);
    return (index + 1) % per_line == 0;
  }

  /// Write back every used RX descriptor (contiguous runs, split at the ring end); then `then`.
  void rx_writeback(std::function<void()> then) {
    if (rx_used.empty()) {
      if (then) then();
      return;
    }
    auto used = std::move(rx_used);
    rx_used.clear();
    std::vector<JourneyId> js;
    for (auto& a : rx_await)
      if (!a.wb_done) js.push_back(a.j);
    size_t i = 0;
    uint64_t ep = epoch;
    while (i < used.size()) {
      size_t k = i + 1;
      while (k < used.size() && used[k].index == used[k - 1].index + 1) ++k;
      auto r = dev.dma_->request();
      r->write = true;
      r->addr = rx_base() + uint64_t(used[i].index) * kDescBytes;
      r->buf.resize((k - i) * kDescBytes);
      for (size_t m = i; m < k; ++m) encode_rx_desc(r->buf.data() + (m - i) * kDescBytes, used[m].d);
      r->what = "RX desc write-back";
      r->stage = "write-back";
      r->where = where;
      r->journeys = js;
      bool final_run = k == used.size();
      unsigned next_head = (used[k - 1].index + 1) % std::max(1u, rx_ring());
      r->done = [this, final_run, next_head, then, ep](DmaReq&) {
        if (ep != epoch) return;
        rx_settle(true);  // a DMA completion may change the RX verdict
        regs[RDH / 4] = next_head;  // globally visible head moves with the write-back (SDM §3.2.8)
        if (!final_run) return;
        for (auto& a : rx_await)
          if (!a.wb_done) a.wb_done = now();
        if (then) then();
      };
      dev.dma_->submit(std::move(r));
      i = k;
    }
  }

  // ---------------------------------------------------------------- TX
  void tx_maybe_fetch() {
    unsigned n_ring = tx_ring();
    if (tx_fetching || !(reg(TCTL) & tctl::EN) || n_ring == 0) return;
    unsigned avail = ring_distance(tx_fetch_next, reg(TDT) % n_ring, n_ring);
    size_t cached = tx_cache.size();
    size_t space = dev.v_.tx_desc_cache - cached;
    if (avail == 0 || space == 0) return;
    uint32_t dctl = reg(TXDCTL);
    if (!(cached == 0 || (cached < thresh(dctl, 0) && avail >= thresh(dctl, dctl::HTHRESH_SHIFT)))) return;
    unsigned n = std::min<unsigned>({avail, unsigned(space), n_ring - tx_fetch_next});
    tx_fetching = true;
    auto r = dev.dma_->request();
    r->addr = tx_base() + uint64_t(tx_fetch_next) * kDescBytes;
    r->buf.resize(n * kDescBytes);
    r->what = "TX desc fetch";
    r->stage = "descriptor fetch";
    r->where = where;
    unsigned first = tx_fetch_next;
    uint64_t ep = epoch;
    sc_time t_req = now();
    r->done = [this, first, n, ep, n_ring, t_req](DmaReq& q) {
      if (ep != epoch) return;
      rx_settle(true);  // a DMA completion may change the RX verdict
      for (unsigned i = 0; i < n; ++i) {
        TxSlot s;
        s.index = (first + i) % n_ring;
        std::copy_n(q.buf.data() + i * kDescBytes, kDescBytes, s.raw.begin());
        s.d = decode_tx_desc(s.raw.data());
        if (!s.d.is_context()) {  // the journey learns it waited for this fetch
          JourneyId j = dma_tags().peek(dev.space_, s.d.addr);
          sim().journeys.mark(j, t_req, "descriptor fetch", where, "");
        }
        tx_cache.push_back(s);
      }
      tx_fetch_next = (first + n) % n_ring;
      tx_fetching = false;
      tx_process();
    };
    dev.dma_->submit(std::move(r));
  }

  void tx_process() {
    tx_maybe_fetch();  // prefetch is considered even while a data transfer is in flight (SDM p=39)
    while (!tx_dma_busy) {
      if (!(reg(TCTL) & tctl::EN)) return;
      if (tx_cache.empty()) {
        tx_maybe_fetch();
        return;
      }
      TxSlot& s = tx_cache.front();
      if (s.d.is_context()) {  // TCP/IP context descriptor: consumed, no data
        TxSlot c = s;
        tx_cache.pop_front();
        tx_complete_desc(c);
        continue;
      }
      size_t len = s.d.length;
      if (tx_journey == 0 && tx_pkt.empty()) tx_journey = dma_tags().take(dev.space_, s.d.addr);
      if (tx_fifo_used + len > tx_fifo_capacity()) {  // SDM p=332: never start without room for all its data
        if (!tx_fifo_blocked) sim().journeys.mark(tx_journey, now(), "TX FIFO full", where, "TX packet buffer full");
        tx_fifo_blocked = true;
        return;
      }
      tx_fifo_blocked = false;
      tx_fifo_used += len;
      tx_pkt_fifo += len;
      TxSlot c = s;
      tx_cache.pop_front();
      tx_maybe_fetch();  // PTHRESH prefetch while the data moves
      if (len == 0) {
        tx_data_done(c, {});
        continue;
      }
      tx_dma_busy = true;
      auto r = dev.dma_->request();
      r->addr = c.d.addr;
      r->buf.resize(len);
      r->what = "TX data";
      r->stage = "data DMA";
      r->where = where;
      r->journeys.push_back(tx_journey);
      uint64_t ep = epoch;
      r->done = [this, c, ep](DmaReq& q) {
        if (ep != epoch) return;
        rx_settle(true);  // a DMA completion may change the RX verdict
        tx_dma_busy = false;
        tx_data_done(c, q.buf);
        tx_process();
      };
      dev.dma_->submit(std::move(r));
      return;
    }
  }

  void tx_data_done(const TxSlot& c, const std::vector<uint8_t>& data) {
    tx_pkt.insert(tx_pkt.end(), data.begin(), data.end());
    bool eop = c.d.cmd & txcmd::EOP;
    if (eop) {
      EthFrame f;
      f.bytes = std::move(tx_pkt);
      f.journey = tx_journey;
      if (f.bytes.size() < 60 && (reg(TCTL) & tctl::PSP)) f.bytes.resize(60, 0);  // pad short packets
      sim().journeys.mark(f.journey, now(), "MAC TX", where, "");
      tx_pkt.clear();
      tx_journey = 0;
      mac_q.push_back(TxReady{std::move(f), tx_pkt_fifo, now(), {}, false});
      tx_pkt_fifo = 0;
      mac_ev.notify(SC_ZERO_TIME);
    }
    tx_complete_desc(c);
  }

  void tx_complete_desc(const TxSlot& c) {
    unsigned n_ring = tx_ring();
    tx_head = (c.index + 1) % n_ring;
    regs[TDH / 4] = tx_head;
    bool rps = dev.v_.has_rps && (c.d.cmd & txcmd::RPS);
    if ((c.d.cmd & txcmd::RS) || rps) {
      TxUsed u{c.index, c.raw, bool(c.d.cmd & txcmd::IDE)};
      u.raw[12] |= txsta::DD;
      if (rps && !(c.d.cmd & txcmd::RS)) {
        // 82544 RPS: reported once the packet has been sent (SDM §3.3.3.1); attached to the frame.
        if (!mac_q.empty() && !mac_q.back().control && (c.d.cmd & txcmd::EOP)) mac_q.back().rps.push_back(u);
        else tx_pkt_rps.push_back(u);
      } else {
        tx_used.push_back(u);
        unsigned w = thresh(reg(TXDCTL), dctl::WTHRESH_SHIFT);
        if (w == 0 || tx_used.size() >= w) tx_writeback(nullptr);
      }
    }
    if (tx_head == reg(TDT) % n_ring && tx_cache.empty()) {  // TXQE: ring empty (SDM §13.4.17)
      mod->set_cause(now(), icr::TXQE);
      sync_irq();
    }
  }

  /// Write back accumulated TX descriptors; report each to the moderation; then `then`.
  void tx_writeback(std::function<void()> then) {
    if (tx_used.empty()) {
      if (then) then();
      return;
    }
    auto used = std::move(tx_used);
    tx_used.clear();
    write_back_tx(std::move(used), std::move(then));
  }

  void write_back_tx(std::vector<TxUsed> used, std::function<void()> then) {
    uint64_t ep = epoch;
    size_t i = 0;
    while (i < used.size()) {
      size_t k = i + 1;
      while (k < used.size() && used[k].index == used[k - 1].index + 1) ++k;
      auto r = dev.dma_->request();
      r->write = true;
      r->addr = tx_base() + uint64_t(used[i].index) * kDescBytes;
      r->buf.resize((k - i) * kDescBytes);
      for (size_t m = i; m < k; ++m) std::copy(used[m].raw.begin(), used[m].raw.end(), r->buf.begin() + (m - i) * kDescBytes);
      r->what = "TX desc write-back";
      r->stage = "write-back";
      r->where = where;
      std::vector<bool> ides;
      for (size_t m = i; m < k; ++m) ides.push_back(used[m].ide);
      bool final_run = k == used.size();
      r->done = [this, ides, final_run, then, ep](DmaReq&) {
        if (ep != epoch) return;
        rx_settle(true);  // a DMA completion may change the RX verdict
        bool immediate = false;
        for (bool ide : ides) immediate |= mod->tx_descriptor_written_back(now(), ide) == ModOutcome::Immediate;
        if (immediate) mod->set_cause(now(), icr::TXDW);
        if (final_run && then) then();
        sync_irq();
      };
      dev.dma_->submit(std::move(r));
      i = k;
    }
  }

  // ---------------------------------------------------------------- MAC transmit
  void mac_run() {
    rx_settle(true);
    // Completions: the last bit of a frame has left; free its packet-buffer space.
    while (!mac_sent.empty() && mac_sent.front().end <= now()) {
      TxSent s = std::move(mac_sent.front());
      mac_sent.pop_front();
      tx_fifo_used -= std::min(tx_fifo_used, s.fifo_bytes);
      if (!s.rps.empty()) write_back_tx(std::move(s.rps), nullptr);
      if (tx_fifo_blocked) tx_ev.notify(SC_ZERO_TIME);
    }
    if (!mac_sent.empty()) mac_ev.notify(mac_sent.front().end - now());
    if (mac_q.empty() || !link || !mac_up) return;  // no link: the MAC is disabled, frames wait (SDM §8.6.5.2)
    TxReady& r = mac_q.front();
    sc_time earliest = r.ready + dev.p_.mac_tx_latency + dev.p_.phy_tx_latency;
    sc_time start = std::max(earliest, link->wire_free_at());
    const char* cause = link->wire_free_at() > earliest ? "wire busy" : "";
    if (!r.control && pause_until > start) {
      start = pause_until;
      cause = "PAUSE";
    }
    if (start > now()) {
      if (cause[0] && !r.wait_marked && earliest <= now()) {
        sim().journeys.mark(r.f.journey, earliest, "MAC TX", where, cause);
        r.wait_marked = true;
      }
      mac_ev.notify(start - now());
      return;
    }
    if (cause[0] && !r.wait_marked) sim().journeys.mark(r.f.journey, earliest, "MAC TX", where, cause);
    TxReady fr = std::move(mac_q.front());
    mac_q.pop_front();
    sc_time end = link->transmit(fr.f, now());
    unsigned len = static_cast<unsigned>(fr.f.bytes.size());
    unsigned wire_len = std::max(len + kEthFcsBytes, kEthMinFrameBytes);
    stat_add(TPT, 1);
    stat_add(TOTL, wire_len);
    stat_add(size_bucket_tx(wire_len), 1);
    if (!fr.control) {
      stat_add(GPTC, 1);
      stat_add(GOTCL, wire_len);
      if (fr.f.bytes[0] & 1) stat_add((fr.f.bytes[0] == 0xFF && fr.f.bytes[1] == 0xFF) ? BPTC : MPTC, 1);
    }
    mac_sent.push_back({end, fr.fifo_bytes, std::move(fr.rps)});
    mac_ev.notify(std::min(end, link->wire_free_at()) - now());
  }
};

// ============================================================================================
// Module
// ============================================================================================

E1000::E1000(sc_core::sc_module_name name, const Variant& v, const E1000Params& p)
    : sc_module(name),
      pci_target_socket("pci_target"),
      dma_initiator_socket("dma_initiator"),
      irq("irq_out", v.functions),
      v_(v),
      p_(p),
      info_(device_info(v)),
      clk_(std::string(this->name()) + ".clk", p.clock_mhz * 1e6, p.clock_ppm),
      space_(DmaTags::space_of(p.dma_space.empty() ? std::string(this->name()) : p.dma_space)),
      bars_(v.functions, 0),
      status_pcix_(v.pcix_capable),
      status_m66_(v.max_mhz >= 66),
      status_bus64_(v.width_bits == 64) {
  if (p_.dma_read_burst_bytes == 0 || p_.dma_write_burst_bytes == 0 || p_.cache_line_bytes < kDescBytes)
    throw std::invalid_argument(std::string(this->name()) + ": DMA burst sizes must be > 0 and cache line >= 16 B");
  mac_ = station_address(p_.mac_address, this->name(), {0x00, 0x02, 0xB3});  // Intel OUI 00:02:B3
  pci_target_socket.register_b_transport(this, &E1000::b_transport);
  pci_target_socket.register_transport_dbg(this, &E1000::transport_dbg);
  dma_ = std::make_unique<DmaEngine>(dma_initiator_socket, this->name(), "nicsim/e1000",
                                     [this](bool w, uint64_t a, size_t left) { return e1000_dma_burst(p_, w, a, left); });
  for (unsigned f = 0; f < v.functions; ++f) ports_.push_back(std::make_unique<Port>(*this, f));
}

E1000::~E1000() = default;

void E1000::set_bar(unsigned fn, uint64_t base) { bars_.at(fn) = base; }
uint64_t E1000::bar(unsigned fn) const { return bars_.at(fn); }
unsigned E1000::eth_ports() const { return static_cast<unsigned>(ports_.size()); }
EthPort* E1000::eth_port(unsigned i) { return i < ports_.size() ? ports_[i].get() : nullptr; }
void E1000::set_bus_status(bool pcix_mode, bool m66, bool bus64) {
  status_pcix_ = pcix_mode;
  status_m66_ = m66;
  status_bus64_ = bus64;
}
uint32_t E1000::peek(unsigned fn, uint32_t off) const {
  const_cast<Port&>(*ports_.at(fn)).rx_settle(false);  // closed-form drops up to now: no visible change
  const Port& p = *ports_.at(fn);
  off &= ~3u;
  if (is_stat_reg(off)) {
    if (is_64bit_stat_high(off)) {
      auto it = p.stats.find(off - 4);
      return it == p.stats.end() ? 0 : uint32_t(it->second >> 32);
    }
    auto it = p.stats.find(off);
    return it == p.stats.end() ? 0 : uint32_t(it->second);
  }
  const RegInfo* r = find_reg(off);
  if (r && !p.has(r)) return 0;
  switch (off) {
    case ICR: return p.mod->icr();
    case IMS: return p.mod->ims();
    case ITR: return p.mod->itr();
    case RDTR: return p.mod->rdtr();
    case RADV: return p.mod->radv();
    case TIDV: return p.mod->tidv();
    case TADV: return p.mod->tadv();
    case STATUS: return p.status();
    default: return p.reg(off);
  }
}
const Moderation& E1000::moderation(unsigned fn) const { return *ports_.at(fn)->mod; }
std::array<uint8_t, 6> E1000::mac_address(unsigned fn) const {
  auto m = mac_;
  if (fn == 1) m[5] ^= 1;  // 82546: port B = port A with the last bit flipped (e1000_read_mac_addr)
  return m;
}

void E1000::b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
  uint64_t a = trans.get_address();
  unsigned fn = ~0u;
  for (unsigned f = 0; f < bars_.size(); ++f)
    if (a >= bars_[f] && a < bars_[f] + info_.bar_size) fn = f;
  if (fn == ~0u || trans.get_data_length() != 4 || (a & 3)) {
    trans.set_response_status(fn == ~0u ? tlm::TLM_ADDRESS_ERROR_RESPONSE : tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  uint32_t off = static_cast<uint32_t>(a - bars_[fn]);
  Port& p = *ports_[fn];
  sc_time t = now() + delay;
  if (trans.is_read()) {
    uint32_t v = p.read(off, t);
    std::memcpy(trans.get_data_ptr(), &v, 4);
  } else if (trans.is_write()) {
    uint32_t v;
    std::memcpy(&v, trans.get_data_ptr(), 4);
    p.write(off, v, t, delay);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned E1000::transport_dbg(tlm::tlm_generic_payload& trans) {
  uint64_t a = trans.get_address();
  for (unsigned f = 0; f < bars_.size(); ++f)
    if (a >= bars_[f] && a < bars_[f] + info_.bar_size && trans.is_read() && trans.get_data_length() == 4) {
      uint32_t v = peek(f, static_cast<uint32_t>(a - bars_[f]));
      std::memcpy(trans.get_data_ptr(), &v, 4);
      return 4;
    }
  return 0;
}

// ============================================================================================
// Registry
// ============================================================================================

namespace {
struct RegisterVariants {
  RegisterVariants() {
    for (const auto& v : kVariants) {
      DeviceEntry e;
      e.name = std::string(v.name);
      e.summary = std::string(v.summary);
      e.params = E1000Params::schema();
      e.info = device_info(v);
      e.ports = v.functions;
      e.onboard_only = v.lom_only;
      e.check = e1000_device_check;
      const Variant* vp = &v;
      e.create = [vp](const std::string& inst, const ParamValues& pv) -> std::unique_ptr<PciDevice> {
        E1000Params p = E1000Params::from(pv);
        p.draw_clock_offset(inst);  // one draw per device instance, from the run seed
        return std::make_unique<E1000>(inst.c_str(), *vp, p);
      };
      e.hardware_json = [](const PciDevice& dev) {
        auto* nic = dynamic_cast<const E1000*>(&dev);
        return nic ? nlohmann::json{{"clock_ppm", nic->clock().ppm()}} : nlohmann::json::object();
      };
      Registry<DeviceEntry>::instance().add(std::move(e));
    }
  }
} register_variants;
}  // namespace

}  // namespace nicsim::e1000
