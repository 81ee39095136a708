// Register-level test bench for the BCM5701 model, no driver: the 8254x bench's fake host memory
// (fixed bus rule: 60 ns + 3.75 ns/byte per transaction, one at a time), IRQ sink, CPU stand-in and
// link peer; helpers lay out the rings, the RCBs in NIC SRAM and the coalescing registers the way
// tg3_reset_hw does. Tests compute expected times from the rules, not from a run.
#pragma once
#include "tests/unit/nic_e1000_bench.h"
#include "models/nic/tg3/tg3.h"

namespace bench5701 {

using namespace nicsim;
using namespace nicsim::tg3;
using bench::dma_time;
using bench::FakePeer;
using bench::HostMem;
using bench::IrqSink;
using bench::make_frame;
using bench::run;
using bench::txn_time;
using bench::wait_until;

inline constexpr uint64_t kStatus = 0x1000, kStats = 0x2000, kStdRing = 0x10000, kRetRing = 0x20000,
                          kRxBufs = 0x100000, kTxBufs = 0x200000;
inline constexpr unsigned kRxBufBytes = 1536 + 64;  // RX_PKT_BUF_SZ with rx_offset 0 (tg3.c)

struct Bench {
  static constexpr uint64_t kBar = 0xF0000000;
  static constexpr double kCableM = 2.0;
  HostMem host{"host", 8 << 20};
  bench::Cpu cpu{"cpu"};
  std::unique_ptr<Tg3> nic;
  IrqSink irq;
  FakePeer peer{"peer"};
  std::unique_ptr<EthLink> link;

  explicit Bench(Tg3Params p = {}) {
    p.clock_ppm = 0;
    nic = std::make_unique<Tg3>("nic", p);
    cpu.socket.bind(nic->pci_target());
    nic->dma_initiator().bind(host.socket);
    nic->set_bar(0, kBar);
    nic->irq_out(0).bind(irq);
    link = std::make_unique<EthLink>("link", 1000, kCableM, *nic, peer);
  }
  void w(uint32_t off, uint32_t v) { cpu.write32(kBar + off, v); }
  uint32_t r(uint32_t off) { return cpu.read32(kBar + off); }
  void mbox(uint32_t mb, uint32_t v) { w(mb + TG3_64BIT_REG_LOW, v); }
  /// NIC SRAM word through the window (TG3PCI_MEM_WIN_BASE_ADDR left at 0).
  void sram(uint32_t a, uint32_t v) { w(NIC_SRAM_WIN_BASE + a, v); }

  /// The coalescing registers, status block address, HOSTCC_MODE_ENABLE | 32BYTE, DMA_RWCTRL as
  /// tg3 0.99 on a 5701 in PCI-X mode, MAC TX/RX enabled, interrupts unmasked, mailbox 0 = 0.
  void setup(const CoalRegs& c) {
    w(TG3PCI_DMA_RW_CTRL, (0x7u << DMA_RWCTRL_PCI_WRITE_CMD_SHIFT) | (0x6u << DMA_RWCTRL_PCI_READ_CMD_SHIFT) |
                              DMA_RWCTRL_USE_MEM_READ_MULT);
    w(HOSTCC_RXCOL_TICKS, c.rx_ticks);
    w(HOSTCC_TXCOL_TICKS, c.tx_ticks);
    w(HOSTCC_RXMAX_FRAMES, c.rx_max_frames);
    w(HOSTCC_TXMAX_FRAMES, c.tx_max_frames);
    w(HOSTCC_RXCOAL_TICK_INT, c.rx_ticks_int);
    w(HOSTCC_TXCOAL_TICK_INT, c.tx_ticks_int);
    w(HOSTCC_RXCOAL_MAXF_INT, c.rx_max_frames_int);
    w(HOSTCC_TXCOAL_MAXF_INT, c.tx_max_frames_int);
    w(HOSTCC_STATUS_BLK_HOST_ADDR + TG3_64BIT_REG_HIGH, 0);
    w(HOSTCC_STATUS_BLK_HOST_ADDR + TG3_64BIT_REG_LOW, uint32_t(kStatus));
    w(HOSTCC_STATS_BLK_HOST_ADDR + TG3_64BIT_REG_HIGH, 0);
    w(HOSTCC_STATS_BLK_HOST_ADDR + TG3_64BIT_REG_LOW, uint32_t(kStats));
    sram(NIC_SRAM_SEND_RCB + TG3_BDINFO_NIC_ADDR, NIC_SRAM_TX_BUFFER_DESC);
    sram(NIC_SRAM_RCV_RET_RCB + TG3_BDINFO_HOST_ADDR, 0);
    sram(NIC_SRAM_RCV_RET_RCB + TG3_BDINFO_HOST_ADDR + 4, uint32_t(kRetRing));
    sram(NIC_SRAM_RCV_RET_RCB + TG3_BDINFO_MAXLEN_FLAGS, 1024u << BDINFO_FLAGS_MAXLEN_SHIFT);
    w(RCVDBDI_STD_BD + TG3_BDINFO_HOST_ADDR, 0);
    w(RCVDBDI_STD_BD + TG3_BDINFO_HOST_ADDR + 4, uint32_t(kStdRing));
    w(RCVDBDI_STD_BD + TG3_BDINFO_MAXLEN_FLAGS, 1536u << BDINFO_FLAGS_MAXLEN_SHIFT);
    w(HOSTCC_MODE, HOSTCC_MODE_ENABLE | HOSTCC_MODE_32BYTE);
    w(MAC_TX_MODE, TX_MODE_ENABLE);
    w(MAC_RX_MODE, RX_MODE_ENABLE);
    mbox(MAILBOX_INTERRUPT_0, 0);
    w(TG3PCI_MISC_HOST_CTRL, 0);
  }
  /// `n` std ring BDs with buffers of kRxBufBytes, posted with the producer mailbox.
  void post_rx(unsigned n) {
    for (unsigned i = 0; i < n; ++i) {
      uint8_t d[RXD_SIZE] = {};
      st_hilo(d + RXD_ADDR_HI, kRxBufs + uint64_t(i) * 2048);
      st32(d + RXD_IDX_LEN, kRxBufBytes);
      st32(d + RXD_TYPE_FLAGS, RXD_FLAG_END);
      st32(d + RXD_OPAQUE, RXD_OPAQUE_RING_STD | i);
      host.write(kStdRing + uint64_t(i) * RXD_SIZE, d, RXD_SIZE);
    }
    mbox(MAILBOX_RCV_STD_PROD_IDX, n);
  }
  /// A one-BD frame at send BD `idx` (PIO into NIC SRAM), data at kTxBufs + idx·2048; no mailbox.
  void put_tx(unsigned idx, const std::vector<uint8_t>& bytes) {
    const uint64_t buf = kTxBufs + uint64_t(idx) * 2048;
    host.write(buf, bytes.data(), bytes.size());
    const uint32_t a = NIC_SRAM_TX_BUFFER_DESC + idx * TXD_SIZE;
    sram(a + 0, uint32_t(buf >> 32));
    sram(a + 4, uint32_t(buf));
    sram(a + 8, uint32_t(bytes.size()) << TXD_LEN_SHIFT | TXD_FLAG_END);
    sram(a + 12, 0);
  }
  uint32_t sb32(unsigned off) const {
    uint8_t b[4];
    host.read(kStatus + off, b, 4);
    return ld32(b);
  }
  uint16_t sb16(unsigned off) const {
    uint8_t b[2];
    host.read(kStatus + off, b, 2);
    return ld16(b);
  }
  void clear_updated() {
    uint8_t z[4] = {};
    host.write(kStatus + SB_STATUS, z, 4);
  }
};

/// When a frame of `len` bytes sent by the peer at `start` is in the chip's RX mbuf pool.
inline sc_time rx_fifo_time(const Tg3Params& p, const sc_time& start, unsigned len) {
  return start + serialization_time(len, 1000) + propagation_delay(Bench::kCableM, 5.0) + p.phy_rx_latency +
         p.mac_rx_latency;
}
/// RX DMA of a frame of `len` bytes (+4 FCS) in bursts of `burst`, then its 32-byte return BD.
inline sc_time rx_dma(unsigned len, unsigned burst = 256) { return dma_time(len + 4, burst) + txn_time(RXD_SIZE); }

}  // namespace bench5701
