// e100 2.1.6-k1 module parameters (e100_main.c E100_PARAM list, e100_check_options), the microcode
// table (e100_load_microcode ucode_opts, e100_ucode.h positions) and the DriverEntry.
#include "drivers-sim/drivers/e100/e100.h"
#include "drivers-sim/drivers/e100/e100_ucode.h"
#include "drivers-sim/driver_entry.h"
#include "drivers-sim/driver_traits.h"
#include "drivers-sim/kernel/skb_truesize.h"
#include <fmt/format.h>

namespace nicsim::e100drv {

namespace {
const char* kSrc =
    "e100 2.1.6-k1 e100_main.c e100_check_options / e100.h (oct-month/linux-kernel-2.4.18 drivers/net/e100); "
    "e100 2.0.x LH 18271fa43e; research/seeds-001-004-platforms-drivers.md §2.4";
constexpr int64_t kUnset = -1;  ///< E100_PARAM_INIT: -1 = not given, use the default
}  // namespace

uint8_t revision_of(const std::string& device) {
  if (device == "82557") return 2;  // D100 C-step (the model's variant table)
  if (device == "82558A4") return D101A4_REV_ID;
  if (device == "82558B0") return D101B0_REV_ID;
  if (device == "82559") return D101MA_REV_ID;
  return 0;
}

ParamSchema param_schema() {
  const std::string s = kSrc;
  return {
      int_param("TxDescriptors", kUnset, kUnset, 1024, "TCBs",
                "transmit command blocks (E100_MIN_TCB 19 - E100_MAX_TCB 1024; -1 = E100_DEFAULT_TCB 64)", s),
      int_param("RxDescriptors", kUnset, kUnset, 1024, "RFDs",
                "receive frame descriptors (E100_MIN_RFD 8 - E100_MAX_RFD 1024; -1 = E100_DEFAULT_RFD 64)", s),
      int_param("ucode", kUnset, kUnset, 1, "0/1",
                "load the CPU-Saver microcode: -1 = default, on for rev_id >= D101MA (82559), off for the "
                "82558 A4/B0 (selectable with 1); the 82557 has no image",
                s),
      int_param("IntDelay", kUnset, kUnset, 0xFFFF, "microcode ticks",
                "CPU-Saver dead-man timer initial value (-1 = E100_DEFAULT_CPUSAVER_INTERRUPT_DELAY 0x600; "
                "range 0-0xFFFF; the model's tick is an estimate of 0.667 us, so 0x600 ~ 1.02 ms)",
                s),
      int_param("BundleMax", kUnset, kUnset, 0xFFFF, "frames",
                "CPU-Saver: frames bundled before an interrupt (-1 = 6; range 1-0xFFFF; 82559 image only)", s),
      int_param("BundleSmallFr", kUnset, kUnset, 1, "0/1",
                "CPU-Saver: bundle frames under 128 bytes too (min-size mask 0xFFFF instead of 0xFF80; -1 = 0)", s),
      int_param("RxCongestionControl", kUnset, kUnset, 1, "0/1",
                "switch to the polling tasklet when netif_rx reports congestion (-1 = 1); see e100.h: the "
                "polling mode itself is not modelled",
                s),
      int_param("XsumRX", kUnset, kUnset, 1, "0/1",
                "receive checksum offload on the 82559 (-1 = 1); see e100.h for what the model does", s),
      int_param("IFS", kUnset, kUnset, 1, "0/1", "adaptive IFS (-1 = 1; half duplex only, not modelled)", s),
      int_param("e100_speed_duplex", kUnset, kUnset, 4, "0-4",
                "0 auto, 1 10H, 2 10F, 3 100H, 4 100F (-1 = 0); validated only: the cable sets the link", s),
      int_param("flow_control", kUnset, kUnset, 1, "0/1", "802.3x PAUSE (-1 = 0); validated only", s),
  };
}

Options check_options(const ParamValues& v, uint8_t rev_id) {
  Options o;
  auto int_opt = [&](const char* n, int64_t lo, int64_t hi, int64_t def) -> unsigned {
    const int64_t x = v.i(n);
    return static_cast<unsigned>(x == kUnset || x < lo || x > hi ? def : x);  // e100_set_int_option
  };
  auto bool_opt = [&](const char* n, bool def) -> bool {
    const int64_t x = v.i(n);
    return x == kUnset || (x != 0 && x != 1) ? def : x == 1;  // e100_set_bool_option
  };
  o.tx_descriptors = int_opt("TxDescriptors", E100_MIN_TCB, E100_MAX_TCB, E100_DEFAULT_TCB);
  o.rx_descriptors = int_opt("RxDescriptors", E100_MIN_RFD, E100_MAX_RFD, E100_DEFAULT_RFD);
  o.xsum_rx = bool_opt("XsumRX", true);
  // "Default ucode value depended on controller revision"
  o.ucode = bool_opt("ucode", rev_id >= D101MA_REV_ID);
  o.ifs = bool_opt("IFS", true);
  o.bundle_small_fr = bool_opt("BundleSmallFr", false);
  o.int_delay = int_opt("IntDelay", 0, 0xFFFF, E100_DEFAULT_CPUSAVER_INTERRUPT_DELAY);
  o.bundle_max = int_opt("BundleMax", 1, 0xFFFF, E100_DEFAULT_CPUSAVER_BUNDLE_MAX);
  o.rx_congestion_control = bool_opt("RxCongestionControl", true);
  return o;
}

std::optional<UcodeOpts> ucode_opts(uint8_t rev_id) {
  // e100_load_microcode ucode_opts for the parts the NIC model has (D101S/D102 rows omitted).
  static const UcodeOpts table[] = {
      {D101A4_REV_ID, 72, UCODE_MAX_DWORDS, UCODE_MAX_DWORDS},
      {D101B0_REV_ID, 72, UCODE_MAX_DWORDS, UCODE_MAX_DWORDS},
      {D101MA_REV_ID, 78, 65, 126},
  };
  for (const auto& o : table)
    if (o.rev_id == rev_id) return o;
  return std::nullopt;
}

std::vector<uint32_t> ucode_image(const UcodeOpts& o, uint16_t int_delay, uint16_t bundle_max, bool bundle_small_fr) {
  std::vector<uint32_t> w(UCODE_MAX_DWORDS + 1, 0);  // placeholder words (see e100_ucode.h)
  // The instruction words at the parameter positions, as in the images: the timer a 0x0008xxxx
  // word, the bundle and min-size words 0x000Cxxxx (D101M; the D101 slots are past the image).
  w[o.timer_dword] = 0x00080000u;
  if (o.bundle_dword < UCODE_MAX_DWORDS) w[o.bundle_dword] = 0x000C0000u;
  if (o.min_size_dword < UCODE_MAX_DWORDS) w[o.min_size_dword] = 0x000C0000u;
  // "Insert user-tunable settings"
  w[o.timer_dword] = (w[o.timer_dword] & 0xFFFF0000u) | int_delay;
  w[o.bundle_dword] = (w[o.bundle_dword] & 0xFFFF0000u) | bundle_max;
  w[o.min_size_dword] = (w[o.min_size_dword] & 0xFFFF0000u) | (bundle_small_fr ? 0xFFFFu : 0xFF80u);
  return w;
}

namespace {
std::vector<ParamProblem> check_params(const ParamValues& v) {
  // The real driver prints "Invalid ... specified" and uses the default; a scenario asking for such
  // a value is a mistake, so the loader rejects it (check_options keeps the fallback).
  std::vector<ParamProblem> out;
  auto range = [&](const char* n, int64_t lo, int64_t hi) {
    const int64_t x = v.i(n);
    if (x != kUnset && (x < lo || x > hi))
      out.push_back({n, fmt::format("{} is outside the driver's range {}-{} (e100_check_options)", x, lo, hi)});
  };
  range("TxDescriptors", E100_MIN_TCB, E100_MAX_TCB);
  range("RxDescriptors", E100_MIN_RFD, E100_MAX_RFD);
  range("BundleMax", 1, 0xFFFF);
  // Forcing 10 Mb/s or half duplex would need the PHY model to act on BMCR; the 8255x model links
  // full duplex at the cable's speed, so such a value would be silently ignored: refuse it.
  if (const int64_t sd = v.i("e100_speed_duplex"); sd >= 1 && sd <= 3)
    out.push_back({"e100_speed_duplex",
                   fmt::format("{} forces {} on the PHY, which the 8255x model does not act on (it links full duplex at "
                               "the cable's speed): use 0 (auto) or 4 (100F) and set links.N.speed_mbps",
                               sd, sd == 1 ? "10 Mb/s half duplex" : sd == 2 ? "10 Mb/s full duplex" : "100 Mb/s half duplex")});
  return out;
}

DriverEntry entry() {
  DriverEntry e;
  e.name = kDriverName;
  e.summary =
      "Intel PRO/100 driver e100 2.1.6-k1 (nearest found to the seed's 1.8.38): memory-space SCB, CPU-Saver "
      "microcode on 82559 by default (IntDelay 0x600, BundleMax 6, frames < 128 B at once), TX interrupt "
      "every 8th TCB, S on every TCB";
  e.params = param_schema();
  e.devices = {"82557", "82558A4", "82558B0", "82559"};
  e.probe = [](Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors, const ProbeTarget& nic,
               const ParamValues& params) { return probe(k, dev, vectors, nic, params); };
  e.check = [](const ParamValues& params) { return check_params(params); };
  return e;
}
Registrar<DriverEntry> reg{entry()};
// e100_alloc_skbs: dev_alloc_skb(sizeof(rfd_t)) per receive frame descriptor.
Registrar<DriverTraits> traits{DriverTraits{
    kDriverName, kCostDriver, [](const ParamValues&) { return dev_alloc_skb_truesize(kRfdHeaderBytes + RFD_DATA_SIZE); }}};
}  // namespace

}  // namespace nicsim::e100drv
