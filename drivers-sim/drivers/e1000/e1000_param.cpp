// e1000_param.c of the model: the driver profiles, the module parameters (names, defaults, ranges,
// units, sources), e1000_check_options, and the DriverEntry registrations.
#include "drivers-sim/drivers/e1000/e1000.h"
#include "drivers-sim/driver_entry.h"
#include "drivers-sim/driver_traits.h"
#include "drivers-sim/kernel/skb_truesize.h"
#include <algorithm>
#include <fmt/format.h>

namespace nicsim::e1000drv {

namespace {
// Sources (research/intel-8254x-e1000-e100.md §2 names the commits).
const char* kSrc4412 =
    "e1000_param.c @896b41929a (dmgerman/history-token; 4.4.12-k1, 'Set interrupt delay timer defaults to 0 "
    "across all adapters'); research/intel-8254x-e1000-e100.md §2";
const char* kSrc5043 =
    "e1000_param.c 5.0.43-k1 (RxDescriptors 256: @89447ec825, 2003-03-22; InterruptThrottleRate, dynamic "
    "mode in e1000_watchdog @6bd8ee326e); research/intel-8254x-e1000-e100.md §2";
const char* kSrc428 =
    "e1000_param.c / e1000_main.c 4.2.8-k1 (LH@a4358d3aab, 2002-04-03: DEFAULT_RDTR 64, DEFAULT_RADV 128, "
    "TIDV 64, DEFAULT_RXD 80; TX reclaim in xmit LH@1ac12fc6c5); Documentation/networking/e1000.txt "
    "(RxIntDelay Default Value: 64); research/seeds-001-004-platforms-drivers.md §2.2";
// The 2.6 drivers (seed 003; research/seeds-001-004-platforms-drivers.md §3.1-§3.3).
const char* kSrc5610 =
    "e1000 5.6.10.1-k2 as shipped in Linux 2.6.11 (research §3.1: LH@1274fcd685; read in the stored "
    "cgm88s/linux-2.6.11.12-cn drivers/net/e1000/e1000_main.c): e1000_intr / e1000_clean (NAPI), "
    "e1000_clean_rx_irq (no prefetch, no copybreak), e1000_param.c DEFAULT_ITR 8000, RxDescriptors 256; "
    "e1000_reset fc_high_water/fc_low_water = PBA - E1000_FC_HIGH_DIFF/LOW_DIFF; research §3.2/§3.3";
const char* kSrc6060 =
    "e1000 6.0.60-k2 as shipped in Linux 2.6.14 (a stored e1000_main.c with DRV_VERSION \"6.0.60-k2\"): "
    "e1000_clean leaves polling only if (!tx_cleaned && work_done == 0); e1000_clean_rx_irq as 5.6.10.1 "
    "(no prefetch, no copybreak); defaults as 5.6.10.1 (research §3.2 table, 6.0.54/6.1.16 columns)";
const char* kSrc6215 =
    "e1000 6.2.15 (Intel release, Dec 2005): source not public (research §3.1 [GAP]); modelled on 6.3.9-k2 "
    "(Linux 2.6.16: E1000_CB_LENGTH 256 copybreak, LKML <20060301224229.GA12689@havoc.gtf.org>) and 7.0.33-k2 "
    "(RHEL4: the prefetches, hw.original_fc = hw.fc = FlowControl default); see e1000_napi.cpp";
}  // namespace

const DriverProfile& profile_5_6_10_1_k2() {
  static const DriverProfile p = [] {
    DriverProfile d{"e1000-5.6.10.1-k2", "5.6.10.1-k2-NAPI",
                    "Intel PRO/1000 driver 5.6.10.1-k2 (Linux 2.6.11), NAPI: e1000_clean leaves polling when TX "
                    "cleaned nothing or RX did less than its quota; ITR 8000/s; no prefetch, no copybreak; flow "
                    "control off (original_fc never set)",
                    256, true, kSrc5610};
    d.napi = true;
    d.napi_exit = DriverProfile::NapiExit::tx_idle_or_rx_short;
    d.default_itr = 8000;
    d.fc_sets_original = false;
    d.lltx = true;
    d.fcrth = 48 * 1024 - 0x1638;  // E1000_PBA_48K << 10 - E1000_FC_HIGH_DIFF = 43,464
    d.fcrtl = 48 * 1024 - 0x1640;  // - E1000_FC_LOW_DIFF = 43,456
    // e1000_watchdog: "reset controller to flush Tx" (2.6.11.1 l.1423; 6.x taken as the same,
    // research link-faults-failover.md §A5: the 2.6.14 driver was not read).
    d.link_loss_tx = DriverProfile::LinkLossTx::reset;
    return d;
  }();
  return p;
}

const DriverProfile& profile_6_0_60_k2() {
  static const DriverProfile p = [] {
    DriverProfile d = profile_5_6_10_1_k2();
    d.name = "e1000-6.0.60-k2";
    d.version = "6.0.60-k2-NAPI";
    d.summary =
        "Intel PRO/1000 driver 6.0.60-k2 (Linux 2.6.14), NAPI: e1000_clean leaves polling only when TX and RX "
        "were both idle; ITR 8000/s; no prefetch, no copybreak; flow control off (original_fc never set)";
    d.param_source = kSrc6060;
    d.napi_exit = DriverProfile::NapiExit::both_idle;
    return d;
  }();
  return p;
}

const DriverProfile& profile_6_2_15() {
  static const DriverProfile p = [] {
    DriverProfile d = profile_6_0_60_k2();
    d.name = "e1000-6.2.15";
    d.version = "6.2.15-NAPI";
    d.summary =
        "Intel PRO/1000 driver 6.2.15 (Dec 2005; modelled on 6.3.9-k2/7.0.33-k2), NAPI as 6.0.60 plus RX "
        "prefetch (the frame's first line and the next descriptor) and copybreak 256 (module option copybreak, 0 = commented out); 802.3x flow control from the "
        "EEPROM (full) by default";
    d.param_source = kSrc6215;
    d.rx_prefetch = true;
    d.copybreak = 256;
    d.fc_sets_original = true;
    return d;
  }();
  return p;
}

const DriverProfile& profile_4_2_8_k1() {
  static const DriverProfile p = [] {
    DriverProfile d{"e1000-4.2.8-k1", "4.2.8-k1",
                    "Intel PRO/1000 driver 4.2.8-k1 (in-kernel, Apr 2002): RxIntDelay 64 -> RDTR on 82542/3/4; on "
                    "82540+ RxIntDelay 128 -> RADV with RDTR 64 and ITR 8000 ints/s; TIDV 64; TX reclaim in xmit",
                    80, false, kSrc428};
    d.rx_int_delay_only = true;
    d.tx_reclaim_in_xmit = true;
    d.tx_clean_needs_txdw = true;
    return d;
  }();
  return p;
}

const DriverProfile& profile_4_4_12_k1() {
  static const DriverProfile p = [] {
    DriverProfile d{"e1000-4.4.12-k1", "4.4.12-k1",
                    "Intel PRO/1000 driver 4.4.12-k1 (Linux 2.4.20): non-NAPI, ITR hardcoded 8000 ints/s on 82540+, "
                    "RxIntDelay 0, TxIntDelay 64",
                    80, false, kSrc4412};
    d.stats_view = DriverProfile::StatsView::proc_pro_lan;  // e1000_proc.c; no ETHTOOL_GSTATS
    return d;
  }();
  return p;
}

const DriverProfile& profile_5_0_43_k1() {
  static const DriverProfile p = [] {
    DriverProfile d{"e1000-5.0.43-k1", "5.0.43-k1",
                    "Intel PRO/1000 driver 5.0.43-k1 (Mar 2003): InterruptThrottleRate (default 1 = dynamic "
                    "2000-8000/s), RxDescriptors 256",
                    256, true, kSrc5043};
    d.link_loss_tx = DriverProfile::LinkLossTx::flush;  // e1000_tx_flush (LH@2.4.21 e1000_main.c l.1243)
    d.stats_view = DriverProfile::StatsView::ethtool_net_stats;  // ETHTOOL_GSTATS (e1000_ethtool.c l.43)
    return d;
  }();
  return p;
}

ParamSchema param_schema(const DriverProfile& p) {
  const std::string src = p.param_source;
  const std::string delay = "1.024 µs units";
  ParamSchema s = {
      int_param("TxDescriptors", 256, 80, 4096, "descriptors",
                "transmit descriptor ring size (80-256 before the 82544, 80-4096 on 82544+; rounded up to 8)", src),
      int_param("RxDescriptors", p.default_rxd, 80, 4096, "descriptors",
                "receive descriptor ring size (80-256 before the 82544, 80-4096 on 82544+; rounded up to 8); "
                "buffers are 2048 bytes",
                src),
  };
  if (p.rx_int_delay_only) {
    // 4.2.x: OPTION_UNSET (-1) takes the chip's default, as e1000_validate_option does.
    s.push_back(int_param("RxIntDelay", kOptionUnset, kOptionUnset, 65535, delay,
                          "receive interrupt delay: -> RDTR on 82542/3/4 (default 64 = DEFAULT_RDTR); on 82540 and "
                          "later -> RADV (default 128 = DEFAULT_RADV) with RDTR written 64 and ITR 488. -1 "
                          "(OPTION_UNSET) = the chip's default. TIDV is hard-coded 64, TADV not written",
                          src));
  } else {
    s.push_back(int_param("RxIntDelay", 0, 0, 65535, delay,
                          "receive interrupt delay -> RDTR; 0 = an interrupt per packet (and RADV inert)", src));
    s.push_back(int_param("RxAbsIntDelay", 128, 0, 65535, delay,
                          "receive absolute interrupt delay -> RADV, written on 82540 and later only", src));
    s.push_back(
        int_param("TxIntDelay", 64, 0, 65535, delay, "transmit interrupt delay -> TIDV (every frame has IDE)", src));
    s.push_back(int_param("TxAbsIntDelay", 64, 0, 65535, delay,
                          "transmit absolute interrupt delay -> TADV, written on 82540 and later only (code default "
                          "64; the 4.4.12 doc comment says 0)",
                          src));
  }
  for (ParamSpec& x : ParamSchema{
      int_param("XsumRX", 1, 0, 1, "0/1", "receive TCP/UDP checksum offload (RXCSUM.TUOFL) on 82543+", src),
      // The sets e1000_check_options / e1000_check_copper_options accept (e1000_validate_option's
      // list and range checks); check_options falls back to the default outside them, as the driver.
      int_set_param("FlowControl", e1000_fc_default, {{0, 3}, {e1000_fc_default, e1000_fc_default}}, "mode",
                    "802.3x flow control: 0 none, 1 rx pause, 2 tx pause, 3 full, 255 (default) from the EEPROM "
                    "(modeled as full); resolved with the link partner at link up (e1000_check_options)",
                    src),
      int_set_param("Speed", 0, {{0, 0}, {10, 10}, {100, 100}, {1000, 1000}}, "Mb/s",
                    "forced speed 0 (autonegotiate), 10, 100 or 1000 (e1000_check_copper_options): with Duplex a forced "
                    "10/100 mode, alone autonegotiation at that speed only; the loader resolves the link with its peer "
                    "(docs/scenarios.md)",
                    src),
      int_param("Duplex", 0, 0, 2, "0-2",
                "forced duplex 0 auto, 1 half, 2 full (e1000_check_copper_options; the model's links are full duplex)",
                src),
      int_set_param("AutoNeg", 0x2F, {{0x01, 0x0F}, {0x20, 0x2F}}, "bit mask",
                    "advertised speed/duplex: bit0 10/HD, bit1 10/FD, bit2 100/HD, bit3 100/FD, bit5 1000/FD; bit 4 "
                    "(1000/HD) is not supported by the 8254x (AUTONEG_ADV_MASK 0x2F, e1000_check_copper_options)",
                    src),
       })
    s.push_back(std::move(x));
  if (p.copybreak)
    s.push_back(int_param("copybreak", p.copybreak, 0, 2048, "bytes",
                          "receive copybreak: frames (without FCS) shorter than this are copied into a new small skb "
                          "and the ring buffer reused (E1000_CB_LENGTH 256 in 6.3.9); 0 = the copybreak block "
                          "commented out, as in seed 003's fourth run",
                          src));
  if (p.rx_prefetch)
    s.push_back(int_param("prefetch", 1, 0, 1, "0/1",
                          "what-if, not a module parameter of the real driver: 1 (as shipped) e1000_clean_rx_irq "
                          "prefetches the frame's first line (prefetch(skb->data - NET_IP_ALIGN)) and the next "
                          "descriptor (prefetch(next_rxd)); 0 = both calls commented out",
                          src));
  if (p.itr_param)
    s.push_back(int_set_param("InterruptThrottleRate", p.default_itr, {{0, 1}, {100, 100000}}, "interrupts/s",
                              "ITR: 0 off, 1 dynamic (watchdog every 2 s: 2000/s symmetric .. 8000/s one-way traffic), "
                              "100-100000 fixed -> ITR = 1e9/(N·256); 2-99 are invalid (a load-time scenario error; "
                              "the real driver would warn and use the default, e1000_check_options); 82540 and later "
                              "only",
                              src));
  return s;
}

Options check_options(const ParamValues& v, const DriverProfile& p, MacType mac) {
  Options o;
  // e1000_validate_option: a value outside the valid set falls back to the default.
  auto range = [&](const char* name, int64_t def, int64_t lo, int64_t hi) -> int64_t {
    int64_t x = v.i(name);
    return x >= lo && x <= hi ? x : def;
  };
  // The same for the options whose valid set is the schema's (one source with the loader's check).
  const ParamSchema schema = param_schema(p);
  auto in_set = [&](const char* name) {
    auto spec = std::find_if(schema.begin(), schema.end(), [&](const ParamSpec& x) { return x.name == name; });
    return spec != schema.end() && int_accepted(*spec, v.i(name));
  };
  const int64_t max_desc = mac < e1000_82544 ? 256 : 4096;
  o.tx_descriptors = roundup(static_cast<unsigned>(range("TxDescriptors", 256, 80, max_desc)), REQ_TX_DESCRIPTOR_MULTIPLE);
  o.rx_descriptors =
      roundup(static_cast<unsigned>(range("RxDescriptors", p.default_rxd, 80, max_desc)), REQ_RX_DESCRIPTOR_MULTIPLE);
  if (p.rx_int_delay_only) {
    // 4.2.8-k1: one delay parameter; its default and its register depend on the MAC.
    const bool radv = mac >= e1000_82540;
    const unsigned rxd = static_cast<unsigned>(range("RxIntDelay", radv ? kDefaultRadv428 : kDefaultRdtr428, 0, 0xFFFF));
    o.rx_int_delay = radv ? kRdtr82540_428 : rxd;
    o.rx_abs_int_delay = radv ? rxd : 0;  // RADV is not written before the 82540
    o.tx_int_delay = kTidv428;
    o.tx_abs_int_delay = 0;               // TADV is not written by 4.2.8
  } else {
    o.rx_int_delay = static_cast<unsigned>(range("RxIntDelay", 0, 0, 0xFFFF));
    o.rx_abs_int_delay = static_cast<unsigned>(range("RxAbsIntDelay", 128, 0, 0xFFFF));
    o.tx_int_delay = static_cast<unsigned>(range("TxIntDelay", 64, 0, 0xFFFF));
    o.tx_abs_int_delay = static_cast<unsigned>(range("TxAbsIntDelay", 64, 0, 0xFFFF));
  }
  o.xsum_rx = range("XsumRX", 1, 0, 1) != 0;
  o.flow_control = in_set("FlowControl") ? static_cast<FcType>(v.i("FlowControl")) : e1000_fc_default;
  o.speed = in_set("Speed") ? static_cast<unsigned>(v.i("Speed")) : 0;
  o.duplex = static_cast<unsigned>(range("Duplex", 0, 0, 2));
  // AutoNeg together with a forced Speed/Duplex is ignored (e1000_check_copper_options).
  o.autoneg = (in_set("AutoNeg") && o.speed == 0 && o.duplex == 0) ? static_cast<unsigned>(v.i("AutoNeg")) : 0x2F;
  o.copybreak = p.copybreak ? static_cast<unsigned>(v.i("copybreak")) : 0;
  o.rx_prefetch = p.rx_prefetch && v.i("prefetch") != 0;
  if (p.itr_param) {
    o.itr = in_set("InterruptThrottleRate") ? static_cast<int>(v.i("InterruptThrottleRate")) : p.default_itr;
  } else {
    o.itr = -1;
  }
  return o;
}

namespace {
/// e1000_check_copper_options' link modes from Speed, Duplex and AutoNeg (DriverTraits::link_modes):
/// a forced 10/100 mode, or the autonegotiation advertisement they leave; AutoNeg beside Speed or
/// Duplex is reported as ignored.
LinkModes link_modes(const ParamValues& v) {
  // e1000_check_copper_options (e1000_param.c, 4.x-6.x): Speed and Duplex force a mode or narrow
  // the advertisement; AutoNeg is the advertisement when neither is given. HALF_DUPLEX 1, FULL_DUPLEX 2.
  const int64_t speed = v.i("Speed"), duplex = v.i("Duplex"), an = v.i("AutoNeg");
  LinkModes m;
  m.key = speed ? "Speed" : duplex ? "Duplex" : an != 0x2F ? "AutoNeg" : "";
  if ((speed || duplex) && an != 0x2F)
    m.problem = fmt::format("AutoNeg = {:#x} is ignored when Speed or Duplex is given (e1000_check_copper_options: "
                            "\"AutoNeg specified along with Speed or Duplex, parameter ignored\"): set AutoNeg alone "
                            "or Speed/Duplex alone",
                            an);
  auto set = [&](bool autoneg, unsigned modes, const std::string& how) {
    m.autoneg = autoneg;
    m.modes = modes;
    m.how = fmt::format("Speed = {}, Duplex = {}: {}", speed, duplex, how);
  };
  switch (speed) {
    case 0:
      if (duplex == 0) {
        m.modes = static_cast<unsigned>(an);
        m.how = fmt::format("AutoNeg = {:#x}: autonegotiation", an);
      } else if (duplex == 1) {
        set(true, 0x05, "autonegotiation at half duplex only");
      } else {
        set(true, 0x2A, "autonegotiation at full duplex only");
      }
      break;
    case 10:
      set(duplex == 0, duplex == 0 ? 0x03u : duplex == 1 ? 0x01u : 0x02u,
          duplex == 0 ? "autonegotiation at 10 Mb/s only" : duplex == 1 ? "forced 10 Mb/s half duplex" : "forced 10 Mb/s full duplex");
      break;
    case 100:
      set(duplex == 0, duplex == 0 ? 0x0Cu : duplex == 1 ? 0x04u : 0x08u,
          duplex == 0 ? "autonegotiation at 100 Mb/s only"
                      : duplex == 1 ? "forced 100 Mb/s half duplex" : "forced 100 Mb/s full duplex");
      break;
    default:  // 1000 Mb/s is never forced: 1000BASE-T needs autonegotiation (half duplex is not supported)
      set(true, 0x20, "autonegotiation at 1000 Mb/s full duplex only");
      break;
  }
  return m;
}
}  // namespace

namespace {
DriverEntry entry(const DriverProfile& p) {
  DriverEntry e;
  e.name = p.name;
  e.summary = p.summary;
  e.params = param_schema(p);
  e.devices = {"82544GC", "82544EI", "82540EM", "82545EM", "82546EB"};
  const DriverProfile* pp = &p;
  e.probe = [pp](Kernel& k, PciDevice& dev, const std::vector<unsigned>& vectors, const ProbeTarget& nic,
                 const ParamValues& params) { return probe(*pp, k, dev, vectors, nic, params); };
  // No check of its own: the values e1000_check_options refuses are outside the schema's accepted
  // sets, which the scenario loader enforces (the real driver logs "Invalid ..." and uses the default;
  // a scenario asking for such a value is a mistake, so a sweep never silently runs the default).
  return e;
}
Registrar<DriverEntry> reg_428{entry(profile_4_2_8_k1())};
Registrar<DriverEntry> reg_4412{entry(profile_4_4_12_k1())};
Registrar<DriverEntry> reg_5043{entry(profile_5_0_43_k1())};
Registrar<DriverEntry> reg_5610{entry(profile_5_6_10_1_k2())};
Registrar<DriverEntry> reg_6060{entry(profile_6_0_60_k2())};
Registrar<DriverEntry> reg_6215{entry(profile_6_2_15())};
DriverTraits traits(const DriverProfile& p) {
  // MTU 1500: dev_alloc_skb(rx_buffer_len + reserve_len) per ring slot (e1000_alloc_rx_buffers).
  return {p.name, kCostDriver,
          [](const ParamValues&) { return dev_alloc_skb_truesize(E1000_RXBUFFER_2048 + E1000_RX_RESERVE_LEN); },
          link_modes};
}
Registrar<DriverTraits> traits_428{traits(profile_4_2_8_k1())};
Registrar<DriverTraits> traits_4412{traits(profile_4_4_12_k1())};
Registrar<DriverTraits> traits_5043{traits(profile_5_0_43_k1())};
Registrar<DriverTraits> traits_5610{traits(profile_5_6_10_1_k2())};
Registrar<DriverTraits> traits_6060{traits(profile_6_0_60_k2())};
Registrar<DriverTraits> traits_6215{traits(profile_6_2_15())};
}  // namespace

}  // namespace nicsim::e1000drv
