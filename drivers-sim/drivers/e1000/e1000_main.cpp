// e1000_main.c of the model: probe, open/close, transmit, interrupt handler, RX/TX clean, RX refill
// and the watchdog (see e1000.h for what is modeled and the sources).
#include "core/sim_context.h"
#include "core/events.h"
#include "drivers-sim/drivers/e1000/e1000.h"
#include "models/bus/pci.h"
#include "drivers-sim/driver_entry.h"
#include "drivers-sim/kernel/ethtool_text.h"
#include "drivers-sim/kernel/rx_journey.h"
#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>
#include <systemc>

namespace nicsim::e1000drv {

namespace {
constexpr int kEBUSY = 16;
std::string counter(Kernel& k, const std::string& dev, const char* what) {
  return k.host() + "." + dev + ".driver." + what;
}
}  // namespace

Adapter::Adapter(Kernel& k, std::string name, const DriverProfile& profile, MacType mac, unsigned fn, uint64_t bar,
                 unsigned vector, DmaTags::Space dma_space, const Options& opt)
    : NetDevice(k, std::move(name)), profile_(&profile), mac_(mac), fn_(fn), bar_(bar),
      costs_(k.driver_costs(kCostDriver, path_names())), space_(dma_space), opt_(opt) {
  irq = vector;
  // e1000_check_options sets hw.fc; only 7.0-style drivers set hw.original_fc too (research §3.2
  // Finding D): otherwise it stays e1000_fc_none (0) from the zeroed private area, and e1000_reset's
  // hw.fc = hw.original_fc switches flow control off whatever FlowControl said.
  fc_ = opt_.flow_control;
  original_fc_ = profile.fc_sets_original ? opt_.flow_control : e1000_fc_none;
  if (profile.napi) {
    weight = 64;  // e1000_probe: netdev->weight = 64 (CONFIG_E1000_NAPI)
    c_polls_ = &sim().counters.at(counter(k, this->name(), "napi_polls"));
    c_poll_exits_ = &sim().counters.at(counter(k, this->name(), "napi_complete"));
    if (profile.copybreak) c_copybreak_ = &sim().counters.at(counter(k, this->name(), "rx_copybreak"));
  }
  watchdog_timer_.function = [this]() { return watchdog(); };
  auto& c = sim().counters;
  c_intr_ = &c.at(counter(k, this->name(), "intr"));
  c_icr_reads_ = &c.at(counter(k, this->name(), "icr_reads"));
  c_icr_zero_ = &c.at(counter(k, this->name(), "icr_zero"));
  c_loop_limit_ = &c.at(counter(k, this->name(), "isr_loop_limit"));
  c_rdt_writes_ = &c.at(counter(k, this->name(), "rdt_writes"));
  c_tdt_writes_ = &c.at(counter(k, this->name(), "tdt_writes"));
  c_tx_busy_ = &c.at(counter(k, this->name(), "tx_busy"));
  c_watchdog_ = &c.at(counter(k, this->name(), "watchdog"));
  if (profile.link_loss_tx == DriverProfile::LinkLossTx::reset)
    c_tx_reset_freed_ = &c.at(counter(k, this->name(), "tx_ring_reset_freed"));
  if (profile.link_loss_tx == DriverProfile::LinkLossTx::flush)
    c_tx_flushed_ = &c.at(counter(k, this->name(), "tx_flushed"));
  netif_stop_queue();  // e1000_probe: netif_carrier_off + netif_stop_queue until the watchdog sees link
}

// The kernel may already be gone when a run tears software down: touch nothing of it here (a
// dying kernel unlinks the timers still pending, so the watchdog TimerList has nothing to undo).
Adapter::~Adapter() = default;

std::string Adapter::where() const {
  Cpu* c = Cpu::running_cpu_or_null();
  return kernel().host() + (c ? ".cpu" + std::to_string(c->index()) : std::string());
}

Adapter::RingState Adapter::tx_ring_state() const {
  return {tx_ring_.dma, tx_ring_.count, tx_ring_.next_to_use, tx_ring_.next_to_clean};
}
Adapter::RingState Adapter::rx_ring_state() const {
  return {rx_ring_.dma, rx_ring_.count, rx_ring_.next_to_use, rx_ring_.next_to_clean};
}

// ---------------------------------------------------------------------------------------------
// probe (e1000_probe + e1000_sw_init + e1000_reset), in the probe process

Task<void> Adapter::probe_hw() {
  // e1000_sw_init: media type from STATUS.TBIMODE (82543 and later).
  if (mac_ >= e1000_82543) {
    uint32_t s = co_await rd(E1000_STATUS);
    copper_ = !(s & E1000_STATUS_TBIMODE);
  } else {
    copper_ = false;
  }
  // e1000_read_mac_addr: the station address (RAL0/RAH0, loaded by the hardware from the EEPROM
  // words the real driver reads; on the 82546's function 1 it already has bit 0 of byte 5 flipped).
  uint32_t ral = co_await rd(E1000_RA);
  uint32_t rah = co_await rd(E1000_RA + 4);
  dev_addr = {uint8_t(ral), uint8_t(ral >> 8), uint8_t(ral >> 16), uint8_t(ral >> 24), uint8_t(rah), uint8_t(rah >> 8)};
  // e1000_get_bus_info: PCI-X mode decides the 82544's per-descriptor limit (e1000_probe).
  uint32_t status = co_await rd(E1000_STATUS);
  bus_pcix_ = status & E1000_STATUS_PCIX_MODE;
  max_data_per_txd_ = (mac_ == e1000_82544 && bus_pcix_) ? 4096 : MAX_JUMBO_FRAME_SIZE;
  netif_carrier_off();
  netif_stop_queue();
  co_await reset();
  probed_ = true;
  co_await kernel().wake_up(probe_wq_);
}

namespace {
Task<void> probe_ports(std::vector<Adapter*> ports) {
  for (Adapter* a : ports) co_await a->probe_hw();
}
}  // namespace

std::vector<std::shared_ptr<NetDevice>> probe(const DriverProfile& profile, Kernel& k, PciDevice& dev,
                                              const std::vector<unsigned>& vectors, const ProbeTarget& nic,
                                              const ParamValues& params) {
  uint16_t id = device_id_of(dev.info().name);
  if (!id) id = device_id_of(nic.device);
  MacType mac = mac_type_of(id);
  if (mac == e1000_undefined)
    throw std::invalid_argument(profile.name + ": unsupported device '" + dev.info().name + "' (" + nic.device + ")");
  auto* obj = dynamic_cast<sc_core::sc_object*>(&dev);
  if (!obj) throw std::invalid_argument(profile.name + ": device " + nic.device + " is not a SystemC object");
  const DmaTags::Space space = DmaTags::space_of(obj->name());
  const unsigned fns = dev.info().functions;
  if (vectors.size() < fns)
    throw std::invalid_argument(profile.name + ": " + std::to_string(fns) + " PCI functions but " +
                                std::to_string(vectors.size()) + " interrupt vectors");
  const Options opt = check_options(params, profile, mac);
  std::vector<std::shared_ptr<NetDevice>> out;
  std::vector<Adapter*> ports;
  for (unsigned fn = 0; fn < fns; ++fn) {
    std::string nm = fn == 0 ? nic.ifname : nic.ifname + ":" + std::to_string(fn);
    auto a = std::make_shared<Adapter>(k, nm, profile, mac, fn, dev.bar(fn), vectors[fn], space, opt);
    // dev->features stays 0 (no NETIF_F_SG | NETIF_F_HW_CSUM yet): declaring it moves seed-000
    // counters (a context descriptor per TX packet), docs/developers.md "Checksum offload".
    k.register_netdev(*a);
    ports.push_back(a.get());
    out.push_back(std::move(a));
  }
  k.spawn_process("insmod e1000 " + nic.ifname, probe_ports(std::move(ports)));
  return out;
}

// ---------------------------------------------------------------------------------------------
// open / close

void Adapter::setup_tx_resources() {
  Ring& r = tx_ring_;
  r.count = opt_.tx_descriptors;
  r.size = roundup(r.count * kDescBytes, 4096);  // "round up to nearest 4K"
  r.dma = kernel().dma_alloc(r.size, 4096);      // pci_alloc_consistent
  std::vector<uint8_t> zero(r.size, 0);
  kernel().mem_write(r.dma, zero.data(), zero.size());
  r.buffer_info.clear();
  r.buffer_info.resize(r.count);
  r.next_to_use = r.next_to_clean = 0;
}

void Adapter::setup_rx_resources() {
  Ring& r = rx_ring_;
  r.count = opt_.rx_descriptors;
  r.size = roundup(r.count * kDescBytes, 4096);
  r.dma = kernel().dma_alloc(r.size, 4096);
  std::vector<uint8_t> zero(r.size, 0);
  kernel().mem_write(r.dma, zero.data(), zero.size());
  r.buffer_info.clear();
  r.buffer_info.resize(r.count);
  r.next_to_use = r.next_to_clean = 0;
}

void Adapter::free_tx_resources() {
  tx_ring_.buffer_info.clear();
  if (tx_ring_.dma) kernel().dma_free(tx_ring_.dma);
  tx_ring_.dma = 0;
}

void Adapter::free_rx_resources() {
  rx_ring_.buffer_info.clear();
  if (rx_ring_.dma) kernel().dma_free(rx_ring_.dma);
  rx_ring_.dma = 0;
}

Task<int> Adapter::set_mac_address(std::array<uint8_t, 6> addr) {
  while (!probed_) co_await probe_wq_.wait();  // the probe reads the EEPROM address into dev_addr
  dev_addr = addr;
  co_await rar_set0();  // e1000_rar_set(&adapter->hw, adapter->hw.mac_addr, 0)
  co_return 0;
}

Task<int> Adapter::open() {
  while (!probed_) co_await probe_wq_.wait();  // the probe process is still touching the hardware
  setup_tx_resources();
  setup_rx_resources();
  const int rc = co_await up();
  if (rc != 0) {
    free_rx_resources();
    free_tx_resources();
    co_await reset();
    co_return -kEBUSY;
  }
  co_return 0;
}

Task<int> Adapter::up() {
  Kernel& k = kernel();
  // e1000_up: request_irq(..., SA_SHIRQ | SA_SAMPLE_RANDOM, ...) (e1000_main.c 4.4.12-k1 in 2.4.20)
  auto handler = [this](unsigned) { return profile_->napi ? intr_napi() : intr(); };
  if (k.request_irq(irq, handler, SA_SHIRQ | SA_SAMPLE_RANDOM, name()) != 0) co_return -1;
  irq_requested_ = true;
  // The hardware has been reset: reload what the reset cleared.
  co_await set_multi();
  co_await configure_tx();
  co_await setup_rctl();
  co_await configure_rx();
  co_await alloc_rx_buffers();
  k.mod_timer(watchdog_timer_, k.jiffies());  // first watchdog run at the next tick
  co_await irq_enable();
  co_return 0;
}

Task<int> Adapter::stop() {
  co_await down();
  free_tx_resources();
  free_rx_resources();
  co_return 0;
}

Task<void> Adapter::down() {
  Kernel& k = kernel();
  co_await irq_disable();
  if (irq_requested_) k.free_irq(irq, name());
  irq_requested_ = false;
  k.del_timer(watchdog_timer_);
  link_speed_ = 0;
  netif_carrier_off();
  netif_stop_queue();
  co_await reset();
  // e1000_clean_tx_ring / e1000_clean_rx_ring: free the buffers, zero the rings, reset the pointers.
  for (Ring* r : {&tx_ring_, &rx_ring_}) {
    for (auto& b : r->buffer_info) {
      if (b.dma) dma_tags().tag(space_, b.dma, 0);
      if (b.skb) co_await k.kfree_skb(std::move(b.skb));
      b = Buffer{};
    }
    std::vector<uint8_t> zero(r->size, 0);
    if (r->dma) k.mem_write(r->dma, zero.data(), zero.size());
    r->next_to_use = r->next_to_clean = 0;
  }
  co_await wr(E1000_TDH, 0);
  co_await wr(E1000_TDT, 0);
  co_await wr(E1000_RDH, 0);
  co_await wr(E1000_RDT, 0);
}

Task<void> Adapter::irq_enable() {
  if (--irq_sem_ == 0) {
    co_await wr(E1000_IMS, IMS_ENABLE_MASK);
    co_await flush();
  }
}

Task<void> Adapter::irq_disable() {
  ++irq_sem_;
  co_await wr(E1000_IMC, ~0u);
  co_await flush();
}

Task<void> Adapter::set_multi() {
  // No IFF_PROMISC / IFF_ALLMULTI and an empty multicast list: exact filters 1-15 and MTA cleared.
  uint32_t rctl = co_await rd(E1000_RCTL);
  rctl &= ~(E1000_RCTL_UPE | E1000_RCTL_MPE);
  co_await wr(E1000_RCTL, rctl);
  for (unsigned i = 1; i < E1000_RAR_ENTRIES; ++i) {
    co_await wr(E1000_RA + 8 * i, 0);
    co_await wr(E1000_RA + 8 * i + 4, 0);
  }
  for (unsigned i = 0; i < E1000_NUM_MTA_REGISTERS; ++i) co_await wr(E1000_MTA + 4 * i, 0);
}

Task<void> Adapter::configure_tx() {
  const uint64_t tdba = tx_ring_.dma;
  co_await wr(E1000_TDBAL, uint32_t(tdba & 0xffffffffu));
  co_await wr(E1000_TDBAH, uint32_t(tdba >> 32));
  co_await wr(E1000_TDLEN, tx_ring_.count * kDescBytes);
  co_await wr(E1000_TDH, 0);
  co_await wr(E1000_TDT, 0);
  // Inter-packet gap for 82543+ copper (82542 and fiber use other IPGT values).
  co_await wr(E1000_TIPG, DEFAULT_82543_TIPG_IPGT_COPPER | (DEFAULT_82543_TIPG_IPGR1 << E1000_TIPG_IPGR1_SHIFT) |
                              (DEFAULT_82543_TIPG_IPGR2 << E1000_TIPG_IPGR2_SHIFT));
  co_await wr(E1000_TIDV, opt_.tx_int_delay);
  if (mac_ >= e1000_82540 && !profile_->rx_int_delay_only) co_await wr(E1000_TADV, opt_.tx_abs_int_delay);
  uint32_t tctl = co_await rd(E1000_TCTL);
  tctl &= ~E1000_TCTL_CT;
  tctl |= E1000_TCTL_EN | E1000_TCTL_PSP | (E1000_COLLISION_THRESHOLD << E1000_CT_SHIFT);
  co_await wr(E1000_TCTL, tctl);
  co_await config_collision_dist();
  // report_tx_early (e1000_sw_init): RS on the 82543 and later, RPS before.
  txd_cmd_ = E1000_TXD_CMD_IFCS | E1000_TXD_CMD_IDE | (mac_ >= e1000_82543 ? E1000_TXD_CMD_RS : E1000_TXD_CMD_RPS);
}

Task<void> Adapter::setup_rctl() {
  uint32_t rctl = co_await rd(E1000_RCTL);
  rctl &= ~(3u << E1000_RCTL_MO_SHIFT);
  rctl |= E1000_RCTL_EN | E1000_RCTL_BAM | E1000_RCTL_LBM_NO | E1000_RCTL_RDMTS_HALF;  // mc_filter_type 0
  rctl &= ~E1000_RCTL_SBP;  // TBI compatibility is off on copper
  rctl &= ~E1000_RCTL_SZ_4096;
  rctl |= E1000_RCTL_SZ_2048;  // rx_buffer_len 2048 (MTU 1500)
  rctl &= ~(E1000_RCTL_BSEX | E1000_RCTL_LPE);
  co_await wr(E1000_RCTL, rctl);
}

Task<void> Adapter::configure_rx() {
  const uint64_t rdba = rx_ring_.dma;
  uint32_t rctl = co_await rd(E1000_RCTL);
  co_await wr(E1000_RCTL, rctl & ~E1000_RCTL_EN);  // receiver off while the ring is set up
  co_await wr(E1000_RDTR, opt_.rx_int_delay);
  if (mac_ >= e1000_82540) {
    co_await wr(E1000_RADV, opt_.rx_abs_int_delay);
    if (!profile_->itr_param)
      co_await wr(E1000_ITR, itr_interval(MAX_INTS_PER_SEC));  // 4.4.x: hardcoded 8000 ints/s = 488
    else if (opt_.itr > 1)
      co_await wr(E1000_ITR, itr_interval(static_cast<uint32_t>(opt_.itr)));  // 5.x fixed rate
    // 5.x: 0 leaves ITR at its reset value 0 (off); 1 (dynamic) is written by the watchdog.
  }
  co_await wr(E1000_RDBAL, uint32_t(rdba & 0xffffffffu));
  co_await wr(E1000_RDBAH, uint32_t(rdba >> 32));
  co_await wr(E1000_RDLEN, rx_ring_.count * kDescBytes);
  co_await wr(E1000_RDH, 0);
  co_await wr(E1000_RDT, 0);
  if (mac_ >= e1000_82543 && opt_.xsum_rx) {
    uint32_t rxcsum = co_await rd(E1000_RXCSUM);
    co_await wr(E1000_RXCSUM, rxcsum | E1000_RXCSUM_TUOFL);
  }
  co_await wr(E1000_RCTL, rctl);
}

// ---------------------------------------------------------------------------------------------
// receive

Task<void> Adapter::alloc_rx_buffers(int cleaned_count) {
  Kernel& k = kernel();
  Ring& r = rx_ring_;
  constexpr unsigned reserve_len = E1000_RX_RESERVE_LEN;
  unsigned i = r.next_to_use;
  // Up to 6.0.60: refill every empty slot from next_to_use (while (!buffer_info->skb)). With
  // copybreak (6.3.9's form): the slots cleaned, a slot whose buffer the copybreak kept is
  // re-mapped (skb_trim + pci_map_single) without an allocation.
  for (;;) {
    Buffer& b = r.buffer_info[i];
    if (cleaned_count < 0 ? bool(b.skb) : cleaned_count-- == 0) break;
    co_await k.cost(costs_[Path::e1000_alloc_rx_buffers]);
    if (!b.skb) {
      SkbPtr skb = co_await k.dev_alloc_skb(rx_buffer_len_ + reserve_len);
      skb->reserve(reserve_len);
      skb->dev = this;
      b.skb = std::move(skb);
    } else {
      b.skb->trim(0);
    }
    b.length = rx_buffer_len_;
    b.dma = k.pci_map_single(*b.skb, DmaDir::FromDevice);
    uint8_t d[kDescBytes];
    encode_rx_desc(d, b.dma);
    k.mem_write(r.dma + uint64_t(i) * kDescBytes, d, kDescBytes);
    if (i % E1000_RX_BUFFER_WRITE == 0) {  // hand buffers to the NIC 16 at a time
      co_await wr(E1000_RDT, i);
      ++*c_rdt_writes_;
    }
    i = (i + 1) % r.count;
  }
  r.next_to_use = i;
}


Task<sc_time> Adapter::load_rx_desc(unsigned i, RxDescView& desc) {
  Kernel& k = kernel();
  const uint64_t a = rx_ring_.dma + uint64_t(i) * kDescBytes;
  const sc_time t0 = now();
  const unsigned misses = co_await k.load_dma_lines(a, kDescBytes, 0, "RX descriptor");
  uint8_t d[kDescBytes];
  k.mem_read(a, d, kDescBytes);
  desc = decode_rx_desc(d);
  co_return misses ? t0 : SC_ZERO_TIME;
}

Task<bool> Adapter::clean_rx_irq(sc_time t_pass, int* work_done, int work_to_do) {
  Kernel& k = kernel();
  Ring& r = rx_ring_;
  const bool napi = work_done != nullptr;
  bool cleaned = false;
  unsigned cleaned_count = 0;
  unsigned i = r.next_to_clean;
  RxDescView desc;
  sc_time desc_miss_at = co_await load_rx_desc(i, desc);  // rx_desc->status: a miss once the NIC wrote it back
  while (desc.status & E1000_RXD_STAT_DD) {
    if (napi) {
      if (*work_done >= work_to_do) break;
      ++*work_done;
    }
    cleaned = true;
    ++cleaned_count;
    Buffer& b = r.buffer_info[i];
    const unsigned next = (i + 1) % r.count;
    if (opt_.rx_prefetch) {  // 6.3.9 / 7.0.33: prefetch(skb->data - NET_IP_ALIGN), prefetch(next_rxd)
      k.prefetch(b.skb->data_phys() - 2);
      k.prefetch(r.dma + uint64_t(next) * kDescBytes);
    }
    const uint32_t length = desc.length;
    const bool good = (desc.status & E1000_RXD_STAT_EOP) && !(desc.errors & E1000_RXD_ERR_FRAME_ERR_MASK) &&
                      length >= ENET_HEADER_SIZE + ETHERNET_FCS_SIZE;
    const JourneyId j = dma_tags().take(space_, b.dma);
    if (good) mark_rx_journey(kernel(), j, t_pass, desc_miss_at);  // the driver has reached this frame's descriptor
    co_await k.cost(costs_[Path::e1000_clean_rx_irq]);
    SkbPtr skb = std::move(b.skb);
    k.pci_unmap_single(*skb, std::min<uint32_t>(length, b.length), DmaDir::FromDevice);
    if (!good) {
      // A frame spanning buffers ("All receives must fit into a single buffer") or with a frame
      // error: dropped (TBI_ACCEPT applies to fiber only).
      k.dev_kfree_skb_irq(std::move(skb));
    } else {
      if (opt_.copybreak && length - ETHERNET_FCS_SIZE < opt_.copybreak) {
        skb = co_await rx_copybreak(b, std::move(skb), length - ETHERNET_FCS_SIZE, j);
      } else {
        skb->put(length - ETHERNET_FCS_SIZE);
        // eth_type_trans reads the Ethernet header: the NIC's DMA of the frame invalidated its line.
        co_await k.load_dma_lines(skb->data_phys(), ETH_HLEN, j, "RX frame header");
      }
      // e1000_rx_checksum: trust the hardware's TCP checksum on 82543+ when it computed one.
      if (mac_ < e1000_82543 || (desc.status & E1000_RXD_STAT_IXSM) || !(desc.status & E1000_RXD_STAT_TCPCS)) {
        skb->ip_summed = CHECKSUM_NONE;
      } else if (desc.errors & E1000_RXD_ERR_TCPE) {
        skb->ip_summed = CHECKSUM_NONE;  // "let the stack verify checksum errors"
        ++hw_csum_err_;
      } else {
        skb->ip_summed = CHECKSUM_UNNECESSARY;
        ++hw_csum_good_;
      }
      k.eth_type_trans(*skb, *this);
      skb->journey = j;
      if (napi) co_await k.netif_receive_skb(std::move(skb));
      else co_await k.netif_rx(std::move(skb));
    }
    const uint8_t zero = 0;  // rx_desc->status = 0
    k.mem_write(r.dma + uint64_t(i) * kDescBytes + kRxdStatusOff, &zero, 1);
    i = next;
    const sc_time next_miss_at = co_await load_rx_desc(i, desc);
    desc_miss_at = next_miss_at;
  }
  r.next_to_clean = i;
  co_await alloc_rx_buffers(profile_->copybreak ? static_cast<int>(cleaned_count) : -1);
  co_return cleaned;
}

// ---------------------------------------------------------------------------------------------
// transmit

Task<int> Adapter::hard_start_xmit(SkbPtr& skb) {
  Kernel& k = kernel();
  Ring& r = tx_ring_;
  co_await k.cost(costs_[Path::e1000_xmit_frame]);
  if (profile_->tx_reclaim_in_xmit) co_await clean_tx_irq();  // 4.2.x: reclaim before queuing
  unsigned count = txd_use_count(skb->len, max_data_per_txd_);
  if (count == 0) {  // zero-length skb: thrown away
    co_await k.kfree_skb(std::move(skb));
    co_return 0;
  }
  // CHECKSUM_HW needs a context descriptor; its offsets come from the transport header.
  const bool csum = skb->ip_summed == CHECKSUM_HW && skb->h_off > skb->data_off && skb->nh_off >= skb->data_off;
  if (csum) ++count;
  if (desc_unused(r.count, r.next_to_use, r.next_to_clean) < count) {
    netif_stop_queue();
    ++*c_tx_busy_;
    co_return 1;
  }
  uint32_t txd_lower = txd_cmd_, txd_upper = 0;
  uint8_t d[kDescBytes];
  if (csum) {  // e1000_tx_csum
    const uint8_t css = static_cast<uint8_t>(skb->h_off - skb->data_off);
    const uint8_t proto = skb->buf.at(skb->nh_off + 9);
    const uint8_t cso = static_cast<uint8_t>(css + (proto == 17 ? 6 : 16));  // UDP / TCP check field
    encode_tx_context_desc(d, css, cso, txd_cmd_ | E1000_TXD_CMD_DEXT);
    k.mem_write(r.dma + uint64_t(r.next_to_use) * kDescBytes, d, kDescBytes);
    r.next_to_use = (r.next_to_use + 1) % r.count;
    txd_lower |= E1000_TXD_CMD_DEXT | E1000_TXD_DTYP_D;
    txd_upper |= uint32_t(E1000_TXD_POPTS_TXSM) << 8;
  }
  // e1000_tx_map: one buffer per max_data_per_txd bytes of the linear skb.
  const uint64_t base = k.pci_map_single(*skb, DmaDir::ToDevice);
  const unsigned first = r.next_to_use;
  unsigned i = first, last = first, n = 0, off = 0, len = skb->len;
  while (len) {
    const unsigned size = std::min(len, max_data_per_txd_);
    Buffer& b = r.buffer_info[i];
    b.length = size;
    b.dma = base + off;
    b.time_stamp = k.jiffies();
    len -= size;
    off += size;
    ++n;
    last = i;
    i = (i + 1) % r.count;
  }
  // e1000_tx_queue: the descriptors, EOP on the last.
  for (unsigned c = 0, x = first; c < n; ++c, x = (x + 1) % r.count) {
    uint32_t lower = txd_lower | r.buffer_info[x].length;
    if (c + 1 == n) lower |= E1000_TXD_CMD_EOP;
    encode_tx_desc(d, r.buffer_info[x].dma, lower, txd_upper);
    k.mem_write(r.dma + uint64_t(x) * kDescBytes, d, kDescBytes);
  }
  const JourneyId j = skb->journey;
  dma_tags().tag(space_, r.buffer_info[first].dma, j);
  r.buffer_info[last].skb = std::move(skb);
  r.next_to_use = i;
  k.mark(j, "doorbell");
  co_await wr(E1000_TDT, i);
  ++*c_tdt_writes_;
  // The frame now belongs to the NIC: this CPU context no longer works for it.
  if (Cpu* c = Cpu::running_cpu_or_null(); c && c->running() && c->running()->journey == j) {
    c->running()->journey = 0;
    c->running()->stage.clear();
  }
  co_return 0;
}

Task<bool> Adapter::clean_tx_irq() {
  if (tx_cleaning_) co_return false;  // the reclaim in xmit is cleaning; it takes what this call would
  tx_cleaning_ = true;
  Kernel& k = kernel();
  Ring& r = tx_ring_;
  unsigned i = r.next_to_clean;
  // tx_desc->upper.data: the NIC's status write-back (DD) invalidated the descriptor's line.
  auto status_of = [&](unsigned x) -> Task<uint8_t> {
    const uint64_t a = r.dma + uint64_t(x) * kDescBytes + kTxdUpperOff;
    co_await k.load_dma_lines(a, 1, 0, "TX descriptor write-back");
    uint8_t s = 0;
    k.mem_read(a, &s, 1);
    co_return s;
  };
  bool cleaned = false;
  for (;;) {
    const uint8_t status = co_await status_of(i);
    if (!(status & E1000_TXD_STAT_DD)) break;
    cleaned = true;
    co_await k.cost(costs_[Path::e1000_clean_tx_irq]);
    Buffer& b = r.buffer_info[i];
    if (b.dma) {  // pci_unmap_page: nothing to copy back for a transmit buffer
      dma_tags().tag(space_, b.dma, 0);
      b.dma = 0;
    }
    // dev_kfree_skb_any: in hard IRQ context (2.4 ISR) onto the completion queue; in the NAPI poll
    // (softirq, IRQs on) freed at once (2.6 net/core/dev.c dev_kfree_skb_any: in_irq() || irqs_disabled()).
    if (b.skb && profile_->napi) co_await k.kfree_skb(std::move(b.skb));
    else if (b.skb) k.dev_kfree_skb_irq(std::move(b.skb));
    const uint8_t zero[4] = {0, 0, 0, 0};                // tx_desc->upper.data = 0
    k.mem_write(r.dma + uint64_t(i) * kDescBytes + kTxdUpperOff, zero, 4);
    i = (i + 1) % r.count;
  }
  r.next_to_clean = i;
  tx_cleaning_ = false;
  if (netif_queue_stopped() && netif_carrier_ok() &&
      desc_unused(r.count, r.next_to_use, r.next_to_clean) > E1000_TX_QUEUE_WAKE)
    netif_wake_queue();
  co_return cleaned;
}

// ---------------------------------------------------------------------------------------------
// interrupt handler

Task<void> Adapter::intr() {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::e1000_intr]);
  ++*c_intr_;
  unsigned reads = 0;
  bool first_zero = false;
  unsigned i = E1000_MAX_INTR;
  while (i) {  // while (i && (icr = E1000_READ_REG(&adapter->hw, ICR)))
    const sc_time t_pass = now();
    const uint32_t icr = co_await rd(E1000_ICR);
    ++reads;
    ++*c_icr_reads_;
    if (!icr) {
      first_zero = reads == 1;
      break;
    }
    if (icr & (E1000_ICR_RXSEQ | E1000_ICR_LSC)) {  // link change: let the watchdog look now
      get_link_status_ = true;
      k.mod_timer(watchdog_timer_, k.jiffies());
    }
    co_await clean_rx_irq(t_pass);
    if (!profile_->tx_clean_needs_txdw || (icr & E1000_ICR_TXDW)) co_await clean_tx_irq();
    --i;
  }
  if (first_zero) ++*c_icr_zero_;  // not ours (shared line) or already handled
  if (i == 0) ++*c_loop_limit_;
  ++isr_reads_[reads];
}

// ---------------------------------------------------------------------------------------------
// watchdog (timer callback, TIMER_BH)

Task<void> Adapter::update_stats() {
  // (GCC 12 miscompiles co_await inside a larger expression when the awaited coroutine suspends;
  // every co_await here is a full statement or an initializer.)
  auto add = [&](uint64_t& acc, uint32_t reg) -> Task<void> {
    const uint32_t v = co_await rd(reg);
    acc += v;
  };
  uint64_t ignore = 0;
  co_await add(stats_.crcerrs, E1000_CRCERRS);
  co_await add(stats_.gprc, E1000_GPRC);
  co_await add(stats_.gorcl, E1000_GORCL);
  co_await add(stats_.gorch, E1000_GORCH);
  co_await add(stats_.bprc, E1000_BPRC);
  co_await add(stats_.mprc, E1000_MPRC);
  co_await add(stats_.roc, E1000_ROC);
  for (uint32_t reg : {E1000_PRC64, E1000_PRC127, E1000_PRC255, E1000_PRC511, E1000_PRC1023, E1000_PRC1522,
                       E1000_SYMERRS})
    co_await add(ignore, reg);
  co_await add(stats_.mpc, E1000_MPC);
  co_await add(stats_.scc, E1000_SCC);
  co_await add(stats_.ecol, E1000_ECOL);
  co_await add(stats_.mcc, E1000_MCC);
  co_await add(stats_.latecol, E1000_LATECOL);
  co_await add(stats_.dc, E1000_DC);
  co_await add(ignore, E1000_SEC);
  co_await add(stats_.rlec, E1000_RLEC);
  co_await add(stats_.xonrxc, E1000_XONRXC);
  co_await add(stats_.xontxc, E1000_XONTXC);
  co_await add(stats_.xoffrxc, E1000_XOFFRXC);
  co_await add(stats_.xofftxc, E1000_XOFFTXC);
  co_await add(ignore, E1000_FCRUC);
  co_await add(stats_.gptc, E1000_GPTC);
  co_await add(stats_.gotcl, E1000_GOTCL);
  co_await add(stats_.gotch, E1000_GOTCH);
  co_await add(stats_.rnbc, E1000_RNBC);
  co_await add(stats_.ruc, E1000_RUC);
  for (uint32_t reg : {E1000_RFC, E1000_RJC, E1000_TORL, E1000_TORH, E1000_TOTL, E1000_TOTH})
    co_await add(ignore, reg);
  co_await add(stats_.tpr, E1000_TPR);
  for (uint32_t reg : {E1000_PTC64, E1000_PTC127, E1000_PTC255, E1000_PTC511, E1000_PTC1023, E1000_PTC1522,
                       E1000_MPTC, E1000_BPTC})
    co_await add(ignore, reg);
  co_await add(stats_.tpt, E1000_TPT);  // used for adaptive IFS
  co_await add(stats_.colc, E1000_COLC);
  if (mac_ >= e1000_82543) {
    co_await add(stats_.algnerrc, E1000_ALGNERRC);
    co_await add(stats_.rxerrc, E1000_RXERRC);
    co_await add(stats_.tncrs, E1000_TNCRS);
    co_await add(stats_.cexterr, E1000_CEXTERR);
    co_await add(ignore, E1000_TSCTC);
    co_await add(ignore, E1000_TSCTFC);
  }
  // The OS statistics come from the hardware counters (e1000_update_stats).
  stats.rx_packets = stats_.gprc;
  stats.tx_packets = stats_.gptc;
  stats.rx_bytes = stats_.gorcl;
  stats.tx_bytes = stats_.gotcl;
  stats.multicast = stats_.mprc;
  stats.collisions = stats_.colc;
  stats.rx_errors = stats_.rxerrc + stats_.crcerrs + stats_.algnerrc + stats_.rlec + stats_.rnbc + stats_.mpc +
                    stats_.cexterr;
  stats.rx_dropped = stats_.rnbc;
  stats.rx_crc_errors = stats_.crcerrs;
  stats.rx_fifo_errors = stats_.mpc;
  stats.tx_errors = stats_.ecol + stats_.latecol;
  if (copper_) {  // PHY idle-error and receive-error counters
    if (link_speed_ == 1000) (void)co_await read_phy(PHY_1000T_STATUS);
    if (mac_ <= e1000_82546) (void)co_await read_phy(M88E1000_RX_ERR_CNTR);
  }
}

std::vector<std::pair<std::string, uint64_t>> Adapter::net_stats() const {
  // e1000_update_stats "Fill out the OS statistics structure" (4.4.12-k1, LH@2.4.20; the same
  // assignments in 5.0.43-k1): the hardware counters as accumulated at the last watchdog.
  const HwStats& h = stats_;
  return {{"rx_packets", stats.rx_packets},
          {"tx_packets", stats.tx_packets},
          {"rx_bytes", stats.rx_bytes},
          {"tx_bytes", stats.tx_bytes},
          {"rx_errors", stats.rx_errors},
          {"tx_errors", stats.tx_errors},
          {"rx_dropped", stats.rx_dropped},
          {"tx_dropped", stats.tx_dropped},  // "Tx Dropped needs to be maintained elsewhere"
          {"multicast", stats.multicast},
          {"collisions", stats.collisions},
          {"rx_length_errors", h.rlec},
          {"rx_over_errors", 0},
          {"rx_crc_errors", stats.rx_crc_errors},
          {"rx_frame_errors", h.algnerrc},
          {"rx_fifo_errors", stats.rx_fifo_errors},
          {"rx_missed_errors", h.mpc},
          {"tx_aborted_errors", h.ecol},
          {"tx_carrier_errors", h.tncrs},
          {"tx_fifo_errors", 0},
          {"tx_heartbeat_errors", 0},
          {"tx_window_errors", h.latecol}};
}

std::string Adapter::ethtool_stats_text() const {
  switch (profile_->stats_view) {
    case DriverProfile::StatsView::proc_pro_lan:
      return ethtool_stats_listing({});
    case DriverProfile::StatsView::ethtool_net_stats:
      return ethtool_stats_listing(net_stats());
    case DriverProfile::StatsView::unread:
      break;
  }
  return "";
}

std::string Adapter::proc_pro_lan_info() const {
  if (profile_->stats_view != DriverProfile::StatsView::proc_pro_lan) return "";
  // e1000_proc_list_setup (4.4.12-k1 e1000_proc.c), from LIST_ADD_F("Link") on; tags printed by
  // e1000_proc_info_read as "%-*.*s %.*s\n" with TAG_MAX_LENGTH 32; an empty tag is a blank line.
  std::vector<std::pair<std::string, std::string>> rows;
  auto u = [&](const char* tag, uint64_t v) { rows.emplace_back(tag, std::to_string(v)); };
  auto blank = [&] { rows.emplace_back("", ""); };
  // e1000_proc_link: netif_running ? (netif_carrier_ok ? "up" : "down") : "N/A".
  rows.emplace_back("Link", NetDevice::up ? (netif_carrier_ok() ? "up" : "down") : "N/A");
  rows.emplace_back("Speed", link_speed_ ? std::to_string(link_speed_) : "N/A");
  rows.emplace_back("Duplex", link_speed_ ? (full_duplex_ ? "Full" : "Half") : "N/A");
  rows.emplace_back("State", NetDevice::up ? "up" : "down");  // IFF_UP
  blank();
  static const char* const kTags[] = {
      "Rx_Packets",        "Tx_Packets",        "Rx_Bytes",          "Tx_Bytes",         "Rx_Errors",
      "Tx_Errors",         "Rx_Dropped",        "Tx_Dropped",        "Multicast",        "Collisions",
      "Rx_Length_Errors",  "Rx_Over_Errors",    "Rx_CRC_Errors",     "Rx_Frame_Errors",  "Rx_FIFO_Errors",
      "Rx_Missed_Errors",  "Tx_Aborted_Errors", "Tx_Carrier_Errors", "Tx_FIFO_Errors",   "Tx_Heartbeat_Errors",
      "Tx_Window_Errors"};
  const auto ns = net_stats();
  for (size_t i = 0; i < ns.size(); ++i) u(kTags[i], ns[i].second);
  // 8254x-specific stats
  u("Tx_Abort_Late_Coll", stats_.latecol);
  u("Tx_Deferred_Ok", stats_.dc);
  u("Tx_Single_Coll_Ok", stats_.scc);
  u("Tx_Multi_Coll_Ok", stats_.mcc);
  u("Rx_Long_Length_Errors", stats_.roc);
  u("Rx_Short_Length_Errors", stats_.ruc);
  if (mac_ >= e1000_82543) u("Rx_Align_Errors", stats_.algnerrc);  // the 82542 has no ALGNERRC
  u("Rx_Flow_Control_XON", stats_.xonrxc);
  u("Rx_Flow_Control_XOFF", stats_.xoffrxc);
  u("Tx_Flow_Control_XON", stats_.xontxc);
  u("Tx_Flow_Control_XOFF", stats_.xofftxc);
  u("Rx_CSum_Offload_Good", hw_csum_good_);
  u("Rx_CSum_Offload_Errors", hw_csum_err_);
  std::string s;
  for (auto& [tag, value] : rows) s += tag.empty() ? "\n" : fmt::format("{:<32} {}\n", tag, value);
  return s + "\n";  // e1000_proc_read appends a newline to the page
}

unsigned Adapter::tx_pending() const {
  if (tx_ring_.buffer_info.empty()) return 0;
  unsigned n = 0;
  for (const Buffer& b : tx_ring_.buffer_info) n += b.skb ? 1 : 0;
  return n;
}

Task<void> Adapter::tx_flush() {
  // e1000_tx_flush (5.0.43-k1, LH@2.4.21 e1000_main.c l.1243), 82543 and later.
  Kernel& k = kernel();
  const unsigned n = tx_pending();
  const uint32_t ctrl = co_await rd(E1000_CTRL);
  const uint32_t txcw = co_await rd(E1000_TXCW);
  co_await wr(E1000_TXCW, txcw & ~E1000_TXCW_ANE);
  co_await wr(E1000_CTRL, ctrl | E1000_CTRL_SLU | E1000_CTRL_ILOS);  // force link up
  co_await CpuBurn{ms(10)};  // mdelay(10)
  (void)co_await clean_tx_irq();
  co_await wr(E1000_CTRL, ctrl);
  co_await wr(E1000_TXCW, txcw);
  (void)co_await rd(E1000_ICR);  // "clear the link status change interrupts this caused"
  *c_tx_flushed_ += n - tx_pending();
  run_events().note(now(), k.host() + "." + name(), "TX ring flushed",
                    fmt::format("e1000_tx_flush: {} frames sent onto a forced link", n - tx_pending()));
}

Task<void> Adapter::watchdog() {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::e1000_watchdog]);
  ++*c_watchdog_;
  co_await check_for_link();
  const uint32_t status = co_await rd(E1000_STATUS);
  if (status & E1000_STATUS_LU) {
    if (!netif_carrier_ok()) {  // "NIC Link is Up": e1000_get_speed_and_duplex, carrier on, wake the queue
      const uint32_t s = co_await rd(E1000_STATUS);
      link_speed_ = (s & E1000_STATUS_SPEED_1000) ? 1000 : (s & E1000_STATUS_SPEED_100) ? 100 : 10;
      full_duplex_ = s & E1000_STATUS_FD;
      netif_carrier_on();
      netif_wake_queue();
      run_events().note(now(), k.host() + "." + name(), "carrier on",
                        fmt::format("e1000: {} NIC Link is Up {} Mbps", name(), link_speed_));
    }
  } else if (netif_carrier_ok()) {  // "NIC Link is Down"
    link_speed_ = 0;
    netif_carrier_off();
    netif_stop_queue();
    run_events().note(now(), k.host() + "." + name(), "carrier off",
                      fmt::format("e1000: {} NIC Link is Down; {} frames in the TX ring", name(), tx_pending()));
  }
  // Frames posted while the link is down (DriverProfile::link_loss_tx).
  if (!netif_carrier_ok() && tx_pending() > 0) {
    if (profile_->link_loss_tx == DriverProfile::LinkLossTx::flush) {
      co_await tx_flush();
    } else if (profile_->link_loss_tx == DriverProfile::LinkLossTx::reset) {
      // schedule_work(&adapter->tx_timeout_task): e1000_down + e1000_up in keventd (here at once,
      // from the watchdog; the work item runs at the next schedule of keventd).
      const unsigned n = tx_pending();
      *c_tx_reset_freed_ += n;
      run_events().note(now(), k.host() + "." + name(), "TX ring reset",
                        fmt::format("tx_timeout_task: e1000_down + e1000_up free {} frames", n));
      co_await down();
      (void)co_await up();
      co_return;  // e1000_up re-arms the watchdog
    }
  }
  co_await update_stats();
  if (profile_->itr_param && mac_ >= e1000_82540 && opt_.itr == 1) {
    // 5.x dynamic mode: the good octets of the last 2 s choose 2000..8000 interrupts/s.
    const uint32_t gotcl = static_cast<uint32_t>(stats_.gotcl - gotcl_old_);
    const uint32_t gorcl = static_cast<uint32_t>(stats_.gorcl - gorcl_old_);
    gotcl_old_ = stats_.gotcl;
    gorcl_old_ = stats_.gorcl;
    co_await wr(E1000_ITR, itr_interval(dynamic_itr_rate(gotcl, gorcl)));
  }
  co_await wr(E1000_ICS, E1000_ICS_RXDMT0);  // software interrupt: make sure the RX ring is cleaned
  // Early detection of a hung transmitter.
  if (!tx_ring_.buffer_info.empty()) {
    const Buffer& b = tx_ring_.buffer_info[tx_ring_.next_to_clean];
    const uint64_t hz = k.params().hz;
    if (b.dma && k.jiffies() > b.time_stamp + hz) {
      const uint32_t st = co_await rd(E1000_STATUS);
      if (!(st & E1000_STATUS_TXOFF)) netif_stop_queue();
    }
  }
  k.mod_timer(watchdog_timer_, k.jiffies() + 2 * k.params().hz);
}

}  // namespace nicsim::e1000drv
