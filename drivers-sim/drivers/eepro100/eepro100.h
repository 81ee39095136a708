// Linux eepro100 driver model: Intel EtherExpress Pro/100 (8255x: 82557, 82558 A4/B0, 82559) as in
// Linux 2.4.18-2.4.20, Donald Becker's "eepro100.c:v1.09j-t 9/29/99" with Andrey Savochkin's
// "$Revision: 1.36 $ 2000/11/17" (read in oct-month/linux-kernel-2.4.18 drivers/net/eepro100.c
// @375b8653; research/seeds-001-004-platforms-drivers.md §2.3). Names are the driver's.
//
// What the model does, following eepro100.c:
//  * probe (eepro100_init_one -> speedo_found1, in an "insmod eepro100" process at time 0): the
//    TxFD ring + speedo_stats block (pci_alloc_consistent), the serial EEPROM read bit by bit through
//    SCBeeprom in I/O space (do_eeprom_cmd with io_outw/io_inw: "Use IO only to avoid postponed
//    writes", size probe EE_READ_CMD << 24, then every word; station address = words 0-2; checksum
//    0xBABA checked and only reported), PortReset, the PortSelfTest into the ring memory (polled
//    every udelay(10)), PortReset again; rx_bug from EEPROM word 3. The DP83840 set-up and the
//    forced-media mdio_write (options bits 4/5) are done only when they apply.
//  * speedo_open: request_irq (SA_SHIRQ); speedo_init_rx_ring (RX_RING_SIZE 64 skbs of PKT_BUF_SZ
//    1536 + the 16-byte RxFD at the skb head, skb_reserve(16); each RxFD status 1, link of the previous
//    set, rx_buf_addr 0xffffffff, count PKT_BUF_SZ << 16; the last 0xC0000002 = EL|S);
//    outw(SCBMaskAll); speedo_resume (segment bases 0 by RxAddrLoad/CUCmdBase, CUStatsAddr,
//    RxStart at cur_rx, CUDumpStats, the IA Setup in TxFD 0 pre-marked 0xa000 with CmdSuspend,
//    CUStart with SCBMaskEarlyRx | SCBMaskFlowCtl: CX, FR, CNA and RNR interrupts enabled);
//    netif_start_queue; set_rx_mode (CmdConfigure from i82558_config_cmd with txfifo/rxfifo in byte 1,
//    rxdmacount/txdmacount+0x80 in bytes 4/5, byte 19 0x84 (+0x40 full_duplex), byte 21 0x05, then
//    the CmdMulticastList for 0 addresses, each with clear_suspend + CUResume); the MII advertising,
//    BMSR link status -> carrier, and BMCR reads; speedo_timer armed at 2.4 s.
//  * speedo_start_xmit: the next TxFD (flexible mode: CmdSuspend | CmdTx | CmdTxFlex, CmdIntr when
//    entry % (TX_RING_SIZE/4) == 0, i.e. every 16th; link to the next TxFD; TBD array = its own
//    tx_buf_addr0; count = tx_threshold 0x01208000: one TBD, threshold 0x20 x 8 bytes; one buffer:
//    the skb data, one frame per TxCB), wait_for_cmd_done, clear_suspend(last_cmd), outb(CUResume),
//    queue stopped at TX_QUEUE_LIMIT (TX_RING_SIZE - 4) entries in flight. The ring and the resume run
//    with interrupts off (spin_lock_irqsave).
//  * speedo_interrupt: up to max_interrupt_work + 1 passes of { status = inw(SCBStatus);
//    outw(status & 0xfc00, SCBStatus); stop when (status & 0xfc00) == 0; speedo_rx on FR|RNR (0x5000)
//    or a postponed packet; speedo_refill_rx_buffers(0); RU soft reset when the RU status says
//    suspended / no resources; speedo_tx_buffer_gc on CX|CNA|SWI (0xA400) and queue wake below
//    TX_QUEUE_UNFULL; after max_interrupt_work passes: outw(0xfc00) and leave }.
//  * speedo_rx: every RxFD with RxComplete (rx_work_limit, the postpone rule for the last linked
//    RxFD): frames of pkt_len < rx_copybreak are copied (eth_copy_and_sum, a memcpy in 2.4) into a
//    dev_alloc_skb(pkt_len + 2) with 2 bytes reserved and the RxFD is reused; larger ones pass the
//    ring skb itself up (unmap, skb_put). eth_type_trans, netif_rx from the hard IRQ. One
//    speedo_refill_rx_buf per frame, then speedo_refill_rx_buffers(1). speedo_rx_link makes the new
//    RxFD the end of list (0xC0000001) and clears EL|S on the previous one.
//  * speedo_tx_buffer_gc: every TxFD from dirty_tx with StatusComplete: unmap, dev_kfree_skb_irq,
//    TxUnderrun raises tx_threshold; stats.
//  * speedo_timer every 2 s (2.4 s first): MII link partner/status (speedo_timeout), set_rx_mode
//    when the rx_bug work-around sees no frame for 2 s; speedo_get_stats is not modelled (no caller).
//
// Register space. This eepro100.c build has no USE_IO defined, so its inb/inw/inl/outb/outw/outl are
// #defined to readb/readw/readl/writeb/writew/writel on the ioremap()ed memory BAR 0 ("Found Intel
// i82557 PCI Speedo, MMIO at ..."); only do_eeprom_cmd uses io_inw/io_outw on the I/O BAR 1.
// The model does the same by default (Options::use_io = false); with use_io = true (a kernel built
// with -DUSE_IO, the "This driver uses the I/O space registers" of its Theory of Operation) every
// SCB access is an x86 IN/OUT to BAR 1 instead. The difference matters for timing: a memory write
// is posted, an I/O write is not.
//
// Approximations: TX_RING_SIZE and RX_RING_SIZE are compile-time (#define) in the driver, as here;
// the 10 Mb/s half-duplex work-around (chip_id 1: device ids 0x1031-0x1038, 0x2449) and the
// multicast setup frame for more than 3 addresses are not modelled (the modelled parts are 0x1229 and
// no scenario joins a multicast group); pci_dma_sync_single is free (the x86 streaming mapping is a
// no-op); the RU soft reset's stalled-command printks are not modelled.
//
// Journeys (core/journey.h), written here: TX "doorbell" (just before the CU Resume); RX "IRQ
// delivery wait"/"IRQ entry" (Kernel::mark_irq), "ISR" (from the status read of the pass that found
// the frame; cause "ISR already running" when it completed while the handler ran), Kernel::kDmaMissStage
// while the CPU stalls on the RxFD and frame lines the NIC wrote, "driver rx" until netif_rx.
// Counters: <host>.<ifname>.driver.{intr, status_reads, status_zero, isr_loop_limit, cu_resumes,
//   rx_copied, rx_passed_up, tx_reaped, rx_soft_resets, timer}.
#pragma once
#include "core/dma_tags.h"
#include "core/params.h"
#include "drivers-sim/driver_entry.h"
#include "drivers-sim/kernel/kernel.h"
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nicsim {
class PciDevice;
}  // namespace nicsim

namespace nicsim::eepro100drv {

// ---- The driver's own view of the 8255x (eepro100.c enums; not the hardware model's headers) ----
/// enum speedo_offsets: SCB register offsets (bytes).
inline constexpr uint32_t SCBStatus = 0, SCBCmd = 2, SCBPointer = 4, SCBPort = 8, SCBflash = 12, SCBeeprom = 14,
                          SCBCtrlMDI = 16, SCBEarlyRx = 20;
/// enum commands: the 32-bit cmd_status word of a command block (command in bits 31:16).
inline constexpr uint32_t CmdNOp = 0, CmdIASetup = 0x10000, CmdConfigure = 0x20000, CmdMulticastList = 0x30000,
                          CmdTx = 0x40000, CmdTDR = 0x50000, CmdDump = 0x60000, CmdDiagnose = 0x70000,
                          CmdSuspend = 0x40000000, CmdIntr = 0x20000000, CmdTxFlex = 0x00080000;
/// enum SCBCmdBits: the 16-bit SCB command word (interrupt masks high byte, CU/RU command low byte).
inline constexpr uint16_t SCBMaskCmdDone = 0x8000, SCBMaskRxDone = 0x4000, SCBMaskCmdIdle = 0x2000,
                          SCBMaskRxSuspend = 0x1000, SCBMaskEarlyRx = 0x0800, SCBMaskFlowCtl = 0x0400,
                          SCBTriggerIntr = 0x0200, SCBMaskAll = 0x0100, CUStart = 0x0010, CUResume = 0x0020,
                          CUStatsAddr = 0x0040, CUShowStats = 0x0050, CUCmdBase = 0x0060, CUDumpStats = 0x0070,
                          RxStart = 0x0001, RxResume = 0x0002, RxAbort = 0x0004, RxAddrLoad = 0x0006,
                          RxResumeNoResources = 0x0007;
/// enum SCBPort_cmds.
inline constexpr uint32_t PortReset = 0, PortSelfTest = 1, PortPartialReset = 2, PortDump = 3;
/// enum RxFD_bits (status word of an RxFD / TxFD).
inline constexpr uint32_t RxComplete = 0x8000, RxOK = 0x2000, RxErrCRC = 0x0800, RxErrAlign = 0x0400,
                          RxErrTooBig = 0x0200, RxErrSymbol = 0x0010, RxEth2Type = 0x0020, RxNoMatch = 0x0004,
                          RxNoIAMatch = 0x0002, TxUnderrun = 0x1000, StatusComplete = 0x8000;
/// enum Rx_ring_state_bits.
inline constexpr unsigned RrNoMem = 1, RrPostponed = 2, RrNoResources = 4, RrOOMReported = 8;
/// EEPROM_Ctrl bits (do_eeprom_cmd).
inline constexpr uint16_t EE_SHIFT_CLK = 0x01, EE_CS = 0x02, EE_DATA_WRITE = 0x04, EE_DATA_READ = 0x08,
                          EE_ENB = 0x4800 | EE_CS, EE_WRITE_0 = 0x4802, EE_WRITE_1 = 0x4806;
inline constexpr unsigned EE_READ_CMD = 6;
/// MII registers the driver reads (linux/mii.h).
inline constexpr unsigned MII_BMCR = 0, MII_BMSR = 1, MII_ADVERTISE = 4, MII_LPA = 5;
inline constexpr uint16_t BMSR_LSTATUS = 0x0004;
/// PHY chip numbers of EEPROM word 6 bits 13:8 (enum phy_chips).
inline constexpr unsigned DP83840 = 4, DP83840A = 10;

// ---- Compile-time driver constants (#define in eepro100.c) ----
inline constexpr unsigned TX_RING_SIZE = 64, RX_RING_SIZE = 64;
inline constexpr unsigned TX_MULTICAST_SIZE = 2, TX_MULTICAST_RESERV = TX_MULTICAST_SIZE * 2;
inline constexpr unsigned TX_QUEUE_LIMIT = TX_RING_SIZE - TX_MULTICAST_RESERV;  ///< 60 TxFDs in flight
inline constexpr unsigned TX_QUEUE_UNFULL = TX_QUEUE_LIMIT - 4;                 ///< wake hysteresis
inline constexpr unsigned PKT_BUF_SZ = 1536;       ///< RX buffer: MTU + slack
inline constexpr unsigned kRxFDBytes = 16;         ///< sizeof(struct RxFD): status, link, rx_buf_addr, count
inline constexpr unsigned kTxFDBytes = 32;         ///< sizeof(struct TxFD): CB header, TBD ptr, count, 2 TBDs
inline constexpr unsigned TX_DESCR_BUF_OFFSET = 16;  ///< tx_buf_addr0 inside the TxFD
inline constexpr unsigned kStatsBytes = 17 * 4;    ///< sizeof(struct speedo_stats): 16 counters + done_marker
inline constexpr unsigned CONFIG_DATA_SIZE = 22;
inline constexpr uint32_t kTxThresholdStart = 0x01208000;  ///< speedo_resume: 1 TBD, threshold 0x20 (256 B), EOF
inline constexpr uint32_t kTxThresholdMax = 0x01e08000;    ///< speedo_tx_buffer_gc: raised by 0x00040000 per underrun
/// i82558_config_cmd: the CmdConfigure bytes (used for every part in this version).
inline constexpr std::array<uint8_t, CONFIG_DATA_SIZE> i82558_config_cmd = {
    22, 0x08, 0, 1, 0, 0, 0x22, 0x03, 1, 0, 0x2E, 0, 0x60, 0x08, 0x88, 0x68, 0, 0x40, 0xf2, 0x84, 0x31, 0x05};

/// The TxCB command word of ring entry `entry` as speedo_start_xmit writes it (cmd_status >> 16
/// moved back to a 32-bit cmd_status): CmdSuspend | CmdTx | CmdTxFlex, plus CmdIntr when
/// !(entry & ((TX_RING_SIZE >> 2) - 1)).
constexpr uint32_t tx_cmd_status(unsigned entry) {
  return CmdSuspend | CmdTx | CmdTxFlex | (!(entry & ((TX_RING_SIZE >> 2) - 1)) ? CmdIntr : 0u);
}

/// The module parameters (eepro100.c MODULE_PARM; the driver does no range checks of its own).
struct Options {
  int rx_copybreak = 200;        ///< frames shorter than this are copied (1518 on alpha/sparc/mips/arm)
  int max_interrupt_work = 20;   ///< passes of the ISR loop before "Too much work at interrupt"
  int txfifo = 8;                ///< Tx FIFO threshold (config byte 1 bits 7:4), 4-byte units
  int rxfifo = 8;                ///< Rx FIFO threshold (config byte 1 bits 3:0)
  int txdmacount = 128;          ///< Tx DMA burst (config byte 5 = txdmacount + 0x80); 128: disabled
  int rxdmacount = 0;            ///< Rx DMA burst (config byte 4)
  int multicast_filter_limit = 64;
  int full_duplex = -1;          ///< full_duplex[card]: -1 from options, 1 forces config byte 19 bit 6
  int options = -1;              ///< options[card]: bits 3:0 port, bit 4 full duplex, bit 5 100 Mb/s forced
  /// Not a module parameter: the driver compiled with -DUSE_IO (SCB in I/O space). Default false,
  /// the 2.4.18-2.4.20 build (memory space; see the header comment).
  bool use_io = false;
};

/// The module parameter schema (names as the real module parameters; unit, doc, source).
ParamSchema param_schema();
/// Options from `v` (which holds every param_schema name; std::out_of_range otherwise).
Options options_from(const ParamValues& v);

/// The driver's cost-table paths (eepro100.c functions), declared per cost profile in
/// eepro100_costs.cpp and resolved once per device at probe.
enum class Path : unsigned {
  speedo_interrupt,       ///< per call: prologue, in_interrupt bit, exit
  speedo_interrupt_pass,  ///< per pass of the status loop: the tests and the RUS switch, spin_lock
  speedo_start_xmit,      ///< per packet: TxFD fill, pci_map_single, clear_suspend, bookkeeping
  speedo_rx,              ///< per received frame: status/count load, checks, copy-or-pass decision, stats
  eth_copy_and_sum,       ///< per copied frame (per call + per byte): the copybreak memcpy
  speedo_tx_buffer_gc,    ///< per reaped TxFD: status test, unmap, dev_kfree_skb_irq, stats
  speedo_refill_rx_buf,   ///< per refilled RxFD: speedo_rx_alloc (reserve, map) / speedo_rx_link stores
  speedo_timer,           ///< per timer run: speedo_timeout bookkeeping (its MDI accesses are timed by the NIC)
};
/// Names of the Path entries, index = Path.
const std::vector<std::string>& path_names();
/// Name of the driver's cost tables (DriverCostTable::driver).
inline constexpr const char* kCostDriver = "eepro100";

/// One 8255x driven by eepro100: struct net_device + struct speedo_private.
class Speedo : public NetDevice {
 public:
  /// The device with its memory BAR at `mem_bar` and I/O BAR at `io_bar`, interrupt `vector`, DMA
  /// tag space `dma_space`.
  Speedo(Kernel& k, std::string name, uint64_t mem_bar, uint64_t io_bar, unsigned vector, DmaTags::Space dma_space,
         const Options& opt);
  ~Speedo() override;

  /// speedo_open (after the probe process finished). 0, or the request_irq error.
  Task<int> open() override;
  /// speedo_close: timer off, PortPartialReset, free_irq, ring buffers freed.
  Task<int> stop() override;
  /// speedo_start_xmit: 0 when queued, 1 when the ring is full (queue stopped).
  Task<int> hard_start_xmit(SkbPtr& skb) override;

  /// The probe's hardware part (speedo_found1), run by the probe process.
  Task<void> probe_hw();
  bool probed() const { return probed_; }

  const Options& options() const { return opt_; }
  uint64_t tx_ring_dma() const { return tx_ring_dma_; }
  uint64_t lstats_dma() const { return tx_ring_dma_ + uint64_t(TX_RING_SIZE) * kTxFDBytes; }
  uint64_t rx_ring_dma(unsigned i) const { return rx_ring_dma_[i]; }
  unsigned cur_tx() const { return cur_tx_; }
  unsigned dirty_tx() const { return dirty_tx_; }
  unsigned cur_rx() const { return cur_rx_; }
  unsigned dirty_rx() const { return dirty_rx_; }
  uint32_t tx_threshold() const { return tx_threshold_; }
  bool rx_bug() const { return rx_bug_; }
  const std::vector<uint16_t>& eeprom() const { return eeprom_; }
  /// Status reads per speedo_interrupt call: isr_reads()[n] = calls that read SCBStatus n times.
  const std::vector<uint64_t>& isr_reads() const { return isr_reads_; }

 private:
  // register access (memory BAR by default; I/O BAR with use_io)
  Task<uint8_t> scb_inb(uint32_t off);
  Task<uint16_t> scb_inw(uint32_t off);
  Task<uint32_t> scb_inl(uint32_t off);
  Task<void> scb_outb(uint8_t v, uint32_t off);
  Task<void> scb_outw(uint16_t v, uint32_t off);
  Task<void> scb_outl(uint32_t v, uint32_t off);
  Task<void> wait_for_cmd_done();
  Task<int> do_eeprom_cmd(int cmd, int cmd_len);
  Task<int> mdio_read(int phy_id, int location);
  Task<int> mdio_write(int phy_id, int location, int value);
  Task<void> speedo_resume();
  void speedo_init_rx_ring(Kernel& k, std::vector<SkbPtr> skbs);
  Task<void> set_rx_mode();
  Task<void> queue_command(uint32_t cmd_status, const uint8_t* params, size_t n);
  Task<void> speedo_interrupt();
  Task<void> speedo_rx(sc_time t_pass);
  Task<void> speedo_refill_rx_buffers(bool force);
  Task<int> speedo_refill_rx_buf(bool force);
  Task<bool> speedo_rx_alloc(unsigned entry);
  void speedo_rx_link(unsigned entry);
  Task<void> speedo_rx_soft_reset();
  Task<void> speedo_tx_buffer_gc();
  Task<void> speedo_timer();
  Task<void> speedo_timeout();
  void clear_suspend(uint64_t cmd_dma);
  void write_txfd(unsigned entry, uint32_t cmd_status, uint32_t link, const uint8_t* params, size_t n);
  uint64_t txfd(unsigned entry) const { return tx_ring_dma_ + uint64_t(entry % TX_RING_SIZE) * kTxFDBytes; }
  /// Disable/restore IF on the running context (spin_lock_irqsave / spin_unlock_irqrestore).

  uint64_t mem_bar_, io_bar_;
  DmaTags::Space space_;
  Options opt_;
  DriverCosts costs_;
  // struct speedo_private
  uint64_t tx_ring_dma_ = 0;
  std::array<SkbPtr, TX_RING_SIZE> tx_skbuff_;
  std::array<uint64_t, TX_RING_SIZE> tx_buf_addr0_{};
  std::array<SkbPtr, RX_RING_SIZE> rx_skbuff_;
  std::array<uint64_t, RX_RING_SIZE> rx_ring_dma_{};  ///< bus address of entry i's RxFD, 0 when rx_ringp[i] is NULL
  uint64_t last_cmd_ = 0;     ///< bus address of the last command (TxFD) given to the CU
  unsigned cur_tx_ = 0, dirty_tx_ = 0;
  uint32_t tx_threshold_ = kTxThresholdStart;
  uint64_t last_rxf_ = 0;     ///< bus address of the last linked RxFD (EL|S)
  unsigned cur_rx_ = 0, dirty_rx_ = 0;
  uint64_t last_rx_time_ = 0;
  unsigned rx_ring_state_ = 0;
  bool tx_full_ = false, full_duplex_ = false, rx_bug_ = false, in_interrupt_ = false;
  int rx_mode_ = -1;
  uint16_t phy_[2] = {0, 0};
  int advertising_ = 0, partner_ = 0, flow_ctrl_ = 0;
  std::vector<uint16_t> eeprom_;
  bool irq_requested_ = false;
  TimerList timer_;
  bool probed_ = false;
  WaitQueue probe_wq_;
  std::vector<uint64_t> isr_reads_;
  uint64_t *c_intr_, *c_status_reads_, *c_status_zero_, *c_loop_limit_, *c_cu_resumes_, *c_rx_copied_,
      *c_rx_passed_up_, *c_tx_reaped_, *c_soft_resets_, *c_timer_;
};

/// pci_driver.probe (DriverEntry::probe contract): one Speedo for `dev`, registered with `k`, and a
/// process "insmod eepro100 <ifname>" started now that runs its probe_hw(). Throws
/// std::invalid_argument for a device that is not an 8255x the driver binds (its PCI id table:
/// 82557, 82558, 82559), no interrupt vector, or no I/O BAR.
std::vector<std::shared_ptr<NetDevice>> probe(Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors,
                                              const ProbeTarget& nic, const ParamValues& params);

}  // namespace nicsim::eepro100drv
