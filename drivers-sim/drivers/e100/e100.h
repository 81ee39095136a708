// Linux e100 driver model: Intel PRO/100 (8255x: 82557, 82558 A4/B0, 82559) with the CPU Cycle
// Saver receive-interrupt bundling microcode.
//
// Version. Seed 002 ran e100 1.8.38, whose source was not found (research/seeds-001-004-platforms-
// drivers.md §2.4 [GAP]). The model follows the nearest versions the research has:
//  * e100 2.1.6-k1 as read in oct-month/linux-kernel-2.4.18 drivers/net/e100/{e100.h,e100_main.c}
//    (e100_found1, e100_check_options, e100_open, e100_xmit_frame, e100_prepare_xmit_buff,
//    e100_start_cu, e100intr, e100_rx_srv, e100_tx_srv, e100_load_microcode, e100_exec_non_cu_cmd,
//    e100_wait_scb, e100_watchdog); configure bytes from e100_config.c def_config /
//    e100_config_init_82558 (rickgaiser/linux-2.4.17-ps2 drivers/net/e100/e100_config.c, e100 2.0.x);
//  * e100 2.0.x as merged into 2.5 (LH 18271fa43e; research §2.4): the same ucode defaults, the same
//    IntDelay/BundleMax/BundleSmallFr knobs, TX_FRAME_CNT 8, MAX_TCB/MAX_RFD 64.
// The DriverEntry is "e100-2.1.6-k1" (named by version, as the e1000 entries are).
//
// What the model does:
//  * probe (e100_found1 -> e100_init, in an "insmod e100" process at time 0): PORT selective +
//    software reset (e100_sw_reset), PORT self-test (writel SCBPort, schedule_timeout 2 jiffies,
//    signature/result in DMA memory), the station address from EEPROM words 0-2 (bit-banged through
//    SCB EEPROM control with writew/readw, e100_eeprom_read; the size from the dummy zero,
//    e100_eeprom_size), PHY probe over MDI (address 1: PHY id, BMSR; carrier from link status),
//    e100_hw_init: software reset, CU/RU base 0 (SCB general pointer + CUC/RUC LOAD_BASE),
//    e100_load_microcode (below), Configure CB (22 bytes of e100_config.c), IA Setup CB, dump
//    counters address + Dump and Reset (e100_clr_cntrs). Non-TX CBs run one at a time as
//    e100_exec_non_cu_cmd does at probe: EL set, CU Start, poll C in memory.
//  * e100_load_microcode: ucode default on only for rev_id >= D101MA (8 = 82559); off but selectable
//    (ucode=1) on 82558 A4/B0; never on the 82557 (no image for rev 2). The image is patched like the
//    driver: low 16 bits of the timer dword <- IntDelay, of the bundle dword <- BundleMax, of the
//    min-size dword <- 0xFF80 (0xFFFF with BundleSmallFr); positions per revision from e100_ucode.h
//    (D101M: 78/65/126; D101 A4/B0: 72, bundle and min-size = UCODE_MAX_DWORDS, i.e. the slot past
//    the image, not sent). The image's other words are an ABSTRACT PLACEHOLDER (see e100_ucode.h).
//  * open (e100_open): TCB pool (TxDescriptors TCBs, e100_setup_tcb_pool: S | SF | TRANSMIT | CID,
//    circular links, TCBs 0 and 1 marked complete, head 0 / tail 1), RFD pool (RxDescriptors skbs of
//    sizeof(rfd_t) with the RFD in the skb's data room, EL on the last, e100_alloc_rfd_pool), CU/RU
//    base, watchdog in 2 s, netif_start_queue, e100_start_ru (RU Start at the first RFD that is not
//    complete), request_irq (SA_SHIRQ), intr_mask = 0 (every cause enabled, CNA included),
//    e100_force_config.
//  * e100_xmit_frame / e100_prepare_xmit_buff: no TCB (TCBS_AVAIL) -> netif_stop_queue, busy. The
//    TCB at tail: status 0, threshold tx_thld (TX_THRSHLD 8), CB_S_BIT on every TCB, CB_I_BIT when
//    ++tx_count % TX_FRAME_CNT == 0 (the bits are OR-ed into the TCB's command word and never
//    cleared, as in the source), one TBD (pci_map_single of the linear skb), then the previous TCB's
//    S bit cleared and e100_start_cu: START_WAIT (after a non-TX command: wait CU not active,
//    wait SCB, CU Start at the TCB) -> RESUME_WAIT (wait SCB, CU Resume; on 82558+ -> RESUME_NO_WAIT)
//    -> RESUME_NO_WAIT (writeb CU Resume + readw, no wait).
//  * e100intr: status = readw(SCB status); 0 or 0xFFFF -> not ours; e100_dis_intr (writeb M +
//    readw), ack with writew(status) + readw; SWI -> e100_alloc_skbs; FR|RNR|SWI -> e100_rx_srv;
//    CNA|CX -> tx_count = 0, e100_tx_srv; e100_set_intr_mask (writeb intr_mask + readw).
//  * e100_rx_srv: every RFD at the head of the active list with C: not OK -> back to the end; OK ->
//    unmap, refill (e100_alloc_skbs: new skb, RFD with EL, link from the old tail and its EL cleared),
//    skb_put(actual count), eth_type_trans, netif_rx from hard IRQ; then readw(status) and RU Start
//    when the RU is not ready.
//  * e100_tx_srv: from head, every TCB with C: unmap + dev_kfree_skb_irq, netif_wake_queue; stops
//    when head catches up with tail (the TCB before tail stays: its link is the CU's next).
//  * e100_watchdog (every 2 s, TIMER_BH): BMSR over MDI (link change -> carrier), wake/stop the
//    queue, e100_update_stats (the last dump's completion dword), e100_refresh_txthld,
//    e100_dump_stats_cntrs (wait SCB + Dump and Reset), re-arm; SWI when no RFD is left.
//  * RxCongestionControl (default on): e100intr masks the part and schedules the polling tasklet when
//    netif_rx returns NET_RX_DROP/CN_*. The kernel model's netif_rx returns only SUCCESS or DROP
//    (backlog full), which never happens at TCP_RR load; on DROP the model counts
//    driver.rx_congestion and stays in interrupt mode (the polling tasklet is not modelled).
//
// Deviations from 2.1.6-k1 (none on the per-packet timing path unless said):
//  * TX uses the explicit TBD array address tcb+0x10 (what 2.1.6 writes on the 82557) on every part;
//    on 82558+ the source writes 0xFFFFFFFF with the extended TxCB (TBDs inside the TCB at +0x10),
//    which the NIC model does not implement. Same TBD, same address; the model fetches it as its own
//    8-byte DMA read (one more short read per frame than an extended-TCB part may need).
//  * XsumRX (default on): on the 82559 2.1.6 sets configure byte 9 bit 0 (DF_CSUM_OFFLOAD), the D101M
//    then appends a 2-byte checksum word that the driver strips, and reports CHECKSUM_HW. The NIC
//    model appends no word, so the driver model leaves byte 9 bit 0 clear, keeps the whole frame and
//    sets CHECKSUM_NONE (TCP checksums in software: csum_partial, ~40 cycles + 0.5 cycles/byte,
//    docs/developers.md "Checksum offload").
//  * e100_exec_non_cu_cmd polls the CB's C bit with yield() between reads; with nothing else to run
//    at probe/open a yield returns at once, so the model polls with udelay(2) between reads. A non-TX
//    command while the interface runs (e100_delayed_exec_non_cu_cmd: the watchdog's reconfigure on a
//    link change) is not modelled: the modelled links never change.
//  * Configure bytes the NIC model does not read (flow control delays 16/17/19, IFS, ...) keep
//    def_config's values.
//  * The EEPROM checksum check of e100_found1 (all 64 words) is not done; the PHY set-up is reduced
//    to the reads that give link state; e100_phy_check's speed/duplex resolution is taken as 100 FD.
//  * Adaptive IFS (IFS=1) is a half-duplex algorithm; the modelled links are full duplex, where the
//    driver keeps IFS 0: not modelled. ber, e100_speed_duplex, flow_control: validated only.
//
// Where 1.8.38 (the seed's version) could differ and move the result:
//  1. IntDelay default: e100_ucode.h says "current default is either x600 or x800"; with 0x800 the
//     dead-man wait is 1.37 ms instead of 1.02 ms (the 64-128 B plateau moves by ~2 x 0.34 ms).
//  2. The microcode image itself (1.8.38 may carry an older D101M image than rcvbundl.h v3.28's
//     "Version 2.10"; the model re-arms the timer on each bundled frame, as the CPUSaver comment
//     says: "the timer is reset each time a new packet is received"). 1.8.38 is not in the search
//     index; it shipped in Andrea Arcangeli's 2.4.19-pre10aa3..2.4.19rc1aa1 as 07_e100-1.8.38.gz
//     (LKML, Arcangeli to Nekrasov, 10 Jul 2002), where a later search could find it.
//  3. TX: TX_FRAME_CNT and whether every TCB carries CB_S_BIT (an unsuspended CBL would not raise CNA
//     per frame: fewer TX interrupts, which matters here because a TX interrupt also runs e100_rx_srv
//     only when FR/RNR/SWI are set - it does not in 2.1.6, so bundled frames wait for FR).
//  4. Whether 1.8.38 services RX on every interrupt (cleaning bundled RFDs early on a CNA interrupt
//     would cut the ~1 ms wait); 2.1.6 runs e100_rx_srv only for FR|RNR|SWI.
//  5. RxCongestionControl / polling mode did not exist in every 1.x release (no effect at this load).
//
// Journeys (core/journey.h), written here as the e1000 model does: TX "doorbell" (before the SCB
// command), RX "IRQ delivery wait"/"IRQ entry" (Kernel::mark_irq), "ISR", "driver rx",
// Kernel::kDmaMissStage while the CPU stalls on the RFD and frame lines the NIC wrote.
// Counters: <host>.<ifname>.driver.{intr, intr_not_ours, rx_frames, tx_cleaned, cu_start, cu_resume,
//   tx_busy, watchdog, ucode_loaded, rx_congestion}.
#pragma once
#include "core/dma_tags.h"
#include "core/params.h"
#include "drivers-sim/driver_entry.h"
#include "drivers-sim/kernel/kernel.h"
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace nicsim {
class PciDevice;
}

namespace nicsim::e100drv {

// ---------------------------------------------------------------- the driver's own register map
// (e100.h 2.1.6-k1: scb_t, SCB_*, CB_*, RFD_*, PORT_*, EEPROM bits; offsets in bytes)
inline constexpr uint32_t SCB_STATUS = 0x00;     ///< u16 scb_status (low: CUS/RUS, high: STAT/ACK)
inline constexpr uint32_t SCB_CMD_LOW = 0x02;    ///< u8 scb_cmd_low (CUC/RUC)
inline constexpr uint32_t SCB_CMD_HI = 0x03;     ///< u8 scb_cmd_hi (interrupt mask byte)
inline constexpr uint32_t SCB_GEN_PTR = 0x04;    ///< u32 scb_gen_ptr
inline constexpr uint32_t SCB_PORT = 0x08;       ///< u32 scb_port
inline constexpr uint32_t SCB_EEPROM_CTRL = 0x0E;///< u16 scb_eprm_cntrl
inline constexpr uint32_t SCB_MDI_CTRL = 0x10;   ///< u32 scb_mdi_cntrl

inline constexpr uint16_t SCB_STATUS_ACK_CX = 0x8000, SCB_STATUS_ACK_FR = 0x4000, SCB_STATUS_ACK_CNA = 0x2000,
                          SCB_STATUS_ACK_RNR = 0x1000, SCB_STATUS_ACK_MDI = 0x0800, SCB_STATUS_ACK_SWI = 0x0400;
inline constexpr uint16_t SCB_CUS_MASK = 0x00C0, SCB_CUS_ACTIVE = 0x0080;
inline constexpr uint16_t SCB_RUS_MASK = 0x003C, SCB_RUS_READY = 0x0010;
inline constexpr uint8_t SCB_CUC_START = 0x10, SCB_CUC_RESUME = 0x20, SCB_CUC_DUMP_ADDR = 0x40,
                         SCB_CUC_LOAD_BASE = 0x60, SCB_CUC_DUMP_RST_STAT = 0x70;
inline constexpr uint8_t SCB_RUC_START = 0x01, SCB_RUC_LOAD_BASE = 0x06;
inline constexpr uint8_t SCB_INT_MASK = 0x01, SCB_SOFT_INT = 0x02;
inline constexpr uint32_t PORT_SOFTWARE_RESET = 0, PORT_SELFTEST = 1, PORT_SELECTIVE_RESET = 2;

inline constexpr uint16_t CB_EL_BIT = 0x8000, CB_S_BIT = 0x4000, CB_I_BIT = 0x2000, CB_TX_SF_BIT = 0x0008;
inline constexpr uint16_t CB_CID_DEFAULT = 0x1F << 8;
inline constexpr uint16_t CB_IA_ADDRESS = 1, CB_CONFIGURE = 2, CB_TRANSMIT = 4, CB_LOAD_MICROCODE = 5;
inline constexpr uint16_t CB_STATUS_COMPLETE = 0x8000, CB_STATUS_OK = 0x2000;
inline constexpr uint16_t RFD_STATUS_COMPLETE = 0x8000, RFD_STATUS_OK = 0x2000, RFD_EL_BIT = 0x8000;
inline constexpr uint16_t RFD_ACT_COUNT_MASK = 0x3FFF;
inline constexpr uint16_t EESK = 0x01, EECS = 0x02, EEDI = 0x04, EEDO = 0x08;

inline constexpr uint8_t D101A4_REV_ID = 4, D101B0_REV_ID = 5, D101MA_REV_ID = 8;  ///< e100.h
inline constexpr unsigned TX_FRAME_CNT = 8;         ///< e100.h: consecutive transmit frames per interrupt
inline constexpr unsigned E100_DEFAULT_TCB = 64, E100_MIN_TCB = 2 * TX_FRAME_CNT + 3, E100_MAX_TCB = 1024;
inline constexpr unsigned E100_DEFAULT_RFD = 64, E100_MIN_RFD = 8, E100_MAX_RFD = 1024;
inline constexpr unsigned TX_THRSHLD = 8;           ///< e100.h: transmit threshold (x 8 bytes)
inline constexpr unsigned E100_DEFAULT_CPUSAVER_INTERRUPT_DELAY = 0x600;
inline constexpr unsigned E100_DEFAULT_CPUSAVER_BUNDLE_MAX = 6;
inline constexpr unsigned UCODE_MAX_DWORDS = 134;   ///< e100_ucode.h
inline constexpr unsigned CB_CFIG_BYTE_COUNT = 22;
/// RFD_DATA_SIZE = ETH_FRAME_LEN + CHKSUM_SIZE + VLAN_SIZE (e100.h).
inline constexpr unsigned RFD_DATA_SIZE = 1514 + 2 + 4;
inline constexpr unsigned kRfdHeaderBytes = 16;     ///< rfd_size on parts before the D102
/// Bytes of one tcb_t in the pool: the 16-byte TxCB, the TBD array at +0x10 (tcbu) and the driver's
/// own fields. estimate: 64 (sizeof(tcb_t) on i386 is 16 + 16-byte tcbu + pointers/skb ~ 0x40).
inline constexpr unsigned kTcbBytes = 64;
inline constexpr unsigned kTbdOffset = 0x10;

/// The module parameters after e100_check_options (defaults applied, ranges checked).
struct Options {
  unsigned tx_descriptors = E100_DEFAULT_TCB;  ///< TxDescriptors (19-1024)
  unsigned rx_descriptors = E100_DEFAULT_RFD;  ///< RxDescriptors (8-1024)
  bool ucode = true;                ///< ucode: default on for rev_id >= D101MA only
  unsigned int_delay = E100_DEFAULT_CPUSAVER_INTERRUPT_DELAY;  ///< IntDelay (microcode ticks)
  unsigned bundle_max = E100_DEFAULT_CPUSAVER_BUNDLE_MAX;      ///< BundleMax (1-0xFFFF)
  bool bundle_small_fr = false;     ///< BundleSmallFr
  bool rx_congestion_control = true;///< RxCongestionControl
  bool xsum_rx = true;              ///< XsumRX
  bool ifs = true;                  ///< IFS (adaptive IFS, half duplex only)
};

/// The module parameter schema (names as the real module parameters; -1 = not given, the driver's
/// default; unit, doc, source).
ParamSchema param_schema();
/// e100_check_options for a part of PCI revision `rev_id`: a value out of range falls back to the
/// default (e100_set_int_option / e100_set_bool_option), -1 takes the default. Throws
/// std::out_of_range when `v` lacks a schema name.
Options check_options(const ParamValues& v, uint8_t rev_id);
/// PCI revision id of the part named `device` (82557 2, 82558A4 4, 82558B0 5, 82559 8; 0 unknown):
/// what pci_read_config_byte(PCI_REVISION_ID) returns for it.
uint8_t revision_of(const std::string& device);

/// The driver's own cost-table paths (e100_main.c functions).
enum class Path : unsigned {
  e100intr,           ///< e100intr per call (prologue, locks, status decode)
  e100_xmit_frame,    ///< e100_xmit_frame + e100_prepare_xmit_buff + e100_start_cu per packet
  e100_rx_srv,        ///< e100_rx_srv per RFD (list handling, unmap, skb_put)
  e100_tx_srv,        ///< e100_tx_srv per completed TCB
  e100_alloc_skb,     ///< e100_alloc_skb + e100_add_skb_to_end per buffer
  e100_watchdog,      ///< e100_watchdog bookkeeping per call
};
const std::vector<std::string>& path_names();
inline constexpr const char* kCostDriver = "e100";
inline constexpr const char* kDriverName = "e100-2.1.6-k1";

/// One 8255x port driven by e100: struct net_device + struct e100_private.
class Adapter : public NetDevice {
 public:
  Adapter(Kernel& k, std::string name, uint8_t rev_id, uint64_t bar, unsigned vector, DmaTags::Space dma_space,
          const Options& opt);
  ~Adapter() override;

  /// e100_open (waits for the probe process first). 0, or -EBUSY (-16) when request_irq fails.
  Task<int> open() override;
  /// e100_close: mask, selective reset, free_irq, pools freed.
  Task<int> stop() override;
  /// e100_xmit_frame: 0 queued, 1 busy (no TCB; the queue is stopped).
  Task<int> hard_start_xmit(SkbPtr& skb) override;

  /// e100_found1's hardware part (e100_init), run by the probe process.
  Task<void> probe_hw();
  bool probed() const { return probed_; }
  uint8_t rev_id() const { return rev_id_; }
  const Options& options() const { return opt_; }
  /// DF_UCODE_LOADED: the Load Microcode CB completed.
  bool ucode_loaded() const { return ucode_loaded_; }
  /// The microcode dwords the driver sent (empty when none).
  const std::vector<uint32_t>& ucode_sent() const { return ucode_sent_; }
  uint64_t tcb_phys(unsigned i) const { return tcb_phys_ + uint64_t(i) * kTcbBytes; }
  unsigned tcb_count() const { return opt_.tx_descriptors; }
  unsigned tx_count() const { return tx_count_; }
  size_t active_rfds() const { return rx_.size(); }

 private:
  enum class NextCu { START_WAIT, RESUME_WAIT, RESUME_NO_WAIT };
  struct RxElem {
    SkbPtr skb;
    uint64_t rfd = 0;  ///< bus address of the RFD (skb data room, before the frame data)
  };

  // register access (memory space, as e100 reaches the SCB through ioremap)
  uint64_t reg(uint32_t off) const { return bar_ + off; }
  Task<void> exec_cmd(uint8_t cmd);                    ///< e100_exec_cmd
  Task<bool> wait_scb();                               ///< e100_wait_scb
  Task<bool> wait_exec_simple(uint8_t cmd);            ///< e100_wait_exec_simple
  Task<void> exec_cmplx(uint32_t phys, uint8_t cmd);   ///< e100_exec_cmplx
  Task<bool> wait_exec_cmplx(uint32_t phys, uint8_t cmd);
  Task<bool> wait_cus_idle();
  Task<void> dis_intr();
  Task<void> set_intr_mask();
  Task<void> trigger_swi();
  Task<void> udelay(double us);
  Task<void> sw_reset(uint32_t reset_cmd);
  Task<bool> selftest();
  Task<uint16_t> eeprom_read(uint16_t word);
  Task<unsigned> eeprom_size_bits();
  Task<void> eeprom_shift_out(uint16_t bits, unsigned count);
  Task<uint16_t> mdi_read(unsigned reg, unsigned phy);
  Task<bool> hw_init();
  Task<bool> exec_non_cu_cmd(std::vector<uint8_t> cb);  ///< at probe/open: polled
  Task<bool> load_microcode();
  Task<bool> config();
  Task<bool> setup_iaaddr();
  Task<bool> clr_cntrs();

  void setup_tcb_pool();
  void free_tcb_pool();
  Task<void> alloc_skbs();
  void add_skb_to_end(RxElem e);
  void free_rfd_pool();
  Task<void> start_ru();
  Task<void> start_cu(unsigned tcb);
  Task<void> intr();
  Task<unsigned> rx_srv();
  Task<void> tx_srv();
  Task<void> watchdog();
  std::string where() const;

  uint8_t rev_id_;
  bool bachelor_;  ///< IS_BACHELOR: rev_id >= D101A4 (82558 and later)
  uint64_t bar_;
  DriverCosts costs_;
  DmaTags::Space space_;
  Options opt_;
  bool probed_ = false, irq_requested_ = false, ucode_loaded_ = false;
  WaitQueue probe_wq_;
  std::vector<uint32_t> ucode_sent_;
  std::array<uint8_t, CB_CFIG_BYTE_COUNT> config_{};
  // DMA-able areas
  uint64_t dma_able_ = 0;  ///< selftest (8 B) + stats (21 dwords + completion) + one non-TX CB
  uint64_t selftest_phys_ = 0, stat_cnt_phys_ = 0, nontx_phys_ = 0;
  unsigned stat_dwords_ = 16;
  // TX
  uint64_t tcb_phys_ = 0;
  std::vector<uint16_t> tcb_cmd_;     ///< the command word of each TCB as the driver keeps it
  std::vector<SkbPtr> tcb_skb_;
  std::vector<uint64_t> tcb_buf_;     ///< mapped TBD buffer per TCB
  unsigned head_ = 0, tail_ = 1;
  unsigned tx_count_ = 0;
  unsigned tx_thld_ = TX_THRSHLD;
  NextCu next_cu_ = NextCu::START_WAIT;
  bool last_tcb_ = false;
  // RX
  std::deque<RxElem> rx_;    ///< active_rx_list
  unsigned skb_req_ = 0;
  // link
  unsigned phy_addr_ = 1;
  unsigned eeprom_bits_ = 0;  ///< address bits of the EEPROM (e100_eeprom_size)
  TimerList watchdog_timer_;
  uint64_t *c_intr_, *c_not_ours_, *c_rx_, *c_tx_cleaned_, *c_cu_start_, *c_cu_resume_, *c_tx_busy_, *c_watchdog_,
      *c_ucode_, *c_rx_cong_;
};

/// pci_driver.probe (DriverEntry::probe contract): one Adapter for the 8255x `dev`, registered with
/// `k`, and the process "insmod e100 <ifname>" that runs its probe_hw(). Throws
/// std::invalid_argument for a part the driver does not bind.
std::vector<std::shared_ptr<NetDevice>> probe(Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors,
                                              const ProbeTarget& nic, const ParamValues& params);

}  // namespace nicsim::e100drv
