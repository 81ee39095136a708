// eepro100.c of the model: probe, open/close, speedo_resume, set_rx_mode, transmit, the interrupt
// handler, receive and refill, TX reclaim and the media timer (see eepro100.h for what is modelled
// and the sources).
#include "drivers-sim/drivers/eepro100/eepro100.h"
#include "drivers-sim/kernel/irqflags.h"
#include "drivers-sim/kernel/rx_journey.h"
#include "core/sim_context.h"
#include "models/bus/pci.h"
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <systemc>

namespace nicsim::eepro100drv {

namespace {
std::string counter(Kernel& k, const std::string& dev, const char* what) {
  return k.host() + "." + dev + ".driver." + what;
}
/// udelay(n): a busy loop of n µs on the running CPU (IRQs as they are).
CpuBurn udelay(double n) { return CpuBurn{us(n)}; }
void st32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
uint32_t ld32(const uint8_t* p) { return p[0] | (p[1] << 8) | (p[2] << 16) | (uint32_t(p[3]) << 24); }
}  // namespace

Speedo::Speedo(Kernel& k, std::string name, uint64_t mem_bar, uint64_t io_bar, unsigned vector,
               DmaTags::Space dma_space, const Options& opt)
    : NetDevice(k, std::move(name)), mem_bar_(mem_bar), io_bar_(io_bar), space_(dma_space), opt_(opt),
      costs_(k.driver_costs(kCostDriver, path_names())), isr_reads_(size_t(std::max(opt.max_interrupt_work, 0)) + 3, 0) {
  irq = vector;
  timer_.function = [this]() { return speedo_timer(); };
  auto& c = sim().counters;
  c_intr_ = &c.at(counter(k, this->name(), "intr"));
  c_status_reads_ = &c.at(counter(k, this->name(), "status_reads"));
  c_status_zero_ = &c.at(counter(k, this->name(), "status_zero"));
  c_loop_limit_ = &c.at(counter(k, this->name(), "isr_loop_limit"));
  c_cu_resumes_ = &c.at(counter(k, this->name(), "cu_resumes"));
  c_rx_copied_ = &c.at(counter(k, this->name(), "rx_copied"));
  c_rx_passed_up_ = &c.at(counter(k, this->name(), "rx_passed_up"));
  c_tx_reaped_ = &c.at(counter(k, this->name(), "tx_reaped"));
  c_soft_resets_ = &c.at(counter(k, this->name(), "rx_soft_resets"));
  c_timer_ = &c.at(counter(k, this->name(), "timer"));
  // The TxFD ring and the statistics block (speedo_found1: pci_alloc_consistent).
  const size_t size = TX_RING_SIZE * kTxFDBytes + kStatsBytes;
  tx_ring_dma_ = k.dma_alloc(size, 16);
  std::vector<uint8_t> zero(size, 0);
  k.mem_write(tx_ring_dma_, zero.data(), zero.size());
}

// The kernel may already be gone at teardown: touch nothing of it here.
Speedo::~Speedo() = default;

// ---------------------------------------------------------------------------------------------
// register access: inb/inw/... are readb/readw/... on the memory BAR unless USE_IO

Task<uint8_t> Speedo::scb_inb(uint32_t off) {
  if (opt_.use_io) co_return co_await inb(uint16_t(io_bar_ + off));
  co_return co_await readb(mem_bar_ + off);
}
Task<uint16_t> Speedo::scb_inw(uint32_t off) {
  if (opt_.use_io) co_return co_await inw(uint16_t(io_bar_ + off));
  co_return co_await readw(mem_bar_ + off);
}
Task<uint32_t> Speedo::scb_inl(uint32_t off) {
  if (opt_.use_io) co_return co_await inl(uint16_t(io_bar_ + off));
  co_return co_await readl(mem_bar_ + off);
}
Task<void> Speedo::scb_outb(uint8_t v, uint32_t off) {
  if (opt_.use_io) co_await outb(v, uint16_t(io_bar_ + off));
  else co_await writeb(v, mem_bar_ + off);
}
Task<void> Speedo::scb_outw(uint16_t v, uint32_t off) {
  if (opt_.use_io) co_await outw(v, uint16_t(io_bar_ + off));
  else co_await writew(v, mem_bar_ + off);
}
Task<void> Speedo::scb_outl(uint32_t v, uint32_t off) {
  if (opt_.use_io) co_await outl(v, uint16_t(io_bar_ + off));
  else co_await writel(v, mem_bar_ + off);
}

Task<void> Speedo::wait_for_cmd_done() {
  // "Typically this takes 0 ticks": udelay(1), then poll the command byte, at most 1000 times.
  int wait = 1000;
  for (;;) {
    co_await udelay(1);
    const uint8_t c = co_await scb_inb(SCBCmd);
    if (!c || --wait < 0) break;
  }
}

// ---------------------------------------------------------------------------------------------
// EEPROM (I/O space always) and MII

Task<int> Speedo::do_eeprom_cmd(int cmd, int cmd_len) {
  const uint16_t ee = uint16_t(io_bar_ + SCBeeprom);
  unsigned retval = 0;
  co_await outw(EE_ENB, ee);
  co_await udelay(2);
  co_await outw(EE_ENB | EE_SHIFT_CLK, ee);
  co_await udelay(2);
  do {  // shift the command bits out, MSB first; EEDO is sampled after each rising clock edge
    const uint16_t dataval = (cmd & (1 << cmd_len)) ? EE_WRITE_1 : EE_WRITE_0;
    co_await outw(dataval, ee);
    co_await udelay(2);
    co_await outw(uint16_t(dataval | EE_SHIFT_CLK), ee);
    co_await udelay(2);
    const uint16_t in = co_await inw(ee);
    retval = (retval << 1) | ((in & EE_DATA_READ) ? 1 : 0);
  } while (--cmd_len >= 0);
  co_await outw(EE_ENB, ee);
  co_await udelay(2);
  co_await outw(uint16_t(EE_ENB & ~EE_CS), ee);  // terminate the access
  co_return int(retval);
}

Task<int> Speedo::mdio_read(int phy_id, int location) {
  int boguscnt = 64 * 10;  // "<64 usec. to complete, typ 27 ticks"
  co_await scb_outl(0x08000000u | (uint32_t(location) << 16) | (uint32_t(phy_id) << 21), SCBCtrlMDI);
  uint32_t val = 0;
  do {
    val = co_await scb_inl(SCBCtrlMDI);
    if (--boguscnt < 0) break;
  } while (!(val & 0x10000000));
  co_return int(val & 0xffff);
}

Task<int> Speedo::mdio_write(int phy_id, int location, int value) {
  int boguscnt = 64 * 10;
  co_await scb_outl(0x04000000u | (uint32_t(location) << 16) | (uint32_t(phy_id) << 21) | uint32_t(value & 0xffff),
                    SCBCtrlMDI);
  uint32_t val = 0;
  do {
    val = co_await scb_inl(SCBCtrlMDI);
    if (--boguscnt < 0) break;
  } while (!(val & 0x10000000));
  co_return int(val & 0xffff);
}

// ---------------------------------------------------------------------------------------------
// probe (speedo_found1), in the probe process

Task<void> Speedo::probe_hw() {
  Kernel& k = kernel();
  const int option = opt_.options >= 0 ? opt_.options : 0;
  // The station address EEPROM, before the reset; the size test tells 6- from 8-bit addresses.
  int read_cmd = EE_READ_CMD << 24, ee_size = 0x100;
  const int probe_v = co_await do_eeprom_cmd(EE_READ_CMD << 24, 27);
  if ((probe_v & 0xffe0000) != 0xffe0000) {
    ee_size = 0x40;
    read_cmd = EE_READ_CMD << 22;
  }
  eeprom_.assign(size_t(ee_size), 0);
  uint16_t sum = 0;
  for (int i = 0, j = 0; i < ee_size; ++i) {
    const int value = co_await do_eeprom_cmd(read_cmd | (i << 16), 27);
    eeprom_[size_t(i)] = uint16_t(value);
    sum = uint16_t(sum + value);
    if (i < 3) {
      dev_addr[size_t(j++)] = uint8_t(value);
      dev_addr[size_t(j++)] = uint8_t(value >> 8);
    }
  }
  (void)sum;  // != 0xBABA: "Invalid EEPROM checksum" is only printed
  // Reset the chip: stop Tx and Rx processes and clear counters.
  co_await scb_outl(PortReset, SCBPort);
  (void)co_await scb_inl(SCBPort);
  co_await udelay(10);
  rx_bug_ = (eeprom_[3] & 0x03) != 3;  // "Receiver lock-up bug exists -- enabling work-around"
  const unsigned phy_type = (eeprom_[6] >> 8) & 0x3f, phy_addr = eeprom_[6] & 0x1f;
  if (phy_type == DP83840 || phy_type == DP83840A) {
    const int r23 = co_await mdio_read(int(phy_addr), 23);
    co_await mdio_write(int(phy_addr), 23, r23 | 0x0422);
  }
  if (option & 0x70)  // forced media
    co_await mdio_write(int(phy_addr), 0, ((option & 0x20) ? 0x2000 : 0) | ((option & 0x10) ? 0x0100 : 0));
  // The system self-test: results into the (16-byte aligned) ring memory, polled every 10 µs.
  {
    uint8_t init[8];
    st32(init, 0);
    st32(init + 4, 0xFFFFFFFFu);
    k.mem_write(tx_ring_dma_, init, 8);
    co_await scb_outl(uint32_t(tx_ring_dma_) | PortSelfTest, SCBPort);
    int boguscnt = 16000;
    for (;;) {
      co_await udelay(10);
      uint8_t r[4];
      k.mem_read(tx_ring_dma_ + 4, r, 4);
      if (ld32(r) != 0xFFFFFFFFu || --boguscnt < 0) break;
    }
  }
  co_await scb_outl(PortReset, SCBPort);
  (void)co_await scb_inl(SCBPort);
  co_await udelay(10);
  full_duplex_ = (option & 0x10) != 0;
  if (opt_.full_duplex >= 0) full_duplex_ = opt_.full_duplex != 0;
  phy_[0] = eeprom_[6];
  phy_[1] = eeprom_[7];
  probed_ = true;
  co_await k.wake_up(probe_wq_);
}

std::vector<std::shared_ptr<NetDevice>> probe(Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors,
                                              const ProbeTarget& nic, const ParamValues& params) {
  static const char* const kParts[] = {"82557", "82558A4", "82558B0", "82559"};
  const std::string& part = dev.info().name.empty() ? nic.device : dev.info().name;
  if (std::find(std::begin(kParts), std::end(kParts), part) == std::end(kParts))
    throw std::invalid_argument("eepro100: unsupported device '" + part + "' (eepro100_pci_tbl: 82557/8/9)");
  auto* obj = dynamic_cast<sc_core::sc_object*>(&dev);
  if (!obj) throw std::invalid_argument("eepro100: device " + nic.device + " is not a SystemC object");
  if (vectors.empty()) throw std::invalid_argument("eepro100: no interrupt vector for " + nic.ifname);
  if (!dev.io_bar(0)) throw std::invalid_argument("eepro100: " + nic.ifname + " has no I/O BAR (request_region BAR 1)");
  const Options opt = options_from(params);
  auto s = std::make_shared<Speedo>(k, nic.ifname, dev.bar(0), dev.io_bar(0), vectors[0],
                                    DmaTags::space_of(obj->name()), opt);
  k.register_netdev(*s);
  Speedo* sp = s.get();
  k.spawn_process("insmod eepro100 " + nic.ifname, [](Speedo* p) -> Task<void> { co_await p->probe_hw(); }(sp));
  return {std::move(s)};
}

// ---------------------------------------------------------------------------------------------
// open / close

void Speedo::speedo_init_rx_ring(Kernel& k, std::vector<SkbPtr> skbs) {
  cur_rx_ = 0;
  uint64_t last = 0;
  unsigned i = 0;
  for (; i < RX_RING_SIZE && i < skbs.size(); ++i) {
    SkbPtr skb = std::move(skbs[i]);
    skb->dev = this;
    const uint64_t rxf = k.pci_map_single(*skb, DmaDir::Bidirectional);  // the RxFD at skb->tail
    rx_ring_dma_[i] = rxf;
    skb->reserve(kRxFDBytes);
    if (last) {
      uint8_t l[4];
      st32(l, uint32_t(rxf));
      k.mem_write(last + 4, l, 4);
    }
    last = rxf;
    uint8_t d[kRxFDBytes];
    st32(d, 0x00000001);             // '1' is flag value only
    st32(d + 4, 0);                  // link: none yet
    st32(d + 8, 0xffffffffu);        // rx_buf_addr: unused (simplified mode)
    st32(d + 12, PKT_BUF_SZ << 16);  // size
    k.mem_write(rxf, d, kRxFDBytes);
    rx_skbuff_[i] = std::move(skb);
  }
  dirty_rx_ = unsigned(i - RX_RING_SIZE);
  uint8_t el[4];
  st32(el, 0xC0000002u);  // the last entry: end of list (EL | S)
  k.mem_write(last, el, 4);
  last_rxf_ = last;
}

void Speedo::write_txfd(unsigned entry, uint32_t cmd_status, uint32_t link, const uint8_t* params, size_t n) {
  uint8_t d[kTxFDBytes] = {};
  st32(d, cmd_status);
  st32(d + 4, link);
  if (params) std::memcpy(d + 8, params, std::min<size_t>(n, kTxFDBytes - 8));
  kernel().mem_write(txfd(entry), d, 8 + std::min<size_t>(n, kTxFDBytes - 8));
}

void Speedo::clear_suspend(uint64_t cmd_dma) {
  // ((u16 *)&cmd->cmd_status)[1] &= ~0x4000: the command word only, not the status the NIC writes.
  uint8_t w[2];
  kernel().mem_read(cmd_dma + 2, w, 2);
  w[1] &= uint8_t(~0x40);
  kernel().mem_write(cmd_dma + 2, w, 2);
}

Task<void> Speedo::speedo_resume() {
  Kernel& k = kernel();
  tx_threshold_ = kTxThresholdStart;  // "Start with a Tx threshold of 256"
  // Segment registers to 0.
  co_await wait_for_cmd_done();
  co_await scb_outl(0, SCBPointer);
  (void)co_await scb_inl(SCBPointer);  // "impose a delay to avoid a bug"
  co_await udelay(10);
  co_await scb_outb(uint8_t(RxAddrLoad), SCBCmd);
  co_await wait_for_cmd_done();
  co_await scb_outb(uint8_t(CUCmdBase), SCBCmd);
  // The statistics block and the RX ring.
  co_await wait_for_cmd_done();
  co_await scb_outl(uint32_t(lstats_dma()), SCBPointer);
  co_await scb_outb(uint8_t(CUStatsAddr), SCBCmd);
  uint8_t zero[4] = {0, 0, 0, 0};
  k.mem_write(lstats_dma() + 16 * 4, zero, 4);  // lstats->done_marker = 0
  if (rx_ring_dma_[cur_rx_ % RX_RING_SIZE]) {
    co_await wait_for_cmd_done();
    co_await scb_outl(uint32_t(rx_ring_dma_[cur_rx_ % RX_RING_SIZE]), SCBPointer);
    co_await scb_outb(uint8_t(RxStart), SCBCmd);
  }
  co_await wait_for_cmd_done();
  co_await scb_outb(uint8_t(CUDumpStats), SCBCmd);
  co_await udelay(30);
  // The first command: our station address, "marked already completed" (0xa000) to avoid a bug.
  {
    const unsigned entry = cur_tx_++ % TX_RING_SIZE;
    write_txfd(entry, (CmdSuspend | CmdIASetup) | 0xa000, uint32_t(txfd(cur_tx_)), dev_addr.data(), 6);
    last_cmd_ = txfd(entry);
  }
  // Start the Tx process and unmask the interrupts (FCP and ER stay masked).
  co_await wait_for_cmd_done();
  co_await scb_outl(uint32_t(txfd(dirty_tx_)), SCBPointer);
  co_await scb_outw(uint16_t(CUStart | SCBMaskEarlyRx | SCBMaskFlowCtl), SCBCmd);
}

Task<void> Speedo::queue_command(uint32_t cmd_status, const uint8_t* params, size_t n) {
  // set_rx_mode's pattern for a non-transmit command: the next TxFD, clear_suspend on the previous
  // command, CU Resume, all under spin_lock_irqsave.
  const bool was = local_irq_save();
  const unsigned entry = cur_tx_++ % TX_RING_SIZE;
  const uint64_t last = last_cmd_;
  last_cmd_ = txfd(entry);
  tx_skbuff_[entry].reset();
  write_txfd(entry, cmd_status, uint32_t(txfd(entry + 1)), params, n);
  co_await wait_for_cmd_done();
  clear_suspend(last);
  co_await scb_outb(uint8_t(CUResume), SCBCmd);
  ++*c_cu_resumes_;
  if (int(cur_tx_ - dirty_tx_) >= int(TX_QUEUE_LIMIT)) {
    netif_stop_queue();
    tx_full_ = true;
  }
  local_irq_restore(was);
}

Task<void> Speedo::set_rx_mode() {
  const int new_rx_mode = 0;  // no IFF_PROMISC / IFF_ALLMULTI, mc_count 0
  if (int(cur_tx_ - dirty_tx_) > int(TX_RING_SIZE - TX_MULTICAST_SIZE)) {
    rx_mode_ = -1;  // ring full: try again later
    co_return;
  }
  if (new_rx_mode != rx_mode_) {
    std::array<uint8_t, CONFIG_DATA_SIZE> c = i82558_config_cmd;
    c[1] = uint8_t((opt_.txfifo << 4) | opt_.rxfifo);
    c[4] = uint8_t(opt_.rxdmacount);
    c[5] = uint8_t(opt_.txdmacount + 0x80);
    c[15] |= (new_rx_mode & 2) ? 1 : 0;
    c[19] = uint8_t(0x84 | (full_duplex_ ? 0x40 : 0));  // flow control disabled; 0x40 forces full duplex
    c[21] = (new_rx_mode & 1) ? 0x0D : 0x05;
    if (phy_[0] & 0x8000) {  // AUI port
      c[15] |= 0x80;
      c[8] = 0;
    }
    // The 22 configure bytes from tx_desc_addr (offset 8) fit in the 32-byte TxFD.
    co_await queue_command(CmdSuspend | CmdConfigure, c.data(), c.size());
  }
  // 0-3 multicast addresses fit in one TxFD: CmdMulticastList with count 0.
  const uint8_t count[4] = {0, 0, 0, 0};
  co_await queue_command(CmdSuspend | CmdMulticastList, count, 4);
  rx_mode_ = new_rx_mode;
}

Task<int> Speedo::open() {
  Kernel& k = kernel();
  while (!probed_) co_await probe_wq_.wait();  // the probe process still owns the hardware
  cur_tx_ = dirty_tx_ = 0;
  last_cmd_ = 0;
  tx_full_ = false;
  in_interrupt_ = false;
  const int rc = k.request_irq(irq, [this](unsigned) { return speedo_interrupt(); }, SA_SHIRQ, name());
  if (rc) co_return rc;
  irq_requested_ = true;
  std::vector<SkbPtr> skbs;
  for (unsigned i = 0; i < RX_RING_SIZE; ++i) skbs.push_back(co_await k.dev_alloc_skb(PKT_BUF_SZ + kRxFDBytes));
  speedo_init_rx_ring(k, std::move(skbs));
  co_await scb_outw(SCBMaskAll, SCBCmd);  // "Fire up the hardware"
  co_await speedo_resume();
  netif_start_queue();
  flow_ctrl_ = partner_ = 0;
  rx_mode_ = -1;
  co_await set_rx_mode();
  const int phy = phy_[0] & 0x1f;
  if ((phy_[0] & 0x8000) == 0) advertising_ = co_await mdio_read(phy, MII_ADVERTISE);
  const int bmsr = co_await mdio_read(phy, MII_BMSR);
  if (bmsr & BMSR_LSTATUS) netif_carrier_on();
  else netif_carrier_off();
  // The media/Rx-hang timer: first at 2.4 s.
  k.mod_timer(timer_, k.jiffies() + (24 * k.params().hz) / 10);
  if ((phy_[0] & 0x8000) == 0) (void)co_await mdio_read(phy, MII_BMCR);
  co_return 0;
}

Task<int> Speedo::stop() {
  Kernel& k = kernel();
  netif_stop_queue();
  k.del_timer(timer_);
  co_await scb_outl(PortPartialReset, SCBPort);
  if (irq_requested_) k.free_irq(irq, name());
  irq_requested_ = false;
  for (unsigned i = 0; i < RX_RING_SIZE; ++i) {
    if (rx_skbuff_[i]) co_await k.kfree_skb(std::move(rx_skbuff_[i]));
    rx_ring_dma_[i] = 0;
  }
  for (unsigned i = 0; i < TX_RING_SIZE; ++i) {
    if (tx_buf_addr0_[i]) dma_tags().tag(space_, tx_buf_addr0_[i], 0);
    tx_buf_addr0_[i] = 0;
    if (tx_skbuff_[i]) co_await k.kfree_skb(std::move(tx_skbuff_[i]));
  }
  co_return 0;
}

// ---------------------------------------------------------------------------------------------
// transmit

Task<int> Speedo::hard_start_xmit(SkbPtr& skb) {
  Kernel& k = kernel();
  const bool was = local_irq_save();  // spin_lock_irqsave(&sp->lock)
  co_await k.cost(costs_[Path::speedo_start_xmit]);
  if (int(cur_tx_ - dirty_tx_) >= int(TX_QUEUE_LIMIT)) {  // "incorrect tbusy state, fixed"
    netif_stop_queue();
    tx_full_ = true;
    local_irq_restore(was);
    co_return 1;
  }
  const unsigned entry = cur_tx_++ % TX_RING_SIZE;
  const uint64_t buf = k.pci_map_single(*skb, DmaDir::ToDevice);
  uint8_t d[kTxFDBytes] = {};
  st32(d, tx_cmd_status(entry));
  st32(d + 4, uint32_t(txfd(cur_tx_)));
  st32(d + 8, uint32_t(txfd(entry) + TX_DESCR_BUF_OFFSET));  // tx_desc_addr: the TBD inside this TxFD
  st32(d + 12, tx_threshold_);                               // count: 1 TBD, threshold
  st32(d + 16, uint32_t(buf));                               // tx_buf_addr0
  st32(d + 20, skb->len);                                    // tx_buf_size0
  k.mem_write(txfd(entry), d, kTxFDBytes);
  tx_buf_addr0_[entry] = buf;
  const JourneyId j = skb->journey;
  dma_tags().tag(space_, buf, j);
  tx_skbuff_[entry] = std::move(skb);
  // Trigger the command unit resume: the window between clear_suspend and CUResume is kept short.
  co_await wait_for_cmd_done();
  clear_suspend(last_cmd_);
  k.mark(j, "doorbell");
  co_await scb_outb(uint8_t(CUResume), SCBCmd);
  ++*c_cu_resumes_;
  last_cmd_ = txfd(entry);
  if (int(cur_tx_ - dirty_tx_) >= int(TX_QUEUE_LIMIT)) {  // leave room for set_rx_mode
    netif_stop_queue();
    tx_full_ = true;
  }
  local_irq_restore(was);
  // The frame now belongs to the NIC: this CPU context no longer works for it.
  if (Cpu* c = Cpu::running_cpu_or_null(); c && c->running() && c->running()->journey == j) {
    c->running()->journey = 0;
    c->running()->stage.clear();
  }
  co_return 0;
}

Task<void> Speedo::speedo_tx_buffer_gc() {
  Kernel& k = kernel();
  unsigned dirty = dirty_tx_;
  while (int(cur_tx_ - dirty) > 0) {
    const unsigned entry = dirty % TX_RING_SIZE;
    // The TxFD status the NIC wrote back: its line was invalidated by the write.
    co_await k.load_dma_lines(txfd(entry), 4);
    uint8_t s[4];
    k.mem_read(txfd(entry), s, 4);
    const uint32_t status = ld32(s);
    if (!(status & StatusComplete)) break;  // still not processed
    co_await k.cost(costs_[Path::speedo_tx_buffer_gc]);
    if ((status & TxUnderrun) && tx_threshold_ < kTxThresholdMax) tx_threshold_ += 0x00040000;
    if (tx_skbuff_[entry]) {
      stats.tx_packets++;
      stats.tx_bytes += tx_skbuff_[entry]->len;
      if (tx_buf_addr0_[entry]) dma_tags().tag(space_, tx_buf_addr0_[entry], 0);  // pci_unmap_single
      tx_buf_addr0_[entry] = 0;
      k.dev_kfree_skb_irq(std::move(tx_skbuff_[entry]));
      ++*c_tx_reaped_;
    }
    ++dirty;
  }
  dirty_tx_ = dirty;
}

// ---------------------------------------------------------------------------------------------
// receive

Task<bool> Speedo::speedo_rx_alloc(unsigned entry) {
  Kernel& k = kernel();
  SkbPtr skb = co_await k.dev_alloc_skb(PKT_BUF_SZ + kRxFDBytes);
  skb->dev = this;
  const uint64_t rxf = k.pci_map_single(*skb, DmaDir::FromDevice);
  rx_ring_dma_[entry] = rxf;
  skb->reserve(kRxFDBytes);
  uint8_t a[4];
  st32(a, 0xffffffffu);
  k.mem_write(rxf + 8, a, 4);  // rxf->rx_buf_addr
  rx_skbuff_[entry] = std::move(skb);
  co_return true;
}

void Speedo::speedo_rx_link(unsigned entry) {
  Kernel& k = kernel();
  const uint64_t rxf = rx_ring_dma_[entry];
  uint8_t d[kRxFDBytes];
  k.mem_read(rxf, d, kRxFDBytes);
  st32(d, 0xC0000001u);  // EL | S; '1' for driver use only
  st32(d + 4, 0);        // link: none yet
  st32(d + 12, PKT_BUF_SZ << 16);
  k.mem_write(rxf, d, kRxFDBytes);
  uint8_t l[4];
  st32(l, uint32_t(rxf));
  k.mem_write(last_rxf_ + 4, l, 4);  // sp->last_rxf->link
  uint8_t s[4];
  k.mem_read(last_rxf_, s, 4);
  st32(s, ld32(s) & ~0xC0000000u);  // sp->last_rxf->status &= ~(EL | S)
  k.mem_write(last_rxf_, s, 4);
  last_rxf_ = rxf;
}

Task<int> Speedo::speedo_refill_rx_buf(bool force) {
  const unsigned entry = dirty_rx_ % RX_RING_SIZE;
  co_await kernel().cost(costs_[Path::speedo_refill_rx_buf]);
  if (!rx_skbuff_[entry]) {
    // dev_alloc_skb does not fail in the model (no memory pressure): the borrow path of the driver
    // (force, an skb from a later entry) is never needed.
    (void)force;
    (void)co_await speedo_rx_alloc(entry);
  }
  speedo_rx_link(entry);
  ++dirty_rx_;
  rx_ring_state_ &= ~(RrNoMem | RrOOMReported);
  co_return 0;
}

Task<void> Speedo::speedo_refill_rx_buffers(bool force) {
  while (int(cur_rx_ - dirty_rx_) > 0) {
    const int r = co_await speedo_refill_rx_buf(force);
    if (r == -1) break;
  }
}


Task<void> Speedo::speedo_rx(sc_time t_pass) {
  Kernel& k = kernel();
  unsigned entry = cur_rx_ % RX_RING_SIZE;
  int rx_work_limit = int(dirty_rx_ + RX_RING_SIZE - cur_rx_);
  bool alloc_ok = true;
  while (rx_ring_dma_[entry]) {  // sp->rx_ringp[entry] != NULL
    const uint64_t rxf = rx_ring_dma_[entry];
    const sc_time t0 = now();
    const unsigned misses = co_await k.load_dma_lines(rxf, kRxFDBytes);  // status, count: written by the NIC
    const sc_time desc_miss_at = misses ? t0 : SC_ZERO_TIME;
    uint8_t d[kRxFDBytes];
    k.mem_read(rxf, d, kRxFDBytes);
    const uint32_t status = ld32(d);
    const unsigned pkt_len = ld32(d + 12) & 0x3fff;
    if (!(status & RxComplete)) break;
    if (--rx_work_limit < 0) break;
    if (last_rxf_ == rxf) {  // the last linked RxFD: postpone until it is no longer the last
      rx_ring_state_ |= RrPostponed;
      break;
    }
    co_await k.cost(costs_[Path::speedo_rx]);
    if ((status & (RxErrTooBig | RxOK | 0x0f90)) != RxOK) {
      if (!(status & RxErrTooBig) && !(status & RxOK)) stats.rx_errors++;
    } else {
      const JourneyId j = dma_tags().take(space_, rxf + kRxFDBytes);
      mark_rx_journey(kernel(), j, t_pass, desc_miss_at);
      SkbPtr skb;
      if (int(pkt_len) < opt_.rx_copybreak) {
        // A right-sized skb, the frame copied (eth_copy_and_sum = memcpy in 2.4); the RxFD stays.
        skb = co_await k.dev_alloc_skb(pkt_len + 2);
        skb->dev = this;
        skb->reserve(2);  // align IP on 16 bytes
        co_await k.load_dma_lines(rxf + kRxFDBytes, pkt_len, j);  // the copy reads every DMA'd line
        co_await k.cost(costs_[Path::eth_copy_and_sum], pkt_len);
        k.mem_read(rxf + kRxFDBytes, skb->put(pkt_len), pkt_len);
        ++*c_rx_copied_;
      } else {
        // Pass up the already-filled skb.
        skb = std::move(rx_skbuff_[entry]);
        rx_ring_dma_[entry] = 0;
        k.pci_unmap_single(*skb, pkt_len, DmaDir::FromDevice);
        skb->put(pkt_len);
        co_await k.load_dma_lines(skb->data_phys(), ETH_HLEN, j);  // eth_type_trans reads the header
        ++*c_rx_passed_up_;
      }
      k.eth_type_trans(*skb, *this);
      skb->journey = j;
      co_await k.netif_rx(std::move(skb));
      stats.rx_packets++;
      stats.rx_bytes += pkt_len;
    }
    entry = (++cur_rx_) % RX_RING_SIZE;
    rx_ring_state_ &= ~RrPostponed;
    // Refill the recently taken buffers one by one (traffic bursts).
    if (alloc_ok) {
      const int r = co_await speedo_refill_rx_buf(false);
      if (r == -1) alloc_ok = false;
    }
  }
  co_await speedo_refill_rx_buffers(true);
  last_rx_time_ = k.jiffies();
}

Task<void> Speedo::speedo_rx_soft_reset() {
  ++*c_soft_resets_;
  co_await wait_for_cmd_done();
  const uint8_t c0 = co_await scb_inb(SCBCmd);
  if (c0 != 0) co_return;  // "previous command stalled"
  co_await scb_outb(uint8_t(RxAbort), SCBCmd);
  const uint64_t rfd = rx_ring_dma_[cur_rx_ % RX_RING_SIZE];
  if (rfd) {
    uint8_t a[4];
    st32(a, 0xffffffffu);
    kernel().mem_write(rfd + 8, a, 4);
  }
  co_await wait_for_cmd_done();
  const uint8_t c1 = co_await scb_inb(SCBCmd);
  if (c1 != 0) co_return;  // "RxAbort command stalled"
  co_await scb_outl(uint32_t(rfd), SCBPointer);
  co_await scb_outb(uint8_t(RxStart), SCBCmd);
}

// ---------------------------------------------------------------------------------------------
// interrupt handler

Task<void> Speedo::speedo_interrupt() {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::speedo_interrupt]);
  ++*c_intr_;
  if (in_interrupt_) co_return;  // "SMP simultaneous entry of an interrupt handler"
  in_interrupt_ = true;
  long boguscnt = opt_.max_interrupt_work;
  unsigned reads = 0;
  for (;;) {
    const sc_time t_pass = now();
    const uint16_t status = co_await scb_inw(SCBStatus);
    ++reads;
    ++*c_status_reads_;
    // Acknowledge all current sources ASAP (FCP and ER are not handled: 0xfc00).
    co_await scb_outw(uint16_t(status & 0xfc00), SCBStatus);
    if ((status & 0xfc00) == 0) {
      if (reads == 1) ++*c_status_zero_;
      break;
    }
    co_await k.cost(costs_[Path::speedo_interrupt_pass]);
    if ((status & 0x5000) || (rx_ring_state_ & (RrNoMem | RrPostponed)) == RrPostponed) co_await speedo_rx(t_pass);
    co_await speedo_refill_rx_buffers(false);  // "Always check if all rx buffers are allocated"
    switch ((status >> 2) & 0xf) {             // the RU may have left the ready state: re-prime it
      case 1: case 2: case 9: case 10: case 12: co_await speedo_rx_soft_reset(); break;
      default: break;
    }
    if (status & 0xA400) {  // CX, CNA or SWI
      co_await speedo_tx_buffer_gc();
      if (tx_full_ && int(cur_tx_ - dirty_tx_) < int(TX_QUEUE_UNFULL)) {
        tx_full_ = false;
        netif_wake_queue();
      }
    }
    if (--boguscnt < 0) {  // "Too much work at interrupt": clear every source and leave
      co_await scb_outw(0xfc00, SCBStatus);
      ++*c_loop_limit_;
      break;
    }
  }
  ++isr_reads_[std::min<size_t>(reads, isr_reads_.size() - 1)];
  in_interrupt_ = false;
}

// ---------------------------------------------------------------------------------------------
// media timer (TIMER_BH)

Task<void> Speedo::speedo_timeout() {
  Kernel& k = kernel();
  const int phy_num = phy_[0] & 0x1f;
  if ((phy_[0] & 0x8000) == 0) {  // MII: link partner changes
    const int partner = co_await mdio_read(phy_num, MII_LPA);
    if (partner != partner_) {
      const int fc = (advertising_ & partner & 0x0400) ? 1 : 0;
      partner_ = partner;
      if (fc != flow_ctrl_) {
        flow_ctrl_ = fc;
        rx_mode_ = -1;  // trigger a reload
      }
      (void)co_await mdio_read(phy_num, MII_BMSR);  // clear the sticky bit
      const int bmsr = co_await mdio_read(phy_num, MII_BMSR);
      if (bmsr & BMSR_LSTATUS) netif_carrier_on();
      else netif_carrier_off();
    }
  }
  if (rx_mode_ < 0 || (rx_bug_ && k.jiffies() - last_rx_time_ > 2 * k.params().hz)) co_await set_rx_mode();
}

Task<void> Speedo::speedo_timer() {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::speedo_timer]);
  ++*c_timer_;
  co_await speedo_timeout();
  k.mod_timer(timer_, k.jiffies() + 2 * k.params().hz);
}

}  // namespace nicsim::eepro100drv
