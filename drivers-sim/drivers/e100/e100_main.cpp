// e100_main.c of the model (e100 2.1.6-k1): probe, open/close, transmit, interrupt handler, RX/TX
// service, microcode load and the watchdog. See e100.h for what is modelled and the sources.
#include "core/sim_context.h"
#include "drivers-sim/drivers/e100/e100.h"
#include "drivers-sim/drivers/e100/e100_ucode.h"
#include "drivers-sim/driver_entry.h"
#include "drivers-sim/kernel/rx_journey.h"
#include "models/bus/pci.h"
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <systemc>

namespace nicsim::e100drv {

namespace {
constexpr int kEBUSY = 16;
std::string counter(Kernel& k, const std::string& dev, const char* what) {
  return k.host() + "." + dev + ".driver." + what;
}
void put16(uint8_t* p, uint16_t v) { p[0] = uint8_t(v); p[1] = uint8_t(v >> 8); }
void put32(uint8_t* p, uint32_t v) { for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i)); }
uint16_t get16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t get32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t(p[3]) << 24); }

// e100_config.c def_config (CB_CFIG_BYTE_COUNT first).
constexpr uint8_t kDefConfig[CB_CFIG_BYTE_COUNT] = {CB_CFIG_BYTE_COUNT, 0x08, 0x00, 0x00, 0x00, 0x00, 0x32, 0x07,
                                                     0x01, 0x00, 0x2e, 0x00, 0x60, 0x00, 0xf2, 0xc8,
                                                     0x00, 0x40, 0xf2, 0x80, 0x3f, 0x05};
// e100_config.h bits used by e100_config_init (82557/82558 parts).
constexpr uint8_t CB_CFIG_MWI_EN = 0x01;        // byte 3
constexpr uint8_t CB_CFIG_TCO_STAT = 0x04;      // byte 6
constexpr uint8_t CB_CFIG_EXT_TCB_DIS = 0x10;   // byte 6
constexpr uint8_t CB_CFIG_EXT_STAT_DIS = 0x20;  // byte 6
constexpr uint8_t CB_CFIG_SAVE_BAD_FRAMES = 0x80;  // byte 6
constexpr uint8_t CB_CFIG_503_MII = 0x01;       // byte 8
constexpr uint8_t CB_CFIG_PROMISCUOUS = 0x01;   // byte 15
constexpr uint8_t CB_CFIG_CRS_OR_CDT = 0x80;    // byte 15
constexpr uint8_t CB_CFIG_LONG_RX_OK = 0x08;    // byte 18
constexpr uint8_t CB_CFIG_MULTICAST_ALL = 0x08; // byte 21
constexpr uint16_t BMSR_LSTATUS = 0x0004;       // MII BMSR link status
}  // namespace

Adapter::Adapter(Kernel& k, std::string name, uint8_t rev_id, uint64_t bar, unsigned vector, DmaTags::Space dma_space,
                 const Options& opt)
    : NetDevice(k, std::move(name)), rev_id_(rev_id), bachelor_(rev_id >= D101A4_REV_ID), bar_(bar),
      costs_(k.driver_costs(kCostDriver, path_names())), space_(dma_space), opt_(opt) {
  irq = vector;
  watchdog_timer_.function = [this]() { return watchdog(); };
  auto& c = sim().counters;
  c_intr_ = &c.at(counter(k, this->name(), "intr"));
  c_not_ours_ = &c.at(counter(k, this->name(), "intr_not_ours"));
  c_rx_ = &c.at(counter(k, this->name(), "rx_frames"));
  c_tx_cleaned_ = &c.at(counter(k, this->name(), "tx_cleaned"));
  c_cu_start_ = &c.at(counter(k, this->name(), "cu_start"));
  c_cu_resume_ = &c.at(counter(k, this->name(), "cu_resume"));
  c_tx_busy_ = &c.at(counter(k, this->name(), "tx_busy"));
  c_watchdog_ = &c.at(counter(k, this->name(), "watchdog"));
  c_ucode_ = &c.at(counter(k, this->name(), "ucode_loaded"));
  c_rx_cong_ = &c.at(counter(k, this->name(), "rx_congestion"));
  stat_dwords_ = rev_id_ >= D101MA_REV_ID ? 20 : bachelor_ ? 19 : 16;  // e100.h stat modes: basic/extended/TCO
  // e100_alloc_space: selftest, stats counters and the non-TX CB in one consistent block.
  dma_able_ = k.dma_alloc(1024, 64);
  selftest_phys_ = dma_able_;
  stat_cnt_phys_ = dma_able_ + 16;
  nontx_phys_ = dma_able_ + 128;
  std::vector<uint8_t> zero(1024, 0);
  k.mem_write(dma_able_, zero.data(), zero.size());
  netif_carrier_off();
}

Adapter::~Adapter() = default;

std::string Adapter::where() const {
  Cpu* c = Cpu::running_cpu_or_null();
  return kernel().host() + (c ? ".cpu" + std::to_string(c->index()) : std::string());
}

// ---------------------------------------------------------------------------------------------
// SCB helpers (e100_main.c), memory space as e100 uses them

Task<void> Adapter::exec_cmd(uint8_t cmd) {
  co_await writeb(cmd, reg(SCB_CMD_LOW));
  (void)co_await readw(reg(SCB_STATUS));  // "flushes last write, read-safe"
}

Task<bool> Adapter::wait_scb() {
  for (int i = 0; i < 100; ++i) {  // "loop on the scb for a few times"
    const uint8_t c = co_await readb(reg(SCB_CMD_LOW));
    if (!c) co_return true;
  }
  for (int i = 0; i < 100; ++i) {  // E100_MAX_SCB_WAIT, with udelay(1)
    const uint8_t c = co_await readb(reg(SCB_CMD_LOW));
    if (!c) co_return true;
    co_await udelay(1);
  }
  co_return false;
}

Task<bool> Adapter::wait_exec_simple(uint8_t cmd) {
  const bool ok = co_await wait_scb();
  if (!ok) co_return false;
  co_await exec_cmd(cmd);
  co_return true;
}

Task<void> Adapter::exec_cmplx(uint32_t phys, uint8_t cmd) {
  co_await writel(phys, reg(SCB_GEN_PTR));
  (void)co_await readw(reg(SCB_STATUS));
  co_await exec_cmd(cmd);
}

Task<bool> Adapter::wait_exec_cmplx(uint32_t phys, uint8_t cmd) {
  const bool ok = co_await wait_scb();
  if (!ok) co_return false;
  co_await exec_cmplx(phys, cmd);
  co_return true;
}

Task<bool> Adapter::wait_cus_idle() {
  for (int i = 0; i < 100 + 50; ++i) {  // 100 tries, then E100_MAX_CU_IDLE_WAIT with udelay(1)
    const uint16_t s = co_await readw(reg(SCB_STATUS));
    if ((s & SCB_CUS_MASK) != SCB_CUS_ACTIVE) co_return true;
    if (i >= 100) co_await udelay(1);
  }
  co_return false;
}

Task<void> Adapter::dis_intr() {
  co_await writeb(SCB_INT_MASK, reg(SCB_CMD_HI));
  (void)co_await readw(reg(SCB_STATUS));
}

Task<void> Adapter::set_intr_mask() {
  co_await writeb(0, reg(SCB_CMD_HI));  // bdp->intr_mask = 0 (set in e100_open)
  (void)co_await readw(reg(SCB_STATUS));
}

Task<void> Adapter::trigger_swi() {
  co_await writeb(SCB_SOFT_INT, reg(SCB_CMD_HI));
  (void)co_await readw(reg(SCB_STATUS));
}

Task<void> Adapter::udelay(double us) {
  // udelay: a calibrated busy loop on the running CPU.
  const CostEntry e{us * kernel().params().cpu_mhz, 0, false, "udelay: busy loop of the given length"};
  co_await kernel().cost(e);
}

Task<void> Adapter::sw_reset(uint32_t reset_cmd) {
  co_await writel(PORT_SELECTIVE_RESET, reg(SCB_PORT));  // "selective reset first to avoid a potential PCI hang"
  (void)co_await readw(reg(SCB_STATUS));
  co_await udelay(20);
  if (reset_cmd == PORT_SOFTWARE_RESET) {
    co_await writel(PORT_SOFTWARE_RESET, reg(SCB_PORT));
    co_await udelay(20);
  }
  co_await dis_intr();
}

Task<bool> Adapter::selftest() {
  Kernel& k = kernel();
  co_await sw_reset(PORT_SOFTWARE_RESET);
  uint8_t init[8];
  put32(init, 0);
  put32(init + 4, 0xFFFFFFFFu);
  k.mem_write(selftest_phys_, init, 8);
  co_await writel(uint32_t(selftest_phys_) | PORT_SELFTEST, reg(SCB_PORT));
  (void)co_await readw(reg(SCB_STATUS));
  WaitQueue wq;  // set_current_state(TASK_UNINTERRUPTIBLE); schedule_timeout(HZ / 100 + 1)
  (void)co_await k.schedule_timeout(wq, long(k.params().hz / 100 + 1));
  co_await dis_intr();
  co_await k.load_dma_lines(selftest_phys_, 8);
  uint8_t r[8];
  k.mem_read(selftest_phys_, r, 8);
  co_return get32(r) != 0 && get32(r + 4) == 0;
}

// ---------------------------------------------------------------------------------------------
// EEPROM (e100_eeprom.c: bit-banged Microwire through the SCB EEPROM control register)

Task<void> Adapter::eeprom_shift_out(uint16_t bits, unsigned count) {
  for (unsigned i = count; i-- > 0;) {
    const uint16_t di = (bits >> i) & 1 ? EEDI : 0;
    co_await writew(uint16_t(EECS | di), reg(SCB_EEPROM_CTRL));
    co_await writew(uint16_t(EECS | di | EESK), reg(SCB_EEPROM_CTRL));  // rising edge clocks the bit in
    co_await writew(uint16_t(EECS | di), reg(SCB_EEPROM_CTRL));
  }
}

Task<unsigned> Adapter::eeprom_size_bits() {
  // e100_eeprom_size: shift the read opcode, then address zeros until EEDO shows the dummy 0.
  co_await writew(EECS, reg(SCB_EEPROM_CTRL));
  co_await eeprom_shift_out(0x6, 3);  // start bit + EEPROM_READ_OPCODE (10)
  unsigned n = 0;
  for (n = 1; n <= 8; ++n) {
    co_await eeprom_shift_out(0, 1);
    const uint16_t v = co_await readw(reg(SCB_EEPROM_CTRL));
    if (!(v & EEDO)) break;
  }
  for (int i = 0; i < 16; ++i) {  // clock the word out
    co_await writew(uint16_t(EECS | EESK), reg(SCB_EEPROM_CTRL));
    co_await writew(EECS, reg(SCB_EEPROM_CTRL));
  }
  co_await writew(0, reg(SCB_EEPROM_CTRL));
  co_return n;
}

Task<uint16_t> Adapter::eeprom_read(uint16_t word) {
  if (!eeprom_bits_) eeprom_bits_ = co_await eeprom_size_bits();  // bdp->eeprom_size
  const unsigned bits = eeprom_bits_;
  co_await writew(EECS, reg(SCB_EEPROM_CTRL));
  co_await eeprom_shift_out(0x6, 3);
  co_await eeprom_shift_out(word, bits);
  uint16_t v = 0;
  for (int i = 0; i < 16; ++i) {
    co_await writew(uint16_t(EECS | EESK), reg(SCB_EEPROM_CTRL));
    const uint16_t d = co_await readw(reg(SCB_EEPROM_CTRL));
    v = uint16_t((v << 1) | ((d & EEDO) ? 1 : 0));
    co_await writew(EECS, reg(SCB_EEPROM_CTRL));
  }
  co_await writew(0, reg(SCB_EEPROM_CTRL));
  co_return v;
}

Task<uint16_t> Adapter::mdi_read(unsigned r, unsigned phy) {
  // e100_mdi_read: MDI control = register | PHY address | read opcode; poll ready with udelay(20).
  co_await writel((r << 16) | (phy << 21) | (2u << 26), reg(SCB_MDI_CTRL));
  uint32_t v = 0;
  for (int i = 0; i < 100; ++i) {
    co_await udelay(20);
    v = co_await readl(reg(SCB_MDI_CTRL));
    if (v & (1u << 28)) break;  // MDI_PHY_READY
  }
  co_return uint16_t(v);
}

// ---------------------------------------------------------------------------------------------
// non-TX commands (polled, as at probe and in e100_open)

Task<bool> Adapter::exec_non_cu_cmd(std::vector<uint8_t> cb) {
  Kernel& k = kernel();
  put16(cb.data(), 0);                                       // cb_status = 0
  put16(cb.data() + 2, uint16_t(get16(cb.data() + 2) | CB_EL_BIT));  // "last command block"
  put32(cb.data() + 4, 0);                                   // cb_lnk_ptr = 0
  k.mem_write(nontx_phys_, cb.data(), cb.size());
  const bool idle = co_await wait_cus_idle();
  if (!idle) co_return false;
  const bool ok = co_await wait_exec_cmplx(uint32_t(nontx_phys_), SCB_CUC_START);
  if (!ok) co_return false;
  next_cu_ = NextCu::START_WAIT;
  ++*c_cu_start_;
  // "now wait for completion of non-cu CB up to 20 msec"
  for (int i = 0; i < 10000; ++i) {
    co_await k.load_dma_lines(nontx_phys_, 2);
    uint8_t s[2];
    k.mem_read(nontx_phys_, s, 2);
    if (get16(s) & CB_STATUS_COMPLETE) co_return true;
    co_await udelay(2);
  }
  co_return false;
}

Task<bool> Adapter::load_microcode() {
  if (!opt_.ucode) co_return false;  // "User turned ucode loading off" (or the revision's default)
  const auto o = ucode_opts(rev_id_);
  if (!o) co_return false;  // no image for this revision (82557)
  const std::vector<uint32_t> w = ucode_image(*o, uint16_t(opt_.int_delay), uint16_t(opt_.bundle_max),
                                              opt_.bundle_small_fr);
  std::vector<uint8_t> cb(8 + 4 * UCODE_MAX_DWORDS, 0);
  put16(cb.data() + 2, CB_LOAD_MICROCODE);
  for (unsigned i = 0; i < UCODE_MAX_DWORDS; ++i) put32(cb.data() + 8 + 4 * i, w[i]);
  const bool ok = co_await exec_non_cu_cmd(std::move(cb));
  if (ok) ucode_sent_.assign(w.begin(), w.begin() + UCODE_MAX_DWORDS);
  co_return ok;
}

Task<bool> Adapter::config() {
  std::vector<uint8_t> cb(8 + CB_CFIG_BYTE_COUNT, 0);
  put16(cb.data() + 2, CB_CONFIGURE);
  std::copy(config_.begin(), config_.end(), cb.begin() + 8);
  co_return co_await exec_non_cu_cmd(std::move(cb));
}

Task<bool> Adapter::setup_iaaddr() {
  std::vector<uint8_t> cb(8 + 6, 0);
  put16(cb.data() + 2, CB_IA_ADDRESS);
  std::copy(dev_addr.begin(), dev_addr.end(), cb.begin() + 8);
  co_return co_await exec_non_cu_cmd(std::move(cb));
}

Task<bool> Adapter::clr_cntrs() {
  Kernel& k = kernel();
  const uint32_t zero = 0;  // the dump's completion dword
  k.mem_write(stat_cnt_phys_ + 4 * stat_dwords_, &zero, 4);
  bool ok = co_await wait_exec_cmplx(uint32_t(stat_cnt_phys_), SCB_CUC_DUMP_ADDR);
  if (!ok) co_return false;
  co_await udelay(10);
  ok = co_await wait_exec_simple(SCB_CUC_DUMP_RST_STAT);
  if (next_cu_ == NextCu::RESUME_NO_WAIT) next_cu_ = NextCu::RESUME_WAIT;
  co_return ok;
}

Task<bool> Adapter::hw_init() {
  // e100_phy_init (reduced): the PHY at address 1, its id and the latched link status.
  (void)co_await mdi_read(2, phy_addr_);
  (void)co_await mdi_read(3, phy_addr_);
  (void)co_await mdi_read(1, phy_addr_);
  const uint16_t bmsr = co_await mdi_read(1, phy_addr_);
  if (bmsr & BMSR_LSTATUS) netif_carrier_on();
  co_await sw_reset(PORT_SOFTWARE_RESET);
  bool ok = co_await wait_exec_cmplx(0, SCB_CUC_LOAD_BASE);  // "set to 0, because we use linear mode"
  if (!ok) co_return false;
  ok = co_await wait_exec_cmplx(0, SCB_RUC_LOAD_BASE);
  if (!ok) co_return false;
  ucode_loaded_ = co_await load_microcode();  // DF_UCODE_LOADED
  if (ucode_loaded_) ++*c_ucode_;
  // e100_config_init: def_config, then the 82558/82559 changes.
  std::copy(std::begin(kDefConfig), std::end(kDefConfig), config_.begin());
  config_[6] &= uint8_t(~CB_CFIG_TCO_STAT);
  config_[6] |= CB_CFIG_EXT_STAT_DIS;
  config_[8] |= CB_CFIG_503_MII;           // MII PHY (phy_addr != 32)
  config_[15] &= uint8_t(~CB_CFIG_CRS_OR_CDT);
  config_[6] &= uint8_t(~CB_CFIG_SAVE_BAD_FRAMES);  // e100_config_promisc(false)
  config_[7] |= 0x01;
  config_[15] &= uint8_t(~CB_CFIG_PROMISCUOUS);
  config_[21] &= uint8_t(~CB_CFIG_MULTICAST_ALL);   // e100_config_mulcast_enbl(false)
  if (bachelor_) {  // e100_config_init_82558
    config_[3] |= CB_CFIG_MWI_EN;
    config_[6] &= uint8_t(~CB_CFIG_EXT_TCB_DIS);
    if (rev_id_ >= D101MA_REV_ID) {
      config_[6] |= CB_CFIG_TCO_STAT | CB_CFIG_EXT_STAT_DIS;
      // XsumRX: byte 9 bit 0 left clear (see e100.h deviations).
    } else {
      config_[6] &= uint8_t(~(CB_CFIG_TCO_STAT | CB_CFIG_EXT_STAT_DIS));
    }
    config_[18] |= CB_CFIG_LONG_RX_OK;  // e100_config_long_rx(true)
  }
  ok = co_await config();
  if (!ok) co_return false;
  ok = co_await setup_iaaddr();
  if (!ok) co_return false;
  co_return co_await clr_cntrs();
}

Task<void> Adapter::probe_hw() {
  const bool st = co_await selftest();
  if (!st) throw std::runtime_error(name() + ": e100: selftest failed");
  for (unsigned i = 0; i < 6; i += 2) {  // e100_rd_eaddr
    const uint16_t w = co_await eeprom_read(uint16_t(i / 2));
    dev_addr[i] = uint8_t(w);
    dev_addr[i + 1] = uint8_t(w >> 8);
  }
  const bool ok = co_await hw_init();
  if (!ok) throw std::runtime_error(name() + ": e100: hw init failed");
  co_await dis_intr();
  probed_ = true;
  co_await kernel().wake_up(probe_wq_);
}

namespace {
Task<void> probe_port(Adapter* a) { co_await a->probe_hw(); }
}  // namespace

std::vector<std::shared_ptr<NetDevice>> probe(Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors,
                                              const ProbeTarget& nic, const ParamValues& params) {
  uint8_t rev = revision_of(dev.info().name);
  if (!rev) rev = revision_of(nic.device);
  if (!rev) throw std::invalid_argument(std::string(kDriverName) + ": unsupported device '" + dev.info().name + "'");
  auto* obj = dynamic_cast<sc_core::sc_object*>(&dev);
  if (!obj) throw std::invalid_argument(std::string(kDriverName) + ": device is not a SystemC object");
  if (vectors.empty()) throw std::invalid_argument(std::string(kDriverName) + ": no interrupt vector");
  const Options opt = check_options(params, rev);
  auto a = std::make_shared<Adapter>(k, nic.ifname, rev, dev.bar(0), vectors[0], DmaTags::space_of(obj->name()), opt);
  k.register_netdev(*a);
  k.spawn_process("insmod e100 " + nic.ifname, probe_port(a.get()));
  return {a};
}

// ---------------------------------------------------------------------------------------------
// pools

void Adapter::setup_tcb_pool() {
  Kernel& k = kernel();
  const unsigned n = opt_.tx_descriptors;
  tcb_phys_ = k.dma_alloc(size_t(n) * kTcbBytes, 64);  // pci_alloc_consistent + memset 0
  std::vector<uint8_t> pool(size_t(n) * kTcbBytes, 0);
  uint16_t txcommand = CB_S_BIT | CB_TX_SF_BIT | CB_TRANSMIT;
  if (bachelor_) txcommand |= CB_CID_DEFAULT;
  tcb_cmd_.assign(n, txcommand);
  tcb_skb_.clear();
  tcb_skb_.resize(n);
  tcb_buf_.assign(n, 0);
  for (unsigned i = 0; i < n; ++i) {
    uint8_t* t = pool.data() + size_t(i) * kTcbBytes;
    const uint64_t phys = tcb_phys(i);
    put16(t, i < 2 ? CB_STATUS_COMPLETE : 0);  // TCBs 0 and 1 start complete
    put16(t + 2, txcommand);
    put32(t + 4, uint32_t(i == n - 1 ? tcb_phys_ : phys + kTcbBytes));
    put32(t + 8, uint32_t(phys + kTbdOffset));  // TBD array address (see e100.h deviations)
    put16(t + 12, 0);                           // tcb_cnt: no data in the TCB
    t[14] = uint8_t(tx_thld_);
    t[15] = 1;                                  // tcb_tbd_num
  }
  k.mem_write(tcb_phys_, pool.data(), pool.size());
  head_ = 0;
  tail_ = 1;
  last_tcb_ = false;
}

void Adapter::free_tcb_pool() {
  for (unsigned i = 0; i < tcb_buf_.size(); ++i)
    if (tcb_buf_[i]) dma_tags().tag(space_, tcb_buf_[i], 0);
  tcb_skb_.clear();
  tcb_buf_.clear();
  if (tcb_phys_) kernel().dma_free(tcb_phys_);
  tcb_phys_ = 0;
}

void Adapter::add_skb_to_end(RxElem e) {
  Kernel& k = kernel();
  e.skb->dev = this;
  uint8_t h[kRfdHeaderBytes] = {};
  put16(h, 0);                        // cb_status
  put16(h + 2, RFD_EL_BIT);           // cb_cmd = EL
  put32(h + 4, 0);
  put32(h + 8, 0xFFFFFFFFu);
  put16(h + 12, 0);                   // rfd_act_cnt
  put16(h + 14, RFD_DATA_SIZE);       // rfd_sz
  k.mem_write(e.rfd, h, sizeof h);
  if (!rx_.empty()) {  // link the old tail to the new RFD, then clear its EL
    const uint64_t last = rx_.back().rfd;
    uint8_t l[4];
    put32(l, uint32_t(e.rfd));
    k.mem_write(last + 4, l, 4);
    uint8_t c[2];
    put16(c, 0);
    k.mem_write(last + 2, c, 2);
  }
  rx_.push_back(std::move(e));
}

Task<void> Adapter::alloc_skbs() {
  Kernel& k = kernel();
  for (; skb_req_ > 0; --skb_req_) {
    co_await k.cost(costs_[Path::e100_alloc_skb]);
    SkbPtr skb = co_await k.dev_alloc_skb(kRfdHeaderBytes + RFD_DATA_SIZE);  // sizeof(rfd_t)
    skb->reserve(2);  // DWORD-aligned IP header
    RxElem e;
    e.rfd = k.pci_map_single(*skb, DmaDir::FromDevice);
    skb->reserve(kRfdHeaderBytes);  // the frame data follows the RFD header
    e.skb = std::move(skb);
    add_skb_to_end(std::move(e));
  }
}

void Adapter::free_rfd_pool() {
  for (auto& e : rx_) dma_tags().tag(space_, e.rfd + kRfdHeaderBytes, 0);
  rx_.clear();
}

Task<void> Adapter::start_ru() {
  Kernel& k = kernel();
  const RxElem* found = nullptr;
  for (const auto& e : rx_) {
    uint8_t s[2];
    k.mem_read(e.rfd, s, 2);
    if (!(get16(s) & RFD_STATUS_COMPLETE)) {
      found = &e;
      break;
    }
  }
  if (!found) co_return;  // no buffers: the watchdog's SWI retries
  const uint32_t a = uint32_t(found->rfd);
  const bool ok = co_await wait_exec_cmplx(a, SCB_RUC_START);
  if (!ok) co_await exec_cmplx(a, SCB_RUC_START);
  if (next_cu_ == NextCu::RESUME_NO_WAIT) next_cu_ = NextCu::RESUME_WAIT;
}

// ---------------------------------------------------------------------------------------------
// open / close

Task<int> Adapter::open() {
  while (!probed_) co_await probe_wq_.wait();
  Kernel& k = kernel();
  setup_tcb_pool();
  skb_req_ = opt_.rx_descriptors;  // e100_alloc_rfd_pool
  co_await alloc_skbs();
  bool ok = co_await wait_exec_cmplx(0, SCB_CUC_LOAD_BASE);
  if (ok) ok = co_await wait_exec_cmplx(0, SCB_RUC_LOAD_BASE);
  if (!ok) co_return -11;  // -EAGAIN
  k.mod_timer(watchdog_timer_, k.jiffies() + 2 * k.params().hz);
  netif_start_queue();
  co_await start_ru();
  if (k.request_irq(irq, [this](unsigned) { return intr(); }, SA_SHIRQ, name()) != 0) {
    k.del_timer(watchdog_timer_);
    free_rfd_pool();
    free_tcb_pool();
    co_return -kEBUSY;
  }
  irq_requested_ = true;
  co_await set_intr_mask();  // intr_mask = 0
  config_[0] = CB_CFIG_BYTE_COUNT;  // e100_force_config
  (void)co_await config();
  co_return 0;
}

Task<int> Adapter::stop() {
  Kernel& k = kernel();
  co_await dis_intr();  // intr_mask = SCB_INT_MASK; e100_isolate_driver
  k.del_timer(watchdog_timer_);
  netif_stop_queue();
  co_await sw_reset(PORT_SELECTIVE_RESET);
  if (irq_requested_) k.free_irq(irq, name());
  irq_requested_ = false;
  free_rfd_pool();
  free_tcb_pool();
  co_return 0;
}

// ---------------------------------------------------------------------------------------------
// transmit

Task<void> Adapter::start_cu(unsigned tcb) {
  switch (next_cu_) {
    case NextCu::RESUME_NO_WAIT:
      // "if this is a 558 or newer we dont need to wait for command word to clear"
      co_await exec_cmd(SCB_CUC_RESUME);
      ++*c_cu_resume_;
      break;
    case NextCu::RESUME_WAIT: {
      const bool ok = co_await wait_exec_simple(SCB_CUC_RESUME);
      ++*c_cu_resume_;
      if (ok && bachelor_) next_cu_ = NextCu::RESUME_NO_WAIT;
      break;
    }
    case NextCu::START_WAIT: {
      (void)co_await wait_cus_idle();  // the last command was a non-TX CU command
      const bool ok = co_await wait_exec_cmplx(uint32_t(tcb_phys(tcb)), SCB_CUC_START);
      if (!ok) co_await exec_cmplx(uint32_t(tcb_phys(tcb)), SCB_CUC_START);
      ++*c_cu_start_;
      next_cu_ = NextCu::RESUME_WAIT;
      break;
    }
  }
  last_tcb_ = true;
}

Task<int> Adapter::hard_start_xmit(SkbPtr& skb) {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::e100_xmit_frame]);
  const unsigned n = opt_.tx_descriptors;
  auto next = [n](unsigned x) { return x + 1 >= n ? 0u : x + 1; };
  if (next(next(tail_)) == head_) {  // !TCBS_AVAIL
    netif_stop_queue();
    ++*c_tx_busy_;
    co_return 1;
  }
  // e100_prepare_xmit_buff
  const unsigned t = tail_;
  const uint64_t tp = tcb_phys(t);
  tcb_cmd_[t] |= CB_S_BIT;
  if (!(++tx_count_ % TX_FRAME_CNT)) tcb_cmd_[t] |= CB_I_BIT;  // "interrupt to clean things up"
  const uint64_t buf = k.pci_map_single(*skb, DmaDir::ToDevice);
  uint8_t h[16];
  put16(h, 0);  // cb_status
  put16(h + 2, tcb_cmd_[t]);
  put32(h + 4, uint32_t(t == n - 1 ? tcb_phys_ : tp + kTcbBytes));
  put32(h + 8, uint32_t(tp + kTbdOffset));  // tcb_tbd_dflt_ptr
  put16(h + 12, 0);
  h[14] = uint8_t(tx_thld_);
  h[15] = 1;  // tcb_tbd_num
  uint8_t tbd[8];
  put32(tbd, uint32_t(buf));
  put16(tbd + 4, uint16_t(skb->len));
  put16(tbd + 6, 0);
  k.mem_write(tp + kTbdOffset, tbd, 8);
  k.mem_write(tp, h, 16);
  const JourneyId j = skb->journey;
  dma_tags().tag(space_, buf, j);
  tcb_buf_[t] = buf;
  stats.tx_bytes += skb->len;
  tcb_skb_[t] = std::move(skb);
  // clear the S bit on the previous TCB
  const unsigned prev = t ? t - 1 : n - 1;
  tcb_cmd_[prev] = uint16_t(tcb_cmd_[prev] & ~CB_S_BIT);
  uint8_t c[2];
  put16(c, tcb_cmd_[prev]);
  k.mem_write(tcb_phys(prev) + 2, c, 2);
  tail_ = next(tail_);
  k.mark(j, "doorbell");
  co_await start_cu(t);
  if (Cpu* cpu = Cpu::running_cpu_or_null(); cpu && cpu->running() && cpu->running()->journey == j) {
    cpu->running()->journey = 0;
    cpu->running()->stage.clear();
  }
  co_return 0;
}

Task<void> Adapter::tx_srv() {
  Kernel& k = kernel();
  const unsigned n = opt_.tx_descriptors;
  auto next = [n](unsigned x) { return x + 1 >= n ? 0u : x + 1; };
  for (unsigned i = 0; i < n; ++i) {
    const uint64_t tp = tcb_phys(head_);
    co_await k.load_dma_lines(tp, 2);  // the NIC's status write invalidated the line
    uint8_t s[2];
    k.mem_read(tp, s, 2);
    if (!(get16(s) & CB_STATUS_COMPLETE)) break;
    if (tcb_skb_[head_]) {  // e100_tx_skb_free
      co_await k.cost(costs_[Path::e100_tx_srv]);
      dma_tags().tag(space_, tcb_buf_[head_], 0);
      tcb_buf_[head_] = 0;
      ++stats.tx_packets;
      ++*c_tx_cleaned_;
      k.dev_kfree_skb_irq(std::move(tcb_skb_[head_]));
    }
    if (up) netif_wake_queue();
    if (next(head_) == tail_) break;  // caught up with tail
    head_ = next(head_);
  }
}

// ---------------------------------------------------------------------------------------------
// receive


Task<unsigned> Adapter::rx_srv() {
  Kernel& k = kernel();
  const sc_time t_isr = now();
  unsigned cnt = 0;
  for (unsigned i = 0; i < opt_.rx_descriptors; ++i) {
    if (rx_.empty()) break;
    const uint64_t rfd = rx_.front().rfd;
    const sc_time t0 = now();
    const unsigned misses = co_await k.load_dma_lines(rfd, kRfdHeaderBytes);  // "sync only the RFD header"
    uint8_t h[kRfdHeaderBytes];
    k.mem_read(rfd, h, sizeof h);
    const uint16_t status = get16(h);
    if (!(status & RFD_STATUS_COMPLETE)) break;  // "does not contains data yet - exit"
    RxElem e = std::move(rx_.front());
    rx_.pop_front();
    if (!(status & RFD_STATUS_OK)) {  // badly received: reuse the buffer at the end
      add_skb_to_end(std::move(e));
      continue;
    }
    const unsigned data_sz = std::min<unsigned>(get16(h + 12) & RFD_ACT_COUNT_MASK, RFD_DATA_SIZE);
    const JourneyId j = dma_tags().take(space_, rfd + kRfdHeaderBytes);
    mark_rx_journey(kernel(), j, t_isr, misses ? t0 : SC_ZERO_TIME);
    co_await k.cost(costs_[Path::e100_rx_srv]);
    SkbPtr skb = std::move(e.skb);
    k.pci_unmap_single(*skb, data_sz, DmaDir::FromDevice);
    ++skb_req_;  // "incr number of requested skbs"
    co_await alloc_skbs();
    skb->put(data_sz);
    co_await k.load_dma_lines(skb->data_phys(), ETH_HLEN, j);  // eth_type_trans reads the header
    k.eth_type_trans(*skb, *this);
    skb->ip_summed = CHECKSUM_NONE;
    skb->journey = j;
    ++stats.rx_packets;
    stats.rx_bytes += data_sz;
    ++*c_rx_;
    const int rc = co_await k.netif_rx(std::move(skb));
    if (rc == NET_RX_DROP && opt_.rx_congestion_control) ++*c_rx_cong_;
    ++cnt;
  }
  const uint16_t s = co_await readw(reg(SCB_STATUS));  // restart the RU if it has stopped
  if ((s & SCB_RUS_MASK) != SCB_RUS_READY) co_await start_ru();
  co_return cnt;
}

// ---------------------------------------------------------------------------------------------
// interrupt handler

Task<void> Adapter::intr() {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::e100intr]);
  ++*c_intr_;
  const uint16_t status = co_await readw(reg(SCB_STATUS));
  if (!status || status == 0xFFFF) {
    ++*c_not_ours_;
    co_return;
  }
  co_await dis_intr();  // "disable intr before we ack & after identifying the intr as ours"
  co_await writew(status, reg(SCB_STATUS));  // ack
  (void)co_await readw(reg(SCB_STATUS));
  if (!up) {
    co_await set_intr_mask();
    co_return;
  }
  if (status & SCB_STATUS_ACK_SWI) co_await alloc_skbs();
  if (status & (SCB_STATUS_ACK_FR | SCB_STATUS_ACK_RNR | SCB_STATUS_ACK_SWI)) (void)co_await rx_srv();
  if (status & (SCB_STATUS_ACK_CNA | SCB_STATUS_ACK_CX)) {
    tx_count_ = 0;  // "restart tx interrupt batch count"
    co_await tx_srv();
  }
  co_await set_intr_mask();
}

// ---------------------------------------------------------------------------------------------
// watchdog (every 2 s, TIMER_BH)

Task<void> Adapter::watchdog() {
  Kernel& k = kernel();
  if (!up) co_return;  // "if (!netif_running(dev)) goto exit" (not re-armed)
  co_await k.cost(costs_[Path::e100_watchdog]);
  ++*c_watchdog_;
  const uint16_t bmsr = co_await mdi_read(1, phy_addr_);  // e100_phy_check
  if (bool(bmsr & BMSR_LSTATUS) != netif_carrier_ok()) {
    if (bmsr & BMSR_LSTATUS) netif_carrier_on();
    else netif_carrier_off();
  }
  if (netif_carrier_ok()) netif_wake_queue();
  else netif_stop_queue();
  // e100_update_stats: the last dump's completion dword.
  const uint64_t done_at = stat_cnt_phys_ + 4 * stat_dwords_;
  co_await k.load_dma_lines(stat_cnt_phys_, 4 * (stat_dwords_ + 1));
  uint8_t d[4];
  k.mem_read(done_at, d, 4);
  const uint32_t done = get32(d);
  if (done == 0xA005 || done == 0xA007) {  // DUMP_STAT_COMPLETED / DUMP_RST_STAT_COMPLETED
    uint8_t c[8];
    k.mem_read(stat_cnt_phys_, c, 4);  // xmt_gd_frames
    k.mem_read(stat_cnt_phys_ + 12, c + 4, 4);  // xmt_uruns
    const uint32_t gd = get32(c), uruns = get32(c + 4);
    const uint32_t zero = 0;
    k.mem_write(done_at, &zero, 4);
    // e100_refresh_txthld (tx_per_underrun DEFAULT_TX_PER_UNDERRUN 20000)
    if (gd) {
      if (uruns && gd / uruns < 20000) tx_thld_ += 3;
      if (gd > 20000 && --tx_thld_ < 6) tx_thld_ = 6;
    }
    if (tx_thld_ >= 190) tx_thld_ = 189;
    const bool ok = co_await wait_exec_simple(SCB_CUC_DUMP_RST_STAT);  // e100_dump_stats_cntrs
    if (ok && next_cu_ == NextCu::RESUME_NO_WAIT) next_cu_ = NextCu::RESUME_WAIT;
  }
  k.mod_timer(watchdog_timer_, k.jiffies() + 2 * k.params().hz);
  if (rx_.empty()) co_await trigger_swi();
}

}  // namespace nicsim::e100drv
