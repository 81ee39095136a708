// tg3.c of the model (tg3 0.99): probe, open/close, transmit, the non-NAPI interrupt handler,
// RX/TX service and the adaptive RX coalescing. See tg3.h for what is modelled and the sources.
#include "core/events.h"
#include "core/sim_context.h"
#include "drivers-sim/drivers/tg3/tg3.h"
#include "drivers-sim/driver_entry.h"
#include "drivers-sim/kernel/rx_journey.h"
#include "models/bus/pci.h"
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <systemc>

namespace nicsim::tg3drv {

namespace {
constexpr int kEBUSY = 16;
std::string counter(Kernel& k, const std::string& dev, const char* what) {
  return k.host() + "." + dev + ".driver." + what;
}
uint16_t get16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t get32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t(p[3]) << 24); }
void put32(uint8_t* p, uint32_t v) { for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i)); }
// struct tg3_hw_status offsets (little-endian host)
constexpr unsigned SB_STATUS = 0, SB_IDX0_RX_PRODUCER = 16, SB_IDX0_TX_CONSUMER = 18;
constexpr unsigned kStatusRead = 32;  // HOSTCC_MODE_32BYTE: the bytes the chip writes and the ISR reads
}  // namespace

Tg3::Tg3(Kernel& k, std::string name, uint64_t bar, unsigned vector, DmaTags::Space dma_space, const Coalesce& c)
    : NetDevice(k, std::move(name)), bar_(bar), costs_(k.driver_costs(kCostDriver, path_names())), space_(dma_space),
      c_(c) {
  irq = vector;
  if (c_.napi) weight = 64;  // tg3_init_one (1.0): dev->weight = 64
  auto& cs = sim().counters;
  c_intr_ = &cs.at(counter(k, this->name(), "intr"));
  c_not_ours_ = &cs.at(counter(k, this->name(), "intr_not_ours"));
  c_loops_ = &cs.at(counter(k, this->name(), "isr_loops"));
  c_rx_ = &cs.at(counter(k, this->name(), "rx_frames"));
  c_copy_ = &cs.at(counter(k, this->name(), "rx_copybreak"));
  c_tx_cleaned_ = &cs.at(counter(k, this->name(), "tx_cleaned"));
  c_tx_busy_ = &cs.at(counter(k, this->name(), "tx_busy"));
  c_band_ = &cs.at(counter(k, this->name(), "coal_band_changes"));
  timer_.function = [this]() { return timer(); };
  netif_carrier_off();  // tg3_init_one: netif_carrier_off until tg3_setup_phy finds link
}

Tg3::~Tg3() = default;

Task<void> Tg3::tw32(uint32_t off, uint32_t v) { co_await writel(v, reg(off)); }
Task<void> Tg3::write_sram(uint32_t a, uint32_t v) { co_await writel(v, reg(NIC_SRAM_WIN_BASE + a)); }

Task<void> Tg3::udelay(double us) {
  // udelay: a calibrated busy loop on the running CPU.
  const CostEntry e{us * kernel().params().cpu_mhz, 0, false, "udelay: busy loop of the given length"};
  co_await kernel().cost(e);
}

Task<uint32_t> Tg3::mi_frame(uint32_t frame) {
  // tg3_readphy / tg3_writephy: the MI_COM frame, flushed (tw32_f), then poll BUSY every 10 µs
  // (PHY_BUSY_LOOPS 5000) and read it again 5 µs after it clears; all ones when it never does.
  co_await tw32(MAC_MI_COM, frame | MI_COM_START);
  (void)co_await readl(reg(MAC_MI_COM));
  for (int loops = 5000; loops > 0; --loops) {
    co_await udelay(10);
    if (!(co_await readl(reg(MAC_MI_COM)) & MI_COM_BUSY)) {
      co_await udelay(5);
      co_return (co_await readl(reg(MAC_MI_COM))) & 0xffff;
    }
  }
  co_return 0xffffffffu;
}

Task<uint32_t> Tg3::readphy(unsigned r) {
  co_return co_await mi_frame((PHY_ADDR << MI_COM_PHY_ADDR_SHIFT) | (r << MI_COM_REG_ADDR_SHIFT) | MI_COM_CMD_READ);
}

Task<void> Tg3::writephy(unsigned r, uint16_t v) {
  (void)co_await mi_frame((PHY_ADDR << MI_COM_PHY_ADDR_SHIFT) | (r << MI_COM_REG_ADDR_SHIFT) | v | MI_COM_CMD_WRITE);
}

uint32_t resolve_flow_control(uint32_t local_adv, uint32_t remote_adv) {
  // tg3 1.0 tg3_setup_flow_control's decision table.
  uint32_t f = 0;
  if (local_adv & ADVERTISE_PAUSE_CAP) {
    if (local_adv & ADVERTISE_PAUSE_ASYM) {
      if (remote_adv & LPA_PAUSE_CAP) f = TG3_FLAG_RX_PAUSE | TG3_FLAG_TX_PAUSE;
      else if (remote_adv & LPA_PAUSE_ASYM) f = TG3_FLAG_RX_PAUSE;
    } else if (remote_adv & LPA_PAUSE_CAP) {
      f = TG3_FLAG_RX_PAUSE | TG3_FLAG_TX_PAUSE;
    }
  } else if (local_adv & ADVERTISE_PAUSE_ASYM) {
    if ((remote_adv & LPA_PAUSE_CAP) && (remote_adv & LPA_PAUSE_ASYM)) f = TG3_FLAG_TX_PAUSE;
  }
  return f;
}

uint32_t Tg3::sb_status() const {
  uint8_t b[4];
  kernel().mem_read(status_ + SB_STATUS, b, 4);
  return get32(b);
}
uint16_t Tg3::sb16(unsigned off) const {
  uint8_t b[2];
  kernel().mem_read(status_ + off, b, 2);
  return get16(b);
}

unsigned Tg3::tx_buffs_avail() const {
  // TX_BUFFS_AVAIL (tg3.c): the ring keeps TX_RING_GAP = TG3_TX_RING_SIZE - tx_pending slots free.
  const unsigned gap = TG3_TX_RING_SIZE - tx_pending_;
  return tx_cons_ <= tx_prod_ ? tx_cons_ + tx_pending_ - tx_prod_ : tx_cons_ - tx_prod_ - gap;
}

// ---------------------------------------------------------------------------------------------
// probe

Task<void> Tg3::probe_hw() {
  Kernel& k = kernel();
  misc_host_ctrl_ = MISC_HOST_CTRL_WORD_SWAP | MISC_HOST_CTRL_PCISTATE_RW | MISC_HOST_CTRL_CLKREG_RW |
                    MISC_HOST_CTRL_INDIR_ACCESS;  // tg3_get_invariants: no byte swap on little-endian
  const uint32_t misc = co_await readl(reg(TG3PCI_MISC_HOST_CTRL));
  chip_rev_id_ = misc >> MISC_HOST_CTRL_CHIPREV_SHIFT;
  co_await tw32(TG3PCI_MISC_HOST_CTRL, misc_host_ctrl_ | MISC_HOST_CTRL_MASK_PCI_INT);
  const uint32_t pcistate = co_await readl(reg(TG3PCI_PCISTATE));
  const bool pcix = !(pcistate & PCISTATE_CONV_PCI_MODE);
  const bool is_5701 = (chip_rev_id_ >> 12) == 0x0;  // GET_ASIC_REV == ASIC_REV_5701
  rx_offset_ = (is_5701 && pcix) ? 0 : 2;             // research §4.3: "rx_offset = 0 on a 5701 in PCI-X mode"
  rx_pkt_buf_sz_ = 1536 + rx_offset_ + 64;            // RX_PKT_BUF_SZ
  const uint32_t hi = co_await readl(reg(MAC_ADDR_0_HIGH)), lo = co_await readl(reg(MAC_ADDR_0_LOW));
  dev_addr = {uint8_t(hi >> 8), uint8_t(hi), uint8_t(lo >> 24), uint8_t(lo >> 16), uint8_t(lo >> 8), uint8_t(lo)};
  // estimate: tg3_init_one declares SG | IP_CSUM unless TG3_FLAG_BROKEN_CHECKSUMS (0.96 tg3.h has the flag)
  features = NETIF_F_SG | NETIF_F_IP_CSUM;
  probed_ = true;
  co_await k.wake_up(probe_wq_);
}

namespace {
Task<void> probe_port(Tg3* t) { co_await t->probe_hw(); }
}  // namespace

std::vector<std::shared_ptr<NetDevice>> probe(Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors,
                                              const ProbeTarget& nic, const ParamValues& params, bool napi) {
  if (dev.info().name != "BCM5701")
    throw std::invalid_argument(std::string(kDriverName) + ": unsupported device '" + dev.info().name + "'");
  auto* obj = dynamic_cast<sc_core::sc_object*>(&dev);
  if (!obj) throw std::invalid_argument(std::string(kDriverName) + ": device is not a SystemC object");
  if (vectors.empty()) throw std::invalid_argument(std::string(kDriverName) + ": no interrupt vector");
  if (napi && !k.params().napi)
    throw std::invalid_argument(std::string(kDriverName10) + " is a NAPI driver (netif_rx_schedule, dev->poll): host " +
                                k.host() + "'s kernel profile " + k.params().kernel_profile +
                                " has no NAPI; pick a kernel profile with napi = true");
  Coalesce c = coalesce_from(params, napi ? coalesce_1_0() : Coalesce{});
  c.napi = napi;
  auto t = std::make_shared<Tg3>(k, nic.ifname, dev.bar(0), vectors[0], DmaTags::space_of(obj->name()), c);
  // tg3_get_invariants: pdev->subsystem_vendor, which the PCI core read from the configuration
  // header at enumeration, before the driver loads (the device model publishes it as the SystemC
  // attribute PCI_SUBSYSTEM_VENDOR_ID: no simulated time). A Dell board's copper PHY is polled by
  // tg3_timer: "force the link status polling mechanism based upon subsystem IDs".
  if (auto* a = dynamic_cast<const sc_core::sc_attribute<uint32_t>*>(obj->get_attribute("PCI_SUBSYSTEM_VENDOR_ID"));
      a && (a->value & 0xffff) == PCI_VENDOR_ID_DELL)
    t->set_link_flags(TG3_FLAG_USE_MI_INTERRUPT | TG3_FLAG_USE_LINKCHG_REG);
  k.register_netdev(*t);
  k.spawn_process("insmod tg3 " + nic.ifname, probe_port(t.get()));
  return {t};
}

// ---------------------------------------------------------------------------------------------
// rings

void Tg3::set_std_bd_addr(unsigned i, uint64_t a) {
  uint8_t d[8];
  put32(d, uint32_t(a >> 32));  // addr_hi
  put32(d + 4, uint32_t(a));    // addr_lo
  kernel().mem_write(rx_std_ + uint64_t(i) * RXD_SIZE, d, 8);
}

Task<void> Tg3::alloc_rx_skb(unsigned dest) {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::tg3_alloc_rx_skb]);
  SkbPtr skb = co_await k.dev_alloc_skb(rx_pkt_buf_sz_);
  skb->dev = this;
  skb->reserve(rx_offset_);
  const uint64_t m = k.pci_map_single(*skb, DmaDir::FromDevice);
  set_std_bd_addr(dest, m);
  rx_std_buffers_[dest] = RingInfo{std::move(skb), m};
}

void Tg3::recycle_rx(unsigned src, unsigned dest) {
  // tg3_recycle_rx: the buffer moves from the slot it came in to the producer slot.
  if (src == dest) {
    set_std_bd_addr(dest, rx_std_buffers_[dest].mapping);
    return;
  }
  rx_std_buffers_[dest] = std::move(rx_std_buffers_[src]);
  set_std_bd_addr(dest, rx_std_buffers_[dest].mapping);
}

// ---------------------------------------------------------------------------------------------
// open / close

Task<void> Tg3::enable_ints() {
  co_await tw32(TG3PCI_MISC_HOST_CTRL, misc_host_ctrl_ & ~MISC_HOST_CTRL_MASK_PCI_INT);
  co_await tw32(MAILBOX_INTERRUPT_0 + TG3_64BIT_REG_LOW, 0);
  (void)co_await readl(reg(MAILBOX_INTERRUPT_0 + TG3_64BIT_REG_LOW));
  if (sb_status() & SD_STATUS_UPDATED) co_await tw32(GRC_LOCAL_CTRL, GRC_LCLCTRL_SETINT);  // tg3_cond_int
}

Task<int> Tg3::set_mac_address(std::array<uint8_t, 6> addr) {
  // Without this wait the probe process would overwrite an address bonding set before it ran.
  while (!probed_) co_await probe_wq_.wait();
  co_return co_await NetDevice::set_mac_address(addr);
}

Task<int> Tg3::open() {
  while (!probed_) co_await probe_wq_.wait();
  Kernel& k = kernel();
  // tg3_alloc_consistent
  rx_std_ = k.dma_alloc(TG3_RX_RING_SIZE * RXD_SIZE, 64);
  rx_rcb_ = k.dma_alloc(TG3_RX_RCB_RING_SIZE * RXD_SIZE, 64);
  status_ = k.dma_alloc(TG3_HW_STATUS_SIZE, 64);
  stats_ = k.dma_alloc(TG3_HW_STATS_SIZE, 64);
  {
    std::vector<uint8_t> z(TG3_RX_RCB_RING_SIZE * RXD_SIZE, 0);
    k.mem_write(rx_rcb_, z.data(), z.size());
    k.mem_write(status_, z.data(), TG3_HW_STATUS_SIZE);
    k.mem_write(stats_, z.data(), TG3_HW_STATS_SIZE);
  }
  // tg3_init_rings: std BDs (length, END, opaque), rx_pending skbs
  {
    std::vector<uint8_t> ring(TG3_RX_RING_SIZE * RXD_SIZE, 0);
    for (unsigned i = 0; i < TG3_RX_RING_SIZE; ++i) {
      uint8_t* d = ring.data() + i * RXD_SIZE;
      put32(d + 8, rx_pkt_buf_sz_ - rx_offset_ - 64);  // idx_len (RXD_LEN_SHIFT 0)
      put32(d + 12, RXD_FLAG_END);                      // type_flags
      put32(d + 28, RXD_OPAQUE_RING_STD | i);           // opaque
    }
    k.mem_write(rx_std_, ring.data(), ring.size());
  }
  rx_std_buffers_.clear();
  rx_std_buffers_.resize(TG3_RX_RING_SIZE);
  for (unsigned i = 0; i < TG3_DEF_RX_RING_PENDING; ++i) co_await alloc_rx_skb(i);
  rx_std_ptr_ = TG3_DEF_RX_RING_PENDING;
  rx_rcb_ptr_ = 0;
  tx_buffers_.clear();
  tx_buffers_.resize(TG3_TX_RING_SIZE);
  tx_prod_ = tx_cons_ = 0;
  for (unsigned i = 0; i < TG3_TX_RING_SIZE; ++i)  // "writel(0, ...)" of every SRAM send BD word
    for (unsigned w = 0; w < TXD_SIZE; w += 4) co_await write_sram(NIC_SRAM_TX_BUFFER_DESC + i * TXD_SIZE + w, 0);

  // tg3_reset_hw (the part the model acts on)
  co_await tw32(TG3PCI_MISC_HOST_CTRL, misc_host_ctrl_ | MISC_HOST_CTRL_MASK_PCI_INT);
  // PCI-X mode on a 5701: write command 7, read command 6, watermarks 3, minimum DMA 0x0f, MRM.
  co_await tw32(TG3PCI_DMA_RW_CTRL, (0x7u << DMA_RWCTRL_PCI_WRITE_CMD_SHIFT) | (0x6u << DMA_RWCTRL_PCI_READ_CMD_SHIFT) |
                                         (0x3u << DMA_RWCTRL_WRITE_WATER_SHIFT) | (0x3u << DMA_RWCTRL_READ_WATER_SHIFT) |
                                         (0x0fu << DMA_RWCTRL_MIN_DMA_SHIFT) | DMA_RWCTRL_USE_MEM_READ_MULT);
  co_await tw32(MAC_ADDR_0_HIGH, uint32_t(dev_addr[0]) << 8 | dev_addr[1]);
  co_await tw32(MAC_ADDR_0_LOW, uint32_t(dev_addr[2]) << 24 | uint32_t(dev_addr[3]) << 16 |
                                     uint32_t(dev_addr[4]) << 8 | dev_addr[5]);
  // Send RCB 0: BDs in NIC SRAM (host address 0, NIC address NIC_SRAM_TX_BUFFER_DESC).
  co_await write_sram(NIC_SRAM_SEND_RCB + TG3_BDINFO_HOST_ADDR, 0);
  co_await write_sram(NIC_SRAM_SEND_RCB + TG3_BDINFO_HOST_ADDR + 4, 0);
  co_await write_sram(NIC_SRAM_SEND_RCB + TG3_BDINFO_MAXLEN_FLAGS, TG3_TX_RING_SIZE << BDINFO_FLAGS_MAXLEN_SHIFT);
  co_await write_sram(NIC_SRAM_SEND_RCB + TG3_BDINFO_NIC_ADDR, NIC_SRAM_TX_BUFFER_DESC);
  co_await tw32(MAILBOX_SNDNIC_PROD_IDX_0 + TG3_64BIT_REG_LOW, 0);
  // Return ring RCB 0 in host memory.
  co_await write_sram(NIC_SRAM_RCV_RET_RCB + TG3_BDINFO_HOST_ADDR, uint32_t(rx_rcb_ >> 32));
  co_await write_sram(NIC_SRAM_RCV_RET_RCB + TG3_BDINFO_HOST_ADDR + 4, uint32_t(rx_rcb_));
  co_await write_sram(NIC_SRAM_RCV_RET_RCB + TG3_BDINFO_MAXLEN_FLAGS, TG3_RX_RCB_RING_SIZE << BDINFO_FLAGS_MAXLEN_SHIFT);
  co_await write_sram(NIC_SRAM_RCV_RET_RCB + TG3_BDINFO_NIC_ADDR, 0);
  co_await tw32(MAILBOX_RCVRET_CON_IDX_0 + TG3_64BIT_REG_LOW, 0);
  // Standard producer ring.
  co_await tw32(RCVDBDI_STD_BD + TG3_BDINFO_HOST_ADDR, uint32_t(rx_std_ >> 32));
  co_await tw32(RCVDBDI_STD_BD + TG3_BDINFO_HOST_ADDR + 4, uint32_t(rx_std_));
  co_await tw32(RCVDBDI_STD_BD + TG3_BDINFO_MAXLEN_FLAGS, RX_STD_MAX_SIZE << BDINFO_FLAGS_MAXLEN_SHIFT);
  co_await tw32(RCVDBDI_STD_BD + TG3_BDINFO_NIC_ADDR, NIC_SRAM_RX_BUFFER_DESC);
  co_await tw32(MAILBOX_RCV_STD_PROD_IDX + TG3_64BIT_REG_LOW, rx_std_ptr_ % TG3_RX_RING_SIZE);
  co_await tw32(MAC_RX_MTU_SIZE, mtu + 14 + 4 + 4);  // ETH_HLEN + FCS + VLAN tag
  // "Setup host coalescing engine."
  co_await tw32(HOSTCC_MODE, 0);
  co_await tw32(HOSTCC_RXCOL_TICKS, c_.rx_usecs);
  co_await tw32(HOSTCC_TXCOL_TICKS, c_.tx_usecs);
  co_await tw32(HOSTCC_RXMAX_FRAMES, c_.rx_frames);
  co_await tw32(HOSTCC_TXMAX_FRAMES, c_.tx_frames);
  co_await tw32(HOSTCC_RXCOAL_TICK_INT, c_.rx_usecs_irq);
  co_await tw32(HOSTCC_TXCOAL_TICK_INT, c_.tx_usecs_irq);
  co_await tw32(HOSTCC_RXCOAL_MAXF_INT, c_.rx_frames_irq);
  co_await tw32(HOSTCC_TXCOAL_MAXF_INT, c_.tx_frames_irq);
  co_await tw32(HOSTCC_STAT_COAL_TICKS, c_.stats_block_usecs);
  co_await tw32(HOSTCC_STATS_BLK_HOST_ADDR, uint32_t(stats_ >> 32));
  co_await tw32(HOSTCC_STATS_BLK_HOST_ADDR + 4, uint32_t(stats_));
  co_await tw32(HOSTCC_STATUS_BLK_HOST_ADDR, uint32_t(status_ >> 32));
  co_await tw32(HOSTCC_STATUS_BLK_HOST_ADDR + 4, uint32_t(status_));
  // 0.99 on a non-5700 part: tagged status with CLRTICK (research §1.2); 1.0 drops both.
  co_await tw32(HOSTCC_MODE, HOSTCC_MODE_ENABLE | HOSTCC_MODE_32BYTE |
                                 (c_.napi ? 0u : HOSTCC_MODE_CLRTICK_RXBD | HOSTCC_MODE_CLRTICK_TXBD));
  co_await tw32(MAC_TX_MODE, TX_MODE_ENABLE);
  co_await tw32(MAC_RX_MODE, RX_MODE_ENABLE);
  // tg3_setup_copper_phy at open, as far as the model performs it here: BMSR twice (latched link
  // bit) and the speed. Not performed yet (see the header, "Known gap"): its MAC_STATUS write,
  // MII_TG3_ISTAT reads, MII_TG3_IMASK and MAC_EVENT writes, the MII_ADVERTISE / MII_LPA reads,
  // tg3_phy_copper_begin and tg3_setup_flow_control. The timer and the interrupt run the fuller
  // setup_copper_phy().
  (void)co_await readphy(MII_BMSR);
  const uint32_t bmsr = co_await readphy(MII_BMSR);
  (void)co_await readphy(MII_TG3_AUX_STAT);
  if (bmsr != 0xffffffffu && (bmsr & BMSR_LSTATUS)) netif_carrier_on();
  else netif_carrier_off();
  band_ = 1;
  last_rate_sample_ = k.jiffies();
  if (k.request_irq(irq, [this](unsigned) { return interrupt(); }, SA_SHIRQ, name()) != 0) co_return -kEBUSY;
  irq_requested_ = true;
  co_await enable_ints();
  netif_start_queue();
  // tg3_open: the timer's first run; its link part runs once a second (see the header).
  k.mod_timer(timer_, k.jiffies() + k.params().hz);
  co_return 0;
}

Task<void> Tg3::setup_copper_phy() {
  // tg3_setup_copper_phy as far as the model acts on it (the header lists what it leaves out).
  co_await tw32(MAC_STATUS, MAC_STATUS_SYNC_CHANGED | MAC_STATUS_CFG_CHANGED);
  (void)co_await readphy(MII_TG3_ISTAT);  // "Clear pending interrupts..."
  (void)co_await readphy(MII_TG3_ISTAT);
  co_await writephy(MII_TG3_IMASK,
                    (link_flags_ & TG3_FLAG_USE_MI_INTERRUPT) ? uint16_t(~MII_TG3_INT_LINKCHG) : uint16_t(0xffff));
  (void)co_await readphy(MII_BMSR);  // the link bit is latched low: the second read is the live one
  const uint32_t bmsr = co_await readphy(MII_BMSR);
  const bool link = bmsr != 0xffffffffu && (bmsr & BMSR_LSTATUS);
  if (link) (void)co_await readphy(MII_TG3_AUX_STAT);  // the resolved speed and duplex
  // "Polled via timer." (USE_LINKCHG_REG), else the chip's link-change attention.
  co_await tw32(MAC_EVENT, (link_flags_ & TG3_FLAG_USE_LINKCHG_REG) ? 0u : MAC_EVENT_LNKSTATE_CHANGED);
  if (link != netif_carrier_ok()) {
    if (link) netif_carrier_on();
    else netif_carrier_off();
    // tg3_link_report
    run_events().note(now(), kernel().host() + "." + name(), link ? "carrier on" : "carrier off",
                      link ? name() + ": Link is up at 1000 Mbps, full duplex." : name() + ": Link is down.");
  }
}

Task<void> Tg3::timer() {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::tg3_timer]);
  // "This part only runs once per second."
  if (link_flags_ & TG3_FLAG_USE_LINKCHG_REG) {
    const uint32_t mac_stat = co_await readl(reg(MAC_STATUS));
    const bool phy_event = (link_flags_ & TG3_FLAG_USE_MI_INTERRUPT) ? (mac_stat & MAC_STATUS_MI_INTERRUPT) != 0
                                                                     : (mac_stat & MAC_STATUS_LNKSTATE_CHANGED) != 0;
    if (phy_event) co_await setup_copper_phy();
  }
  k.mod_timer(timer_, k.jiffies() + k.params().hz);
}

Task<int> Tg3::stop() {
  Kernel& k = kernel();
  k.del_timer(timer_);
  netif_stop_queue();
  co_await tw32(TG3PCI_MISC_HOST_CTRL, misc_host_ctrl_ | MISC_HOST_CTRL_MASK_PCI_INT);  // tg3_disable_ints
  co_await tw32(MAILBOX_INTERRUPT_0 + TG3_64BIT_REG_LOW, 1);
  co_await tw32(MAC_RX_MODE, 0);
  co_await tw32(MAC_TX_MODE, 0);
  co_await tw32(HOSTCC_MODE, 0);
  // tg3_halt -> tg3_chip_reset: the core-clock reset, so the next open starts from a clean chip
  // (rings, indices and the chip's BD copies); without it a reopen (ifenslave's SIOCSIFHWADDR
  // round trip) left the chip filling the old ring's buffers.
  co_await tw32(GRC_MISC_CFG, GRC_MISC_CFG_CORECLK_RESET);
  co_await udelay(120);  // estimate: tg3_chip_reset's udelay(40) x3 after the reset (later tg3.c; 0.99 not found)
  if (irq_requested_) k.free_irq(irq, name());
  irq_requested_ = false;
  for (auto& r : tx_buffers_)
    if (r.mapping) dma_tags().tag(space_, r.mapping, 0);
  for (auto& r : rx_std_buffers_)
    if (r.mapping) dma_tags().tag(space_, r.mapping, 0);
  tx_buffers_.clear();
  rx_std_buffers_.clear();
  co_return 0;
}

// ---------------------------------------------------------------------------------------------
// transmit

Task<int> Tg3::hard_start_xmit(SkbPtr& skb) {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::tg3_start_xmit]);
  if (tx_buffs_avail() <= MAX_SKB_FRAGS + 1) {  // "BUG! Tx Ring full when queue awake!"
    netif_stop_queue();
    ++*c_tx_busy_;
    co_return 1;
  }
  const unsigned entry = tx_prod_;
  const uint32_t len = skb->len;
  const uint32_t flags = TXD_FLAG_END | (skb->ip_summed == CHECKSUM_HW ? TXD_FLAG_TCPUDP_CSUM : 0);
  const uint64_t mapping = k.pci_map_single(*skb, DmaDir::ToDevice);
  const JourneyId j = skb->journey;
  dma_tags().tag(space_, mapping, j);
  stats.tx_bytes += len;
  tx_buffers_[entry] = RingInfo{std::move(skb), mapping};
  // tg3_set_txd: the BD goes into NIC SRAM with four posted writes.
  const uint32_t bd = NIC_SRAM_TX_BUFFER_DESC + entry * TXD_SIZE;
  co_await write_sram(bd + 0, uint32_t(mapping >> 32));
  co_await write_sram(bd + 4, uint32_t(mapping));
  co_await write_sram(bd + 8, len << TXD_LEN_SHIFT | flags);
  co_await write_sram(bd + 12, 0);
  tx_prod_ = (entry + 1) & (TG3_TX_RING_SIZE - 1);
  k.mark(j, "doorbell");
  co_await tw32(MAILBOX_SNDNIC_PROD_IDX_0 + TG3_64BIT_REG_LOW, tx_prod_);
  if (tx_buffs_avail() <= MAX_SKB_FRAGS + 1) netif_stop_queue();
  if (Cpu* cpu = Cpu::running_cpu_or_null(); cpu && cpu->running() && cpu->running()->journey == j) {
    cpu->running()->journey = 0;
    cpu->running()->stage.clear();
  }
  co_return 0;
}

Task<void> Tg3::tx() {
  Kernel& k = kernel();
  const unsigned hw = sb16(SB_IDX0_TX_CONSUMER) & (TG3_TX_RING_SIZE - 1);
  unsigned sw = tx_cons_;
  while (sw != hw) {
    RingInfo& ri = tx_buffers_[sw];
    if (ri.skb) {
      co_await k.cost(costs_[Path::tg3_tx]);
      dma_tags().tag(space_, ri.mapping, 0);
      ++stats.tx_packets;
      ++*c_tx_cleaned_;
      k.dev_kfree_skb_irq(std::move(ri.skb));
      ri.mapping = 0;
    }
    sw = (sw + 1) & (TG3_TX_RING_SIZE - 1);
  }
  tx_cons_ = sw;
  if (netif_queue_stopped() && tx_buffs_avail() > MAX_SKB_FRAGS + 1) netif_wake_queue();
}

// ---------------------------------------------------------------------------------------------
// receive

bool Tg3::has_work() const {
  return sb16(SB_IDX0_RX_PRODUCER) % TG3_RX_RCB_RING_SIZE != rx_rcb_ptr_ ||
         (sb16(SB_IDX0_TX_CONSUMER) & (TG3_TX_RING_SIZE - 1)) != tx_cons_;
}

Task<int> Tg3::rx(int limit) {
  Kernel& k = kernel();
  const sc_time t_isr = now();
  const unsigned hw = sb16(SB_IDX0_RX_PRODUCER) % TG3_RX_RCB_RING_SIZE;
  unsigned sw = rx_rcb_ptr_;
  int received = 0;
  while (sw != hw && (limit < 0 || received < limit)) {
    const uint64_t d = rx_rcb_ + uint64_t(sw) * RXD_SIZE;
    const sc_time t0 = now();
    const unsigned misses = co_await k.load_dma_lines(d, RXD_SIZE, 0, "RX return BD");
    uint8_t desc[RXD_SIZE];
    k.mem_read(d, desc, RXD_SIZE);
    sw = (sw + 1) % TG3_RX_RCB_RING_SIZE;
    const uint32_t opaque = get32(desc + 28);
    const unsigned idx = (opaque & RXD_OPAQUE_INDEX_MASK) % TG3_RX_RING_SIZE;
    const unsigned dest = rx_std_ptr_ % TG3_RX_RING_SIZE;
    co_await k.cost(costs_[Path::tg3_rx]);
    RingInfo& ri = rx_std_buffers_[idx];
    const JourneyId j = ri.mapping ? dma_tags().take(space_, ri.mapping) : 0;
    mark_rx_journey(k, j, t_isr, misses ? t0 : SC_ZERO_TIME);
    const unsigned full = get32(desc + 8) & RXD_LEN_MASK;
    if (!ri.skb || full < 4 + ETH_HLEN) {  // nothing to deliver: give the buffer back
      if (ri.skb) recycle_rx(idx, dest);
      ++rx_std_ptr_;
      continue;
    }
    const uint32_t len = full - 4;  // "omit crc"
    SkbPtr skb;
    if (len > RX_COPY_THRESHOLD) {
      skb = std::move(ri.skb);
      ri.mapping = 0;
      co_await alloc_rx_skb(dest);  // a new buffer takes the producer slot
      k.pci_unmap_single(*skb, len, DmaDir::FromDevice);
      skb->put(len);
    } else {
      ++*c_copy_;
      skb = co_await k.dev_alloc_skb(len + 2);
      skb->dev = this;
      skb->reserve(2);
      co_await k.load_dma_lines(ri.mapping, len, j, "RX frame (copybreak)");
      co_await k.cost(costs_[Path::tg3_rx_copy], len);
      k.mem_read(ri.mapping, skb->put(len), len);
      co_await k.cost(costs_[Path::tg3_alloc_rx_skb]);
      recycle_rx(idx, dest);
    }
    ++rx_std_ptr_;
    co_await k.load_dma_lines(skb->data_phys(), ETH_HLEN, j);  // eth_type_trans reads the header
    const uint32_t tf = get32(desc + 12), csum = get32(desc + 16) & 0xffff;
    skb->ip_summed = ((tf & RXD_FLAG_TCPUDP_CSUM) && csum == 0xffff) ? CHECKSUM_UNNECESSARY : CHECKSUM_NONE;
    k.eth_type_trans(*skb, *this);
    skb->journey = j;
    ++stats.rx_packets;
    stats.rx_bytes += len;
    ++*c_rx_;
    ++received;
    if (c_.napi) (void)co_await k.netif_receive_skb(std::move(skb));
    else (void)co_await k.netif_rx(std::move(skb));
  }
  rx_rcb_ptr_ = sw;
  co_await tw32(MAILBOX_RCVRET_CON_IDX_0 + TG3_64BIT_REG_LOW, sw);
  co_await tw32(MAILBOX_RCV_STD_PROD_IDX + TG3_64BIT_REG_LOW, rx_std_ptr_ % TG3_RX_RING_SIZE);
  co_return received;
}

// ---------------------------------------------------------------------------------------------
// adaptive coalescing (tg3_rate_sample)

Task<void> Tg3::write_rx_band(int band) {
  const unsigned ticks = band == 0 ? c_.rx_usecs_low : band == 2 ? c_.rx_usecs_high : c_.rx_usecs;
  const unsigned frames = band == 0 ? c_.rx_frames_low : band == 2 ? c_.rx_frames_high : c_.rx_frames;
  co_await tw32(HOSTCC_RXCOL_TICKS, ticks);
  co_await tw32(HOSTCC_RXMAX_FRAMES, frames);
  if (c_.adaptive_tx) {
    co_await tw32(HOSTCC_TXCOL_TICKS, band == 0 ? c_.tx_usecs_low : band == 2 ? c_.tx_usecs_high : c_.tx_usecs);
    co_await tw32(HOSTCC_TXMAX_FRAMES, band == 0 ? c_.tx_frames_low : band == 2 ? c_.tx_frames_high : c_.tx_frames);
  }
}

Task<void> Tg3::rate_sample() {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::tg3_rate_sample]);
  const uint64_t ticks = k.jiffies() - last_rate_sample_;
  last_rate_sample_ = k.jiffies();
  co_await k.load_dma_lines(stats_ + STATS_RX_UCAST_PACKETS, 8);
  co_await k.load_dma_lines(stats_ + STATS_TX_UCAST_PACKETS, 8);
  uint8_t b[4];
  k.mem_read(stats_ + STATS_RX_UCAST_PACKETS + 4, b, 4);  // tg3_stat64_t .low
  const uint32_t rx_now = get32(b);
  k.mem_read(stats_ + STATS_TX_UCAST_PACKETS + 4, b, 4);
  const uint32_t tx_now = get32(b);
  const uint64_t delta = uint64_t(rx_now - last_rx_count_) + uint64_t(tx_now - last_tx_count_);
  last_rx_count_ = rx_now;
  last_tx_count_ = tx_now;
  const double secs = double(ticks) / double(k.params().hz);
  const double rate = secs > 0 ? double(delta) / secs : 0.0;
  const int band = rate < c_.pkt_rate_low ? 0 : rate > c_.pkt_rate_high ? 2 : 1;
  if (band != band_) {
    band_ = band;
    ++*c_band_;
    co_await write_rx_band(band);
  }
}

// ---------------------------------------------------------------------------------------------
// interrupt handler (0.99: no NAPI; RX and TX work in hard-IRQ context)

Task<void> Tg3::interrupt() {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::tg3_interrupt]);
  ++*c_intr_;
  co_await k.load_dma_lines(status_, kStatusRead, 0, "status block");
  if (!(sb_status() & SD_STATUS_UPDATED)) {  // shared line, not ours
    ++*c_not_ours_;
    co_return;
  }
  co_await tw32(MAILBOX_INTERRUPT_0 + TG3_64BIT_REG_LOW, 1);
  if (c_.napi) {
    // 1.0 (research §1.2, RH tg3.c ~1907-2006): clear Updated, mask INTA, schedule the poll.
    uint8_t w[4];
    put32(w, sb_status() & ~SD_STATUS_UPDATED);
    k.mem_write(status_ + SB_STATUS, w, 4);
    co_await tw32(TG3PCI_MISC_HOST_CTRL, misc_host_ctrl_ | MISC_HOST_CTRL_MASK_PCI_INT);
    if (up) k.netif_rx_schedule(*this);
    co_await tw32(MAILBOX_INTERRUPT_0 + TG3_64BIT_REG_LOW, 0);
    (void)co_await readl(reg(MAILBOX_INTERRUPT_0 + TG3_64BIT_REG_LOW));
    co_return;
  }
  do {
    ++*c_loops_;
    uint8_t w[4];
    put32(w, sb_status() & ~SD_STATUS_UPDATED);
    k.mem_write(status_ + SB_STATUS, w, 4);
    if (!up) break;
    // tg3_interrupt_main_work: a link change the chip flagged (boards not polled by the timer).
    // (It writes SD_STATUS_UPDATED back with the bit cleared; under the tagged handler 0.99 runs on
    // a 5701 that costs no extra pass, so the model clears the bit only.)
    if (!(link_flags_ & TG3_FLAG_USE_LINKCHG_REG) && (sb_status() & SD_STATUS_LINK_CHG)) {
      put32(w, sb_status() & ~SD_STATUS_LINK_CHG);
      k.mem_write(status_ + SB_STATUS, w, 4);
      co_await setup_copper_phy();
    }
    if (sb16(SB_IDX0_RX_PRODUCER) != rx_rcb_ptr_) (void)co_await rx(-1);
    if ((sb16(SB_IDX0_TX_CONSUMER) & (TG3_TX_RING_SIZE - 1)) != tx_cons_) co_await tx();
    co_await k.load_dma_lines(status_, kStatusRead, 0, "status block");
  } while (sb_status() & SD_STATUS_UPDATED);
  if ((c_.adaptive_rx || c_.adaptive_tx) && k.jiffies() - last_rate_sample_ >= k.params().hz) co_await rate_sample();
  co_await tw32(MAILBOX_INTERRUPT_0 + TG3_64BIT_REG_LOW, 0);
  (void)co_await readl(reg(MAILBOX_INTERRUPT_0 + TG3_64BIT_REG_LOW));
}

// ---------------------------------------------------------------------------------------------
// tg3_poll (1.0, NAPI)

Task<bool> Tg3::poll(int& budget) {
  Kernel& k = kernel();
  co_await k.load_dma_lines(status_, kStatusRead, 0, "status block");
  uint8_t w[4];
  put32(w, sb_status() & ~SD_STATUS_UPDATED);
  k.mem_write(status_ + SB_STATUS, w, 4);
  if (!(link_flags_ & TG3_FLAG_USE_LINKCHG_REG) && (sb_status() & SD_STATUS_LINK_CHG)) {  // tg3_poll: link change first
    put32(w, sb_status() & ~SD_STATUS_LINK_CHG);
    k.mem_write(status_ + SB_STATUS, w, 4);
    co_await setup_copper_phy();
  }
  if ((sb16(SB_IDX0_TX_CONSUMER) & (TG3_TX_RING_SIZE - 1)) != tx_cons_) co_await tx();
  const int n = co_await rx(std::min(budget, quota));
  budget -= n;
  quota -= n;
  if (has_work()) co_return true;
  k.netif_rx_complete(*this);
  co_await enable_ints();
  co_return false;
}

}  // namespace nicsim::tg3drv
