// 8254x interrupt moderation: the five timers (RDTR, RADV, TIDV, TADV, and ITR), the interrupt cause
// register with its mask, and the decision when the INTx line is asserted. Nothing else: no DMA, no
// SystemC kernel. The NIC drives it with explicit times and acts on what it returns; unit tests drive
// it the same way.
//
// Timer semantics (SDM = PCI/PCI-X Family of GbE Controllers Software Developer's Manual; page numbers
// as in research/intel-8254x-e1000-e100.md §1):
//
//  RDTR (0x2820, 1.024 µs units, bit 31 FPD) — packet timer, SDM §13.4.30 p=304/p=305:
//   * (82540 and later) restarted on EVERY packet stored in host memory ("If a subsequent packet is
//     received BEFORE the timer expires, the timer is re-initialized ... and re-starts its countdown").
//   * (82544GC/EI, ModFeatures::rdtr_absolute) started by the first packet after the timer was last
//     initialised and NOT restarted by later packets (SDM §3.2.8 p=45 "Absolute timer (RDTR)",
//     §3.2.5.1 p=40 "The first packet after timer initialization starts the timer").
//   * RDTR = 0: no delay, an immediate RXT0 for each packet (p=305) -> rx_packet_stored() returns
//     Immediate. It also disables RADV (p=319).
//   * Expiry: pending RX descriptor write-backs are flushed, then RXT0 is set (the NIC does both when
//     advance() reports the expiry). RADV is re-initialised but not started (p=319).
//   * Writing RDTR with FPD=1 forces an immediate expiry (write-back + RXT0), on the WRITE (p=305)
//     — not on a read of RDTR as gem5 does (research/simulator-anchors.md §1.1 quirk 1). FPD reads 0.
//  RADV (0x282C, 1.024 µs, 0 = off; absent on 82544GC/EI) — absolute RX timer, SDM §13.4.31 p=319:
//   * started by the first packet after the last RX interrupt, NOT restarted by later packets;
//   * disabled when RDTR = 0 or RADV = 0 (p=319) — gem5 arms it with RDTR = 0 (anchors §1.1 quirk 4),
//     QEMU uses it only as a window clamp (anchors §3); both wrong;
//   * expiry flushes write-backs and sets RXT0, and cancels a pending RDTR interrupt: "the RDTR
//     countdown timer is reloaded but halted" until the next packet (p=305).
//  TIDV (0x3820, 1.024 µs; 0 not allowed) — SDM §13.4.41 p=314:
//   * counts from the write-back of a descriptor with RS (RPS on the 82544) AND IDE; restarted by each
//     such write-back (research note §1, EP80579 wording); expiry flushes accumulated TX write-backs
//     and sets TXDW, and halts TADV (p=332). A TIDV of 0 is treated as no delay.
//   * a write-back of an RS descriptor WITHOUT IDE is an immediate TXDW; it halts TADV (p=332) and,
//     since its TXDW reports every completed descriptor, also the pending TIDV.
//  TADV (0x382C, 1.024 µs, 0 = off; absent on 82544GC/EI) — SDM §13.4.44 p=331/332:
//   * started by the first RS+IDE write-back while it is not running, NOT restarted; expiry sets TXDW;
//     halted by an immediate TX interrupt or a TIDV expiry. By analogy with RADV/RDTR (p=305) a TADV
//     expiry also halts TIDV (the SDM is silent; it avoids the spurious second interrupt p=332 warns of).
//  ITR (0x00C4, 256 ns units, 0 = off; absent on 82544GC/EI) — SDM §13.4.18 p=305:
//   * a guaranteed minimum interval between interrupt ASSERTIONS, measured from the previous
//     assertion (not from an IMS write as gem5 does, anchors §1.1 quirk 3; no 128 µs floor as QEMU has,
//     anchors §3). Causes that arrive inside the interval are held in ICR and asserted together when
//     it ends, if still pending and unmasked then. Timers run independently of ITR.
//  ICR / ICS / IMS / IMC — SDM §13.4.17–§13.4.21 p=303: ICR clears on read (and write-1-to-clear);
//   ICS sets causes; IMS/IMC set/clear the mask. The level-triggered INTx line is asserted while
//   (ICR & IMS) != 0, subject to ITR for the rising edge.
//
// Timing: the timers count ticks of the NIC's own clock (ClockDomain, 25 MHz crystal with a ppm
// offset): a count of N lasts clk.scale(N × 1.024 µs) (ITR: N × 256 ns). The SDM does not say where
// in a tick a timer is loaded; the model loads on the event, so a count of N lasts exactly N ticks.
#pragma once
#include "core/clock.h"
#include "core/units.h"
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace nicsim::e1000 {

enum class ModTimer : uint8_t { RDTR, RADV, TIDV, TADV, FPD };
/// "RDTR", "RADV", "TIDV", "TADV", "FPD".
const char* mod_timer_name(ModTimer t);

struct ModFeatures {
  bool itr = true;             ///< ITR implemented (82540+)
  bool radv = true;            ///< RADV implemented (82540+)
  bool tadv = true;            ///< TADV implemented (82540+)
  bool rdtr_absolute = false;  ///< 82544GC/EI RDTR semantics (see header comment)
};

/// A timer expired at `at`: the NIC must flush the pending descriptor write-backs of that direction
/// and then set RXT0 (RDTR/RADV/FPD) or TXDW (TIDV/TADV) with set_cause().
struct ModExpiry {
  sc_time at;
  ModTimer timer;
};

/// What an RX packet or TX write-back asks for: an immediate interrupt cause (after flushing
/// write-backs) or nothing yet (a timer is running).
enum class ModOutcome { Immediate, Delayed };

class Moderation {
 public:
  static constexpr double kTimerUnitNs = 1024.0;  ///< RDTR/RADV/TIDV/TADV tick, SDM p=304
  static constexpr double kItrUnitNs = 256.0;     ///< ITR unit, SDM p=305

  Moderation(ModFeatures f, ClockDomain clk);

  // ---- registers: raw values as written. Registers the variant lacks ignore writes, read 0. ----
  /// RDTR write at time `t`. With FPD (bit 31) set, an immediate FPD expiry is queued for advance(t).
  void write_rdtr(const sc_time& t, uint32_t value);
  void write_radv(uint32_t value);
  void write_tidv(uint32_t value);
  void write_tadv(uint32_t value);
  /// ITR write at `t`; a held assertion is re-timed to last assertion + the new interval.
  void write_itr(const sc_time& t, uint32_t value);
  uint32_t rdtr() const { return rdtr_; }  ///< FPD self-clears: reads 0
  uint32_t radv() const { return radv_; }
  uint32_t tidv() const { return tidv_; }
  uint32_t tadv() const { return tadv_; }
  uint32_t itr() const { return itr_; }

  // ---- events ----
  /// The last data byte of a received packet was written to host memory at `t`.
  ModOutcome rx_packet_stored(const sc_time& t);
  /// A TX descriptor with RS (RPS) was written back at `t`; `ide` is its IDE bit.
  ModOutcome tx_descriptor_written_back(const sc_time& t, bool ide);

  // ---- causes and mask ----
  void set_cause(const sc_time& t, uint32_t bits);      ///< hardware cause or ICS write
  uint32_t read_icr(const sc_time& t);                  ///< returns ICR and clears it
  void clear_causes(const sc_time& t, uint32_t bits);   ///< ICR write: write 1 to clear
  void write_ims(const sc_time& t, uint32_t bits);
  void write_imc(const sc_time& t, uint32_t bits);
  uint32_t icr() const { return icr_; }
  uint32_t ims() const { return ims_; }

  // ---- time ----
  /// Earliest time advance() has work (a timer deadline or the end of an ITR hold), if any.
  std::optional<sc_time> next_deadline() const;
  /// Process everything due at or before `t`, in time order: expired timers are returned (and
  /// stopped per the rules above); an ITR hold that ends asserts the line if causes are pending.
  std::vector<ModExpiry> advance(const sc_time& t);

  /// INTx level (true = asserted).
  bool line() const { return line_; }
  /// Unmasked causes are pending but ITR holds the assertion until itr_release_at().
  bool itr_holding() const { return hold_; }
  sc_time itr_release_at() const { return last_assert_ + itr_interval(); }
  uint64_t assertions() const { return assertions_; }
  sc_time last_assertion() const { return last_assert_; }
  bool running(ModTimer tm) const { return deadline_[idx(tm)].has_value(); }
  std::optional<sc_time> deadline(ModTimer tm) const { return deadline_[idx(tm)]; }
  uint64_t expiries(ModTimer tm) const { return expiries_[idx(tm)]; }

  /// Real duration of a timer count `n` (n × 1.024 µs of the NIC clock).
  sc_time timer_duration(uint32_t n) const;
  /// Real duration of the current ITR interval (ITR × 256 ns of the NIC clock; 0 when off).
  sc_time itr_interval() const;
  const ModFeatures& features() const { return f_; }

 private:
  static constexpr size_t idx(ModTimer t) { return static_cast<size_t>(t); }
  sc_time clamp(const sc_time& t);
  void update_line(const sc_time& t);
  void stop(ModTimer t) { deadline_[idx(t)].reset(); }

  ModFeatures f_;
  ClockDomain clk_;
  uint32_t rdtr_ = 0, radv_ = 0, tidv_ = 0, tadv_ = 0, itr_ = 0;
  uint32_t icr_ = 0, ims_ = 0;
  std::array<std::optional<sc_time>, 5> deadline_{};
  std::array<uint64_t, 5> expiries_{};
  bool line_ = false, hold_ = false, asserted_once_ = false;
  sc_time last_assert_ = SC_ZERO_TIME;
  sc_time last_t_ = SC_ZERO_TIME;
  uint64_t assertions_ = 0;
};

}  // namespace nicsim::e1000
