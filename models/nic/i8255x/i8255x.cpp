#include "models/nic/i8255x/i8255x.h"
#include "core/calib.h"
#include "core/sim_context.h"
#include "models/device_entry.h"
#include "models/ether/link.h"
#include "models/ether/station_address.h"
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <stdexcept>

namespace nicsim::i8255x {

// ============================================================================================
// Parameters
// ============================================================================================

ParamSchema I8255xParams::schema() {
  I8255xParams d;
  return concat_schemas({
      d.clock_schema("offset of the 8255x's 25 MHz crystal; the CPU-Saver timer ticks from it"),
      {
        real_param("scb_accept_ns", to_ns(d.scb_accept), 0.0, 100000.0, "ns",
                   "time from an SCB command write until the part accepts it (the command byte reads 0)", "estimate"),
        real_param("mdi_cycle_ns", to_ns(d.mdi_cycle), 0.0, 1e6, "ns", "one MDI read or write frame",
                   "IEEE 802.3 §22.2.2.11 MDC ≤ 2.5 MHz, 64-bit management frame (32 preamble + 32)"),
        // The tick is the one unsourced number between the driver's IntDelay and the interrupt's
        // time (cpusaver.h); its bounds bracket FreeBSD's conversion by a factor of two each way.
        calibratable(
            real_param("cpusaver_ticks_per_us", d.cpusaver_ticks_per_us, 0.1, 25.0, "ticks/µs",
                       "rate of the CPU-Saver microcode's dead-man timer (IntDelay counts these ticks)",
                       "estimate: FreeBSD if_fxp.c fxp_load_ucode converts int_delay_us * 1.5 (research "
                       "intel-8254x-e1000-e100.md §3); no Intel document states the tick"),
            0.75,
            "half FreeBSD's 1.5: Intel's default IntDelay 0x600 would be 2.0 ms, twice the ~1 ms FreeBSD's default "
            "1000 µs stands for, and Intel's recommended 0x200-0x1000 would span 0.7-5.5 ms, beyond the 300-3000 µs "
            "FreeBSD's sysctl maps onto it",
            3.0,
            "twice FreeBSD's 1.5: 0x600 would be 0.5 ms and Intel's smallest recommended 0x200 170 µs, below "
            "FreeBSD's 300 µs floor; a tick faster than 3 MHz is also an eighth of the part's 25 MHz crystal, the "
            "only clock the microcode counts",
            "the CPU-Saver dead-man timer: how long a bundled received frame waits for its interrupt "
            "(IntDelay ticks / rate)"),
      },
      d.latency_schema("estimate"),
      {
        int_param("dma_burst_bytes", d.dma_burst_bytes, 4, 4096, "bytes", "largest DMA burst", "estimate"),
        int_param("cache_line_bytes", d.cache_line_bytes, 16, 256, "bytes", "PCI cache line size register",
                  "research/e7500-p64h2-pcix.md [S10]"),
        bool_param("mwi_enable", d.mwi_enable, "PCI command register Memory Write and Invalidate enable",
                   "PCI 2.2 §3.1.1"),
        int_param("tx_fifo_bytes", d.tx_fifo_bytes, 1024, 65536, "bytes", "transmit FIFO",
                  "82559 datasheet Product Features: 3 Kbyte transmit FIFO"),
        int_param("rx_fifo_bytes", d.rx_fifo_bytes, 1024, 65536, "bytes", "receive FIFO",
                  "82559 datasheet Product Features: 3 Kbyte receive FIFO"),
        string_param("mac_address", "", {}, "station address in the EEPROM (empty: derived from the device name)"),
      },
  });
}

I8255xParams I8255xParams::from(const ParamValues& v) {
  I8255xParams p;
  p.read_timing(v);
  p.scb_accept = ns(v.r("scb_accept_ns"));
  p.mdi_cycle = ns(v.r("mdi_cycle_ns"));
  p.cpusaver_ticks_per_us = v.r("cpusaver_ticks_per_us");
  p.dma_burst_bytes = unsigned(v.i("dma_burst_bytes"));
  p.cache_line_bytes = unsigned(v.i("cache_line_bytes"));
  p.mwi_enable = v.b("mwi_enable");
  p.tx_fifo_bytes = unsigned(v.i("tx_fifo_bytes"));
  p.rx_fifo_bytes = unsigned(v.i("rx_fifo_bytes"));
  p.mac_address = v.s("mac_address");
  return p;
}

PciDeviceInfo device_info(const Variant& v) {
  PciDeviceInfo i;
  i.name = std::string(v.name);
  i.width_bits = 32;  // 82557/8/9: 32-bit PCI master/slave (82559 DS "Glueless 32-bit PCI master interface")
  i.pcix_capable = false;
  i.max_mhz = 33;
  i.bar_size = kCsrMemBarBytes;
  i.io_bar_size = v.io_bar_bytes;
  i.functions = 1;
  return i;
}

namespace {
const char* const kStatNames[kStatCounters] = {
    "xmt_gd_frames", "xmt_max_coll",  "xmt_late_coll", "xmt_uruns",     "xmt_lost_crs",  "xmt_deferred",
    "xmt_sngl_coll", "xmt_mlt_coll",  "xmt_ttl_coll",  "rcv_gd_frames", "rcv_crc_errs",  "rcv_algn_errs",
    "rcv_rsrc_err",  "rcv_oruns",     "rcv_err_coll",  "rcv_shrt_frames", "xmt_fc_frames", "rcv_fc_frames",
    "rcv_fc_unsupported", "tco_frames"};  // e100.h basic_cntr_t / ext_cntr_t / tco_cntr_t field names

// PHY (82555 as the eepro100/e100 probe reads it, IEEE 802.3 clause 22 registers): link up at
// 100 Mb/s full duplex after auto-negotiation.
constexpr unsigned kPhyAddr = 1;
void phy_reset(std::array<uint16_t, 32>& r) {
  r.fill(0);
  r[0] = 0x3100;  // BMCR: 100 Mb/s, auto-negotiation enable, full duplex
  r[1] = 0x782D;  // BMSR: 100FD/100HD/10FD/10HD able, AN complete, AN able, link status, extended
  r[2] = 0x02A8;  // PHYSID1 } 82555: Linux e100.c phy_82555_tx = 0x015002A8 (id2 << 16 | id1)
  r[3] = 0x0150;  // PHYSID2 }
  r[4] = 0x05E1;  // ANAR: pause, 100FD, 100HD, 10FD, 10HD, 802.3
  r[5] = 0x45E1;  // ANLPAR: the partner advertises the same, acknowledge
  r[6] = 0x0001;  // ANER: partner AN able
}
}  // namespace

// ============================================================================================
// DMA engine: FIFO, one burst at a time (models/bus/dma_engine.h); the 8255x's burst rule
// ============================================================================================

DmaBurst I8255x::dma_burst(bool write, uint64_t a, size_t left) const {
  size_t n = std::min(left, size_t(p_.dma_burst_bytes));
  unsigned cls = p_.cache_line_bytes;
  bool later_part = v_.specific_masks;  // 82558+: MWI / read align (configure byte 3)
  if (write) {
    bool lines = (a % cls) == 0 && (n % cls) == 0;
    bool mwi = later_part && p_.mwi_enable && (config_[3] & cfg::B3_MWI_EN) && lines;
    return {n, mwi ? PciCommand::MemWriteInvalidate : PciCommand::MemWrite};
  }
  if (later_part && (config_[3] & cfg::B3_READAL_EN) && n > 4)
    return {n, n <= cls ? PciCommand::MemReadLine : PciCommand::MemReadMultiple};
  return {n, PciCommand::MemRead};
}

void I8255x::submit(std::unique_ptr<DmaReq> r) {
  r->where = name();  // journey marks of the DMA unit are the device's
  if (r->done) {  // a reset in between makes the completion stale
    uint64_t ep = epoch_;
    auto f = std::move(r->done);
    r->done = [this, ep, f = std::move(f)](DmaReq& q) {
      if (ep == epoch_) f(q);
    };
  }
  dma_->submit(std::move(r));
}


// ============================================================================================
// Module
// ============================================================================================

template <typename F>
void I8255x::spawn(const char* what, sc_core::sc_event* ev, F f) {
  sc_core::sc_spawn_options o;
  o.spawn_method();
  o.dont_initialize();
  o.set_sensitivity(ev);
  sc_core::sc_spawn(f, what, &o);
}

I8255x::I8255x(sc_core::sc_module_name name, const Variant& v, const I8255xParams& p)
    : OnePortNic(name),
      pci_target_socket("pci_target"),
      dma_initiator_socket("dma_initiator"),
      irq("irq_out_0"),
      v_(v),
      p_(p),
      info_(device_info(v)),
      clk_(std::string(this->name()) + ".clk", 25e6, p.clock_ppm),
      tick_clk_(std::string(this->name()) + ".cpusaver_tick", p.cpusaver_ticks_per_us * 1e6, p.clock_ppm),
      space_(DmaTags::space_of(p.dma_space.empty() ? std::string(this->name()) : p.dma_space)) {
  if (p_.dma_burst_bytes < 4 || p_.cache_line_bytes < 16)
    throw std::invalid_argument(std::string(this->name()) + ": dma_burst_bytes must be >= 4, cache line >= 16 B");
  mac_ = station_address(p_.mac_address, this->name(), {0x00, 0x90, 0x27});  // Intel OUI 00:90:27
  eeprom_.words() = SerialEeprom::image(mac_, unsigned(eeprom_.words().size()));
  pci_target_socket.register_b_transport(this, &I8255x::b_transport);
  dma_ = std::make_unique<DmaEngine>(dma_initiator_socket, this->name(), "nicsim/i8255x",
                                     [this](bool w, uint64_t a, size_t left) { return dma_burst(w, a, left); });
  spawn("scb", &scb_ev_, [this] { accept_command(); });
  spawn("mdi", &mdi_ev_, [this] { mdi_done(); });
  build_mac(p_, [this](const EthFrame& f) { accept_frame(f); });
  spawn("cpusaver", &saver_ev_, [this] { on_saver(); });
  for (unsigned c = 0; c < kStatCounters; ++c) stat_ctr_[c] = &sim().counters.at(std::string(this->name()) + "." + kStatNames[c]);
  for (const char* n : {".interrupts", ".rx_filtered", ".rx_dropped_reset", ".cpusaver.min-size mask",
                        ".cpusaver.BundleMax", ".cpusaver.dead-man timer"})
    sim().counters.at(std::string(this->name()) + n);
  reset(false);
}

I8255x::~I8255x() = default;

sc_core::sc_port<irq_if>& I8255x::irq_out(unsigned fn) {
  if (fn != 0) throw std::out_of_range("8255x has one PCI function");
  return irq;
}
void I8255x::set_bar(unsigned fn, uint64_t base) {
  if (fn != 0) throw std::out_of_range("8255x has one PCI function");
  bar_ = base;
}
uint64_t I8255x::bar(unsigned fn) const { return fn == 0 ? bar_ : 0; }
void I8255x::set_io_bar(unsigned fn, uint64_t base) {
  if (fn != 0) throw std::out_of_range("8255x has one PCI function");
  if (base % v_.io_bar_bytes || base + v_.io_bar_bytes > kIoSpaceBytes)
    throw std::invalid_argument(std::string(name()) + ": I/O BAR must be aligned to its " +
                                std::to_string(v_.io_bar_bytes) + " bytes inside the 64 KB I/O space");
  io_bar_ = base;
}
uint64_t I8255x::io_bar(unsigned fn) const { return fn == 0 ? io_bar_ : 0; }

void I8255x::count(StatCounter c, uint64_t n) {
  stats_[c] += uint32_t(n);
  *stat_ctr_[c] += n;
}

void I8255x::reset(bool selective) {
  ++epoch_;
  dma_->clear();
  cus_ = Cus::Idle;
  rus_ = Rus::Idle;
  stat_ack_ = 0;
  cmd_ = 0;
  rx_busy_ = false;
  rx_await_.clear();
  if (rx_pipe_->held() || !rx_fifo_.empty())
    sim().counters.at(std::string(name()) + ".rx_dropped_reset") += rx_pipe_->held() + rx_fifo_.size();
  rx_pipe_->clear();
  rx_fifo_.clear();
  rx_fifo_used_ = 0;
  mac_tx_->clear_queued();
  saver_.reset();
  saver_ev_.cancel();
  if (!selective) {  // software reset: everything; selective reset keeps configuration (OpenSDM §6.3.3.x)
    intr_ctl_ = 0;
    csr_.fill(0);
    cu_base_ = ru_base_ = dump_addr_ = 0;
    config_.fill(0);
    config_[18] = cfg::B18_PADDING;  // estimate: padding on until configured (both drivers configure it)
    ia_.fill(0);
    multicast_.clear();
    phy_reset(phy_);
    mdi_ = mdi::READY;
    mdi_busy_ = false;
  }
  sync_irq();
}

// ---------------------------------------------------------------- interrupts
uint16_t I8255x::enabled_causes() const {
  if (intr_ctl_ & intr::M) return 0;
  uint16_t en = stat::ACK_MASK;
  if (v_.specific_masks) {
    if (intr_ctl_ & intr::CX_MASK) en &= ~stat::CX;
    if (intr_ctl_ & intr::FR_MASK) en &= ~stat::FR;
    if (intr_ctl_ & intr::CNA_MASK) en &= ~stat::CNA;
    if (intr_ctl_ & intr::RNR_MASK) en &= ~stat::RNR;
    if (intr_ctl_ & intr::ER_MASK) en &= ~stat::ER;
    if (intr_ctl_ & intr::FCP_MASK) en &= ~stat::FCP;
  }
  return en;
}

void I8255x::raise(uint16_t bits) {
  stat_ack_ |= bits & stat::ACK_MASK;
  sync_irq();
}

void I8255x::sync_irq() {
  bool l = (stat_ack_ & enabled_causes()) != 0;
  if (l == line_) return;
  if (!l && sim().trace.enabled()) sim().trace.span(std::string(name()) + " INTx", "INTx asserted", line_since_, now());
  if (l) {
    line_since_ = now();
    sim().counters.at(std::string(name()) + ".interrupts") += 1;
  }
  line_ = l;
  if (irq.get_interface()) irq->set_irq_level(l);
}

// ---------------------------------------------------------------- register file
void I8255x::b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
  uint64_t a = trans.get_address();
  unsigned len = trans.get_data_length();
  uint64_t base;
  uint64_t window;
  const bool io = is_io_space(trans);
  if (!io && bar_ && a >= bar_ && a < bar_ + kCsrMemBarBytes) {
    base = bar_;
    window = kCsrMemBarBytes;
  } else if (io && io_bar_ && a >= io_bar_ && a < io_bar_ + v_.io_bar_bytes) {
    base = io_bar_;
    window = v_.io_bar_bytes;
  } else {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  uint32_t off = uint32_t(a - base);
  if (len == 0 || len > 4 || off + len > window || trans.get_byte_enable_ptr()) {
    trans.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  sc_time t = now() + delay;
  uint8_t* d = trans.get_data_ptr();
  if (trans.is_read()) {
    for (unsigned i = 0; i < len; ++i) d[i] = off + i < kCsrBytes ? read_byte(off + i, t) : 0;
  } else if (trans.is_write()) {
    if (off < kCsrBytes) write_bytes(off, d, std::min<unsigned>(len, kCsrBytes - off), t, delay);
  }
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

uint8_t I8255x::read_byte(uint32_t off, const sc_time& t) {
  switch (off) {
    case SCBStatus: return uint8_t((uint8_t(cus_) << kCusShift) | (uint8_t(rus_) << kRusShift));
    case SCBStatAck: return uint8_t(stat_ack_ >> 8);
    case SCBCmd: return cmd_;  // cleared when the unit accepts the command
    case SCBIntrCtl: return intr_ctl_;
    case SCBEeprom: {
      uint8_t v = csr_[off] & ~eectl::EEDO;
      return eeprom_.dout() ? uint8_t(v | eectl::EEDO) : v;
    }
    case SCBCtrlMDI: case SCBCtrlMDI + 1: case SCBCtrlMDI + 2: case SCBCtrlMDI + 3:
      return uint8_t(mdi_ >> (8 * (off - SCBCtrlMDI)));
    case SCBPort: case SCBPort + 1: case SCBPort + 2: case SCBPort + 3: return 0;
    default: return csr_[off];
  }
}

void I8255x::write_bytes(uint32_t off, const uint8_t* d, unsigned len, const sc_time& t, const sc_time& delay) {
  auto touches = [&](uint32_t o) { return o >= off && o < off + len; };
  for (unsigned i = 0; i < len; ++i) csr_[off + i] = d[i];
  if (touches(SCBStatAck)) {  // write 1 to acknowledge
    stat_ack_ &= ~(uint16_t(csr_[SCBStatAck]) << 8);
    sync_irq();
  }
  if (touches(SCBIntrCtl)) {
    intr_ctl_ = csr_[SCBIntrCtl] & ~intr::SI;
    if (csr_[SCBIntrCtl] & intr::SI) stat_ack_ |= stat::SWI;
    sync_irq();
  }
  if (touches(SCBCmd) && csr_[SCBCmd] != 0) {
    cmd_ = csr_[SCBCmd];
    scb_ev_.notify(delay + p_.scb_accept);
  }
  if (touches(SCBPort + 3) || (touches(SCBPort) && off + len > SCBPort + 3)) port_command(ld32(&csr_[SCBPort]), delay);
  if (touches(SCBEeprom)) {
    uint8_t v = csr_[SCBEeprom];
    eeprom_.pins(v & eectl::EECS, v & eectl::EESK, v & eectl::EEDI);
  }
  if (touches(SCBCtrlMDI + 3)) mdi_start(ld32(&csr_[SCBCtrlMDI]), delay);
}

void I8255x::mdi_start(uint32_t v, const sc_time& delay) {
  mdi_ = v & ~mdi::READY;
  mdi_busy_ = true;
  mdi_ev_.cancel();
  mdi_ev_.notify(delay + p_.mdi_cycle);
}

void I8255x::mdi_done() {
  if (!mdi_busy_) return;
  mdi_busy_ = false;
  unsigned reg = (mdi_ >> mdi::REG_SHIFT) & 0x1F, addr = (mdi_ >> mdi::PHY_SHIFT) & 0x1F;
  uint32_t op = mdi_ & mdi::OP_MASK;
  if (op == mdi::OP_WRITE) {
    if (addr == kPhyAddr) {
      if (reg == 0 && (mdi_ & 0x8000)) phy_reset(phy_);  // BMCR reset: self-clearing
      else if (reg != 1 && reg != 2 && reg != 3) phy_[reg] = uint16_t(mdi_);
    }
  } else if (op == mdi::OP_READ) {
    uint16_t val = addr == kPhyAddr ? phy_[reg] : 0xFFFF;  // no PHY at other addresses: the bus floats high
    mdi_ = (mdi_ & ~mdi::DATA_MASK) | val;
  }
  mdi_ |= mdi::READY;
  if (mdi_ & mdi::IE) raise(stat::MDI);
}

void I8255x::port_command(uint32_t v, const sc_time& delay) {
  uint32_t fn = v & port::FUNCTION_MASK, addr = v & ~port::FUNCTION_MASK;
  switch (fn) {
    case port::SOFTWARE_RESET: reset(false); break;
    case port::SELECTIVE_RESET: reset(true); break;
    case port::SELFTEST: {
      reset(false);
      auto r = make_req(true, addr, 8, "self-test result", "");
      st32(r->buf.data(), 0x000000FF);  // estimate: a non-zero signature (e100 e100_selftest checks st_sign != 0)
      st32(r->buf.data() + 4, 0);       // result: no CB_SELFTEST_* error bit
      auto* raw = r.release();
      sc_core::sc_spawn_options o;
      o.spawn_method();
      o.dont_initialize();
      // The result appears selftest_time later: delay the DMA by a one-shot event.
      auto ev = std::make_shared<sc_core::sc_event>();
      o.set_sensitivity(ev.get());
      sc_core::sc_spawn([this, raw, ev] { submit(std::unique_ptr<DmaReq>(raw)); }, nullptr, &o);
      ev->notify(delay + p_.selftest_time);
      break;
    }
    case port::DUMP: {
      auto r = make_req(true, addr, 596, "PORT dump", "");  // estimate: dump buffer size (layout not modelled)
      std::copy(config_.begin(), config_.end(), r->buf.begin());
      std::copy(ia_.begin(), ia_.end(), r->buf.begin() + config_.size());
      submit(std::move(r));
      break;
    }
    default: break;
  }
}

// ---------------------------------------------------------------- SCB commands
void I8255x::accept_command() {
  uint8_t c = cmd_;
  cmd_ = 0;
  csr_[SCBCmd] = 0;
  uint32_t gp = ld32(&csr_[SCBPointer]);
  switch (c >> 4) {
    case cuc::START:
      if (cus_ != Cus::Active) {
        cus_ = Cus::Active;
        cu_fetch(cu_base_ + gp);
      }
      break;
    case cuc::RESUME:
    case cuc::STATIC_RESUME:
      if (cus_ == Cus::Suspended) cu_resume();
      break;
    case cuc::LOAD_BASE: cu_base_ = gp; break;
    case cuc::DUMP_ADDR: dump_addr_ = gp; break;
    case cuc::DUMP_STAT: dump_counters(false); break;
    case cuc::DUMP_RST_STAT: dump_counters(true); break;
    default: break;
  }
  switch (c & 0x7) {
    case ruc::START:
      if (rus_ != Rus::Ready) {
        ru_next_ = ru_base_ + gp;
        rus_ = Rus::Ready;
        rx_process();
      }
      break;
    case ruc::RESUME:
      if (rus_ == Rus::Suspended) {
        rus_ = Rus::Ready;
        rx_process();
      }
      break;
    case ruc::ABORT: rus_ = Rus::Idle; break;
    case ruc::LOAD_BASE: ru_base_ = gp; break;
    default: break;
  }
}

void I8255x::dump_counters(bool reset_after) {
  unsigned n = v_.stat_dwords;
  auto r = make_req(true, cu_base_ + dump_addr_, 4 * (n + 1), "dump counters", "");
  for (unsigned i = 0; i < n && i < kStatCounters; ++i) st32(r->buf.data() + 4 * i, stats_[i]);
  st32(r->buf.data() + 4 * n, reset_after ? DUMP_RST_STAT_COMPLETED : DUMP_STAT_COMPLETED);
  if (reset_after) stats_.fill(0);
  submit(std::move(r));
}

// ============================================================================================
// Command unit
// ============================================================================================

std::unique_ptr<I8255x::DmaReq> I8255x::make_req(bool write, uint64_t addr, size_t n, const char* what,
                                                 const char* stage, JourneyId j) {
  auto r = std::make_unique<I8255x::DmaReq>();
  r->write = write;
  r->addr = addr;
  r->buf.assign(n, 0);
  r->what = what;
  r->stage = stage;
  if (j) r->journeys.push_back(j);
  return r;
}

void I8255x::cu_fetch(uint32_t addr) {
  auto r = make_req(false, addr, cb::kHeaderBytes, "CB fetch", "descriptor fetch");
  r->done = [this, addr](DmaReq& q) {
    cu_exec(addr, ld16(q.buf.data()), ld16(q.buf.data() + 2), ld32(q.buf.data() + 4));
  };
  submit(std::move(r));
}

void I8255x::cu_exec(uint32_t addr, uint16_t status, uint16_t cmd, uint32_t link) {
  uint16_t op = cmd & cb::CMD_MASK;
  auto read_then = [this, addr](size_t n, const char* what, std::function<void(const std::vector<uint8_t>&)> f) {
    auto r = make_req(false, addr + cb::kHeaderBytes, n, what, "");
    r->done = [f = std::move(f)](DmaReq& q) { f(q.buf); };
    submit(std::move(r));
  };
  switch (op) {
    case cb::NOP: cu_complete(addr, cmd, link, true); return;
    case cb::IA_SETUP:
      read_then(6, "IA setup", [=, this](const std::vector<uint8_t>& b) {
        std::copy_n(b.begin(), 6, ia_.begin());
        cu_complete(addr, cmd, link, true);
      });
      return;
    case cb::CONFIGURE:
      read_then(cb::kConfigBytesMax, "configure", [=, this](const std::vector<uint8_t>& b) {
        unsigned n = std::clamp<unsigned>(b[0] & 0x3F, 8, cb::kConfigBytesMax);  // byte 0: byte count (8..22)
        std::copy_n(b.begin(), n, config_.begin());
        cu_complete(addr, cmd, link, true);
      });
      return;
    case cb::MULTICAST:
      read_then(2, "multicast count", [=, this](const std::vector<uint8_t>& b) {
        unsigned n = ld16(b.data()) & 0x3FFF;
        auto r = make_req(false, addr + cb::kHeaderBytes + 2, n, "multicast list", "");
        r->done = [=, this](DmaReq& q) {
          multicast_.clear();
          for (unsigned i = 0; i + 6 <= q.buf.size(); i += 6) {
            std::array<uint8_t, 6> m;
            std::copy_n(q.buf.begin() + i, 6, m.begin());
            multicast_.push_back(m);
          }
          cu_complete(addr, cmd, link, true);
        };
        submit(std::move(r));
      });
      return;
    case cb::TRANSMIT:
      read_then(cb::kTcbBytes - cb::kHeaderBytes, "TCB",
                [=, this](const std::vector<uint8_t>& b) { cu_transmit(addr, cmd, link, b); });
      return;
    case cb::LOAD_UCODE:
      read_then(4 * cb::kUcodeDwords, "microcode", [=, this](const std::vector<uint8_t>& b) {
        load_microcode(b);
        cu_complete(addr, cmd, link, true);
      });
      return;
    case cb::DUMP:
      read_then(4, "dump address", [=, this](const std::vector<uint8_t>& b) {
        auto r = make_req(true, cu_base_ + ld32(b.data()), 596, "dump", "");  // estimate: buffer size
        std::copy(config_.begin(), config_.end(), r->buf.begin());
        std::copy(ia_.begin(), ia_.end(), r->buf.begin() + config_.size());
        r->done = [=, this](DmaReq&) { cu_complete(addr, cmd, link, true); };
        submit(std::move(r));
      });
      return;
    default: cu_complete(addr, cmd, link, false); return;
  }
  (void)status;
}

void I8255x::load_microcode(const std::vector<uint8_t>& payload) {
  if (!v_.cpusaver) return;  // the 82557 has no microcode RAM
  std::vector<uint32_t> dw(payload.size() / 4);
  for (size_t i = 0; i < dw.size(); ++i) dw[i] = ld32(payload.data() + 4 * i);
  auto params = decode_cpusaver(*v_.cpusaver, dw);
  if (!params) return;  // not this revision's CPU-Saver image: no behaviour change
  saver_ = std::make_unique<CpuSaver>(*params, tick_clk_);
  saver_ev_.cancel();
}

void I8255x::cu_transmit(uint32_t addr, uint16_t cmd, uint32_t link, const std::vector<uint8_t>& tcb) {
  uint32_t tbd_array = ld32(tcb.data());
  unsigned tcb_count = ld16(tcb.data() + 4) & cb::TX_COUNT_MASK;
  unsigned tbd_num = tcb[7];
  bool flexible = (cmd & cb::SF) && tbd_array != kNullLink;
  // The buffers: (address, length) in order.
  auto bufs = std::make_shared<std::vector<std::pair<uint64_t, unsigned>>>();
  if (tcb_count) bufs->push_back({uint64_t(addr) + cb::kTcbBytes, tcb_count});
  auto frame = std::make_shared<std::vector<uint8_t>>();
  auto send = [=, this]() {
    EthFrame f;
    f.bytes = std::move(*frame);
    f.journey = bufs->empty() ? 0 : dma_tags().take(space_, bufs->front().first);
    if ((config_[18] & cfg::B18_PADDING) && f.bytes.size() < 60) f.bytes.resize(60, 0);
    if (f.journey) sim().journeys.mark(f.journey, now(), "MAC TX", name(), "");
    mac_tx_->queue(std::move(f), [=, this] {
      count(XmtGoodFrames);
      cu_complete(addr, cmd, link, true);
    });
  };
  // Read every buffer, in order, then send.
  auto read_bufs = std::make_shared<std::function<void(size_t)>>();
  *read_bufs = [=, this](size_t i) {
    if (i >= bufs->size()) {
      send();
      *read_bufs = nullptr;  // break the self-reference
      return;
    }
    auto [a, n] = (*bufs)[i];
    JourneyId j = i == 0 ? dma_tags().peek(space_, a) : 0;
    auto r = make_req(false, a, n, "TX data", "data DMA", j);
    r->done = [=](DmaReq& q) {
      frame->insert(frame->end(), q.buf.begin(), q.buf.end());
      (*read_bufs)(i + 1);
    };
    submit(std::move(r));
  };
  if (!flexible) {
    (*read_bufs)(0);
    return;
  }
  auto r = make_req(false, cu_base_ + tbd_array, size_t(tbd_num) * cb::kTbdBytes, "TBD fetch", "descriptor fetch");
  r->done = [=](DmaReq& q) {
    for (unsigned i = 0; i < tbd_num; ++i) {
      const uint8_t* t = q.buf.data() + i * cb::kTbdBytes;
      unsigned n = ld16(t + 4) & cb::TX_COUNT_MASK;
      if (n) bufs->push_back({ld32(t), n});
    }
    (*read_bufs)(0);
  };
  submit(std::move(r));
}

void I8255x::cu_complete(uint32_t addr, uint16_t cmd, uint32_t link, bool ok) {
  auto r = make_req(true, addr, 2, "CB status", "write-back");
  st16(r->buf.data(), uint16_t(cb::C | (ok ? cb::OK : 0)));
  (void)link;  // the link is re-read with EL and S (cu_next)
  r->done = [=, this](DmaReq&) { cu_next(addr, cmd); };
  submit(std::move(r));
}

void I8255x::cu_next(uint32_t addr, uint16_t fetched_cmd) {
  // EL, S and the link are sampled when the CB completes, not when it was fetched: the driver may
  // clear S (eepro100 clear_suspend, e100 "clear S-bit in previous") while the CB executes and then
  // issue CU Resume, which the CU ignores while active. eepro100.c Theory of Operation IIIB: after
  // "erasing the previous suspend" the chip "processes the previous command" and goes on to the final
  // one, i.e. it does not suspend on the CB whose S was cleared under it.
  auto r = make_req(false, uint64_t(addr) + 2, 6, "CB command re-read", "descriptor fetch");
  r->done = [=, this](DmaReq& q) {
    const uint16_t cmd = ld16(q.buf.data());
    const uint32_t link = ld32(q.buf.data() + 2);
    uint16_t bits = (fetched_cmd & cb::I) ? stat::CX : 0;
    if (cmd & cb::EL) {
      cus_ = Cus::Idle;
      bits |= stat::CNA;
    } else if (cmd & cb::S) {
      cus_ = Cus::Suspended;
      cu_suspended_at_ = addr;
      bits |= stat::CNA;
    }
    if (bits) raise(bits);
    if (cus_ == Cus::Active) cu_fetch(cu_base_ + link);
  };
  submit(std::move(r));
}

void I8255x::cu_resume() {
  cus_ = Cus::Active;
  uint32_t at = cu_suspended_at_;
  auto r = make_req(false, at + 4, 4, "CB link", "descriptor fetch");  // the link may have been rewritten
  r->done = [this](DmaReq& q) { cu_fetch(cu_base_ + ld32(q.buf.data())); };
  submit(std::move(r));
}

// ============================================================================================
// Receive
// ============================================================================================

void I8255x::frame_received(const EthFrame& f) { rx_pipe_->arrived(f); }

bool I8255x::address_match(const std::vector<uint8_t>& b) const {
  if (b.size() < 6) return false;
  if (config_[15] & cfg::B15_PROMISCUOUS) return true;
  bool bcast = std::all_of(b.begin(), b.begin() + 6, [](uint8_t x) { return x == 0xFF; });
  if (bcast) return !(config_[15] & cfg::B15_BROADCAST_DIS);
  if (b[0] & 1) {
    if (config_[21] & cfg::B21_MULTICAST_ALL) return true;
    return std::any_of(multicast_.begin(), multicast_.end(),
                       [&](const auto& m) { return std::equal(m.begin(), m.end(), b.begin()); });
  }
  return std::equal(ia_.begin(), ia_.end(), b.begin());
}

void I8255x::accept_frame(const EthFrame& f) {
  if (!address_match(f.bytes)) {
    sim().counters.at(std::string(name()) + ".rx_filtered") += 1;
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "address filter");
    return;
  }
  if (rus_ != Rus::Ready) {  // "Good frame dropped cuz no resources" (e100.h rcv_rsrc_err)
    count(RcvResourceErrors);
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "RU not ready (rcv_rsrc_err)");
    return;
  }
  size_t len = f.bytes.size() + ((config_[18] & cfg::B18_CRC_IN_MEM) ? kEthFcsBytes : 0);
  if (rx_fifo_used_ + len > p_.rx_fifo_bytes) {
    count(RcvOverruns);
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", name(), "RX FIFO overrun (rcv_oruns)");
    return;
  }
  std::vector<uint8_t> bytes = f.bytes;
  if (config_[18] & cfg::B18_CRC_IN_MEM) bytes.resize(len, 0);  // FCS bytes not computed (not read by drivers)
  rx_fifo_used_ += len;
  if (f.journey) sim().journeys.mark(f.journey, now(), "RX FIFO", name(), rx_busy_ ? "RX DMA busy" : "");
  rx_fifo_.push_back({std::move(bytes), f.journey});
  rx_process();
}

void I8255x::rx_process() {
  while (!rx_busy_ && !rx_fifo_.empty()) {
    if (rus_ != Rus::Ready) {  // the RU left the ready state with frames in the FIFO: they are lost
      for (auto& fr : rx_fifo_) {
        count(RcvResourceErrors);
        if (fr.j) sim().journeys.mark(fr.j, now(), "dropped", name(), "RU not ready (rcv_rsrc_err)");
      }
      rx_fifo_.clear();
      rx_fifo_used_ = 0;
      return;
    }
    rx_busy_ = true;
    uint32_t rfd_addr = ru_next_;
    JourneyId j = rx_fifo_.front().j;
    auto r = make_req(false, rfd_addr, rfd::kHeaderBytes, "RFD fetch", "RX DMA", j);
    r->done = [this, rfd_addr, j](DmaReq& q) {
      uint16_t rcmd = ld16(q.buf.data() + 2);
      uint32_t link = ld32(q.buf.data() + 4);
      unsigned size = ld16(q.buf.data() + 14) & rfd::COUNT_MASK;
      RxFrame fr = std::move(rx_fifo_.front());
      rx_fifo_.pop_front();
      rx_fifo_used_ -= std::min(rx_fifo_used_, fr.bytes.size());
      bool fits = fr.bytes.size() <= size;
      unsigned n = unsigned(std::min<size_t>(fr.bytes.size(), size));
      auto d = make_req(true, uint64_t(rfd_addr) + rfd::kHeaderBytes, n, "RX data", "RX DMA", j);
      std::copy_n(fr.bytes.begin(), n, d->buf.begin());
      submit(std::move(d));
      auto c = make_req(true, uint64_t(rfd_addr) + 12, 2, "RFD count", "write-back", j);
      st16(c->buf.data(), uint16_t(rfd::EOF_ | rfd::F | n));
      submit(std::move(c));
      auto s = make_req(true, rfd_addr, 2, "RFD status", "write-back", j);
      st16(s->buf.data(), uint16_t(rfd::C | (fits ? rfd::OK : rfd::NO_RESOURCES)));
      s->done = [this, rfd_addr, rcmd, link, n, j](DmaReq&) {
        if (j) dma_tags().tag(space_, uint64_t(rfd_addr) + rfd::kHeaderBytes, j);
        count(RcvGoodFrames);
        rx_busy_ = false;
        uint16_t bits = 0;
        if (rcmd & rfd::EL) rus_ = Rus::NoResources, bits = stat::RNR;
        else if (rcmd & rfd::S) rus_ = Rus::Suspended, bits = stat::RNR;
        ru_next_ = ru_base_ + link;
        if (saver_) {
          rx_await_.push_back(j);
          bool now_ = saver_->frame(now(), n);
          if (now_) fr_now(0, saver_->last_cause());
          else if (auto dl = saver_->deadline()) {
            if (j) sim().journeys.mark(j, now(), "moderation wait", name(), "CPU-Saver dead-man timer");
            saver_ev_.cancel();
            saver_ev_.notify(*dl - now());
          }
        } else {
          if (j) sim().journeys.mark(j, now(), "interrupt", name(), "");
          bits |= stat::FR;
        }
        if (bits) raise(bits);
        rx_process();
      };
      submit(std::move(s));
    };
    submit(std::move(r));
  }
}

void I8255x::fr_now(JourneyId, const char* cause) {
  sim().counters.at(std::string(name()) + ".cpusaver." + cause) += 1;
  for (JourneyId a : rx_await_)
    if (a) sim().journeys.mark(a, now(), "interrupt", name(), "");
  rx_await_.clear();
  if (saver_ && !saver_->deadline()) saver_ev_.cancel();
  raise(stat::FR);
}

void I8255x::on_saver() {
  if (saver_ && saver_->expire(now())) fr_now(0, saver_->last_cause());
  if (saver_)
    if (auto dl = saver_->deadline()) saver_ev_.notify(*dl > now() ? *dl - now() : SC_ZERO_TIME);
}

std::optional<FrameTally> I8255x::tally() const {
  auto c = [this](StatCounter s) { return *stat_ctr_[s]; };
  auto named = [this](const char* n) { return sim().counters.get(std::string(name()) + n); };
  FrameTally t;
  t.sent = c(XmtGoodFrames);
  t.accepted = c(RcvGoodFrames);
  t.held = {{"in the MAC receive pipeline", rx_pipe_->held()}, {"in the RX FIFO", rx_fifo_.size()}};
  t.dropped = {{"address filter (rx_filtered)", named(".rx_filtered")},
               {"RU not ready (rcv_rsrc_err)", c(RcvResourceErrors)},
               {"RX FIFO overrun (rcv_oruns)", c(RcvOverruns)},
               {"device reset (rx_dropped_reset)", named(".rx_dropped_reset")}};
  return t;
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
      e.params = I8255xParams::schema();
      e.info = device_info(v);
      e.ports = 1;
      e.link_speeds_mbps = {10, 100};  // a 10/100 MAC (OpenSDM §1: 10BASE-T / 100BASE-TX)
      e.check = nic_param_problems;  // mac_address, cache_line_bytes
      const Variant* vp = &v;
      e.create = [vp](const std::string& inst, const ParamValues& pv) -> std::unique_ptr<PciDevice> {
        I8255xParams p = I8255xParams::from(pv);
        p.draw_clock_offset(inst);
        return std::make_unique<I8255x>(inst.c_str(), *vp, p);
      };
      e.hardware_json = [](const PciDevice& dev) {
        auto* nic = dynamic_cast<const I8255x*>(&dev);
        return nic ? nlohmann::json{{"clock_ppm", nic->clock().ppm()}, {"io_bar_bytes", nic->io_bar_bytes()}}
                   : nlohmann::json::object();
      };
      Registry<DeviceEntry>::instance().add(std::move(e));
    }
  }
} register_variants;
}  // namespace

}  // namespace nicsim::i8255x
