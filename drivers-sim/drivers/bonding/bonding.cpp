#include "drivers-sim/drivers/bonding/bonding.h"
#include "core/events.h"
#include "core/registry.h"
#include "core/sim_context.h"
#include <fmt/format.h>
#include <stdexcept>

namespace nicsim::bonding {

namespace {
constexpr int kEinval = 22, kEbusy = 16;
}

const char* bond_mode_name(BondMode m) {
  switch (m) {
    case BondMode::balance_rr: return "balance-rr";
    case BondMode::active_backup: return "active-backup";
    case BondMode::balance_xor: return "balance-xor";
  }
  return "?";
}

bool parse_bond_mode(const std::string& t, BondMode* out) {
  BondMode m;
  if (t == "0" || t == "balance-rr") m = BondMode::balance_rr;
  else if (t == "1" || t == "active-backup") m = BondMode::active_backup;
  else if (t == "2" || t == "balance-xor") m = BondMode::balance_xor;
  else return false;
  if (out) *out = m;
  return true;
}

std::string bond_mode_problem(const std::string& t) {
  if (parse_bond_mode(t, nullptr)) return "";
  // Later bonding.c versions (bonding.txt of 2.4.22 onwards) added these.
  static const std::vector<std::pair<std::string, std::string>> later = {
      {"3", "broadcast"}, {"4", "802.3ad"}, {"5", "balance-tlb"}, {"6", "balance-alb"}};
  for (auto& [num, name] : later)
    if (t == num || t == name)
      return fmt::format("mode {} ({}) is not in Linux 2.4.20's bonding.c, which knows 0 (balance-rr), 1 "
                         "(active-backup) and 2 (balance-xor); it came with later bonding versions and is not modelled",
                         num, name);
  return fmt::format("'{}' is not a bonding mode of Linux 2.4.20 (0 or balance-rr, 1 or active-backup, 2 or "
                     "balance-xor: include/linux/if_bonding.h)",
                     t);
}

ParamSchema bonding_param_schema() {
  return {
      string_param("mode", "balance-rr", {}, "bonding policy: 0/balance-rr, 1/active-backup, 2/balance-xor",
                   "2.4.20 bonding.c: static int mode = BOND_MODE_ROUNDROBIN"),
      int_param("miimon", 0, 0, 100000, "ms", "MII link check interval (0: no monitoring)",
                "2.4.20 bonding.c: miimon = BOND_LINK_MON_INTERV = 0"),
      int_param("updelay", 0, 0, 1000000, "ms", "delay before a slave whose link came back is used",
                "2.4.20 bonding.c: updelay = 0"),
      int_param("downdelay", 0, 0, 1000000, "ms", "delay before a slave whose link went down is disabled",
                "2.4.20 bonding.c: downdelay = 0"),
  };
}

BondParams bond_params_from(const ParamValues& v) {
  BondParams p;
  if (!parse_bond_mode(v.s("mode"), &p.mode)) throw std::invalid_argument(bond_mode_problem(v.s("mode")));
  p.miimon_ms = static_cast<int>(v.i("miimon"));
  p.updelay_ms = static_cast<int>(v.i("updelay"));
  p.downdelay_ms = static_cast<int>(v.i("downdelay"));
  return p;
}

const std::vector<std::string>& path_names() {
  static const std::vector<std::string> names = {"bond_xmit", "bond_mii_monitor"};
  return names;
}

namespace {
// Linux 2.4.20 on a Pentium 4 Xeon, cycles at 2.4 GHz (as the e1000 table).
DriverCostTable p4xeon_2420() {
  return driver_cost_table(
      "bonding", "linux-2.4.20-p4xeon",
      {
          {"bond_xmit",
           {120, 0, false,
            "estimate: bond_xmit_roundrobin/_activebackup/_xor: read_lock_irqsave + ptrlock, IS_UP tests of one "
            "slave, skb->dev/priority stores (~40 instructions and two lock cache lines); the slave's "
            "dev_queue_xmit is charged as its own entry"}},
          {"bond_mii_monitor",
           {300, 0, false, "estimate: bond_mii_monitor's walk of the slave list, a do_ioctl call per slave"}},
      },
      "bonding.c (Linux 2.4.20) paths on a Pentium 4 Xeon, cycles at 2.4 GHz");
}
Registrar<DriverCostTable> reg_p4xeon_2420{p4xeon_2420()};
}  // namespace

Bonding::Bonding(Kernel& k, std::string name, BondParams p) : NetDevice(k, std::move(name)), p_(p) {
  tx_queue_len = 0;  // bond_init: dev->tx_queue_len = 0 (noqueue)
  // bonding.c never calls netif_carrier_off on the bond, so its NOCARRIER bit stays clear.
  netif_carrier_on();
  if (p_.miimon_ms > 0) {  // bond_init: updelay /= miimon; downdelay /= miimon
    updelay_periods_ = p_.updelay_ms / p_.miimon_ms;
    downdelay_periods_ = p_.downdelay_ms / p_.miimon_ms;
  }
  tx_no_slave_ = &sim().counters.at(k.host() + "." + this->name() + ".tx_no_slave");
  mii_timer_.function = [this]() { return mii_monitor(); };
  costs_ = k.driver_costs("bonding", path_names());
}

// At teardown the host's net_devices go in no set order, so the slaves may already be gone: the
// destructor must not touch them (ASan: heap-use-after-free in release_all from ~Bonding). A live
// bond releases its slaves in stop().
Bonding::~Bonding() { slaves_.clear(); }

uint64_t Bonding::miimon_jiffies() const {
  return static_cast<uint64_t>(p_.miimon_ms) * kernel().params().hz / 1000;  // miimon * HZ / 1000
}

Task<int> Bonding::open() {
  if (p_.miimon_ms > 0) kernel().mod_timer(mii_timer_, kernel().jiffies() + miimon_jiffies());
  co_return 0;
}

Task<int> Bonding::stop() {
  kernel().del_timer(mii_timer_);
  release_all();
  co_return 0;
}

void Bonding::release_all() {
  for (auto& s : slaves_)
    if (s.dev && s.dev->master == this) s.dev->master = nullptr;
  slaves_.clear();
  current_ = -1;
}

int Bonding::enslave(NetDevice& slave) {
  if (!slave.up) return -kEinval;                      // "slave_dev is not running"
  if (master || slave.master) return -kEbusy;          // already enslaved
  if (&slave == this) return -kEbusy;
  slave.master = this;                                 // netdev_set_master
  Slave s;
  s.dev = &slave;
  s.tx_packets = &sim().counters.at(kernel().host() + "." + name() + "." + slave.name() + ".tx_packets");
  // Initial state: link up without miimon, else as bond_check_dev_link reports it.
  const int mii = slave.mii_link_status();
  s.link = (p_.miimon_ms <= 0 || mii != 0) ? SlaveLink::up : SlaveLink::down;
  slaves_.push_back(s);
  Slave& ns = slaves_.back();
  const int idx = static_cast<int>(slaves_.size()) - 1;
  if (p_.mode == BondMode::active_backup) {
    const bool no_active = current_ < 0 || slaves_[current_].state == SlaveState::backup;
    if (no_active && ns.link == SlaveLink::up) {
      current_ = idx;
      ns.state = SlaveState::active;
    } else {
      ns.state = SlaveState::backup;
    }
  } else {
    ns.state = SlaveState::active;  // always active in trunk mode
    if (current_ < 0) current_ = idx;
  }
  bool zero = true;
  for (uint8_t b : dev_addr) zero = zero && b == 0;
  if (zero) dev_addr = slave.dev_addr;  // bond_sethwaddr: the MAC of the first slave
  return 0;
}

void Bonding::note(const std::string& what, const std::string& detail) {
  // What `cat /proc/net/<bond>/info` shows at that moment, every bond of the host in it.
  run_events().note(sc_core::sc_time_stamp(), kernel().host() + "." + name(), what, detail,
                    "/proc/net/" + name() + "/info", proc_net_bond_info(host_bonds(kernel())));
}

void Bonding::set_current(int i, const char* why) {
  if (i == current_) return;
  const std::string from = current_ >= 0 ? slaves_[current_].dev->name() : "none";
  current_ = i;
  if (p_.mode != BondMode::active_backup) return;  // rr/xor: current_slave is only where the walk starts
  note("active slave changed", fmt::format("{} -> {} ({})", from, i >= 0 ? slaves_[i].dev->name() : "none", why));
  first_frame_pending_ = i >= 0;
}

Task<int> Bonding::send_on(size_t i, SkbPtr& skb) {
  Slave& s = slaves_[i];
  if (first_frame_pending_ && static_cast<int>(i) == current_) {
    first_frame_pending_ = false;
    note("first frame on the new path", fmt::format("handed to {}", s.dev->name()));
  }
  skb->dev = s.dev;
  skb->priority = 1;
  ++*s.tx_packets;
  ++stats.tx_packets;
  stats.tx_bytes += skb->len;
  (void)co_await kernel().dev_queue_xmit(std::move(skb));
  co_return 0;
}

Task<int> Bonding::hard_start_xmit(SkbPtr& skb) {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::bond_xmit]);
  const size_t n = slaves_.size();
  if (!is_up(*this) || current_ < 0 || n == 0) {  // bond down, or "we're at the root"
    ++*tx_no_slave_;
    co_await k.kfree_skb(std::move(skb));
    co_return 0;
  }
  switch (p_.mode) {
    case BondMode::balance_rr: {
      const size_t start = static_cast<size_t>(current_);
      size_t i = start;
      do {
        if (usable(slaves_[i])) {
          current_ = static_cast<int>((i + 1) % n);  // bond->current_slave = slave->next
          co_return co_await send_on(i, skb);
        }
        i = (i + 1) % n;
      } while (i != start);
      break;
    }
    case BondMode::active_backup:
      co_return co_await send_on(static_cast<size_t>(current_), skb);
    case BondMode::balance_xor: {
      // slave = bond->prev (the last enslaved), then slave_no steps backwards.
      const uint8_t* eth = skb->data();
      size_t slave_no = (eth[5] ^ slaves_[n - 1].dev->dev_addr[5]) % n;
      const size_t start = n - 1 - slave_no;
      size_t i = start;
      do {
        if (usable(slaves_[i])) co_return co_await send_on(i, skb);
        i = (i + 1) % n;
      } while (i != start);
      break;
    }
  }
  ++*tx_no_slave_;  // "no suitable interface, frame not sent"
  co_await k.kfree_skb(std::move(skb));
  co_return 0;
}

void Bonding::change_active_interface() {
  const size_t n = slaves_.size();
  if (n == 0) {
    current_ = -1;
    return;
  }
  const size_t start = current_ < 0 ? 0 : static_cast<size_t>(current_);
  int best = -1;
  int mintime = updelay_periods_;
  size_t i = start;
  do {
    Slave& s = slaves_[i];
    if (is_up(*s.dev)) {
      if (s.link == SlaveLink::up) {
        if (p_.mode == BondMode::active_backup) s.state = SlaveState::active;
        set_current(static_cast<int>(i), "change_active_interface");
        return;
      }
      if (s.link == SlaveLink::back && s.delay < mintime) {
        mintime = s.delay;
        best = static_cast<int>(i);
      }
    }
    i = (i + 1) % n;
  } while (i != start);
  if (best >= 0) {  // early take-over
    slaves_[best].delay = 0;
    slaves_[best].link = SlaveLink::up;
    slaves_[best].state = SlaveState::active;
    set_current(best, "making the interface active earlier than updelay");
    return;
  }
  set_current(-1, "no slave has link");
}

Task<void> Bonding::mii_monitor() {
  Kernel& k = kernel();
  co_await k.cost(costs_[Path::bond_mii_monitor]);
  int best = -1;
  // 2.4.20 walks bond->prev (the last enslaved first); per slave `mindelay` restarts at updelay+1
  // and `bestslave` is the last one that improved on its own slave's mindelay.
  for (size_t j = slaves_.size(); j-- > 0;) {
    Slave& s = slaves_[j];
    int mindelay = updelay_periods_ + 1;
    const int mii = s.dev->mii_link_status();
    const bool link = mii != 0;  // no MII ioctl (<0): spoofed up (MII_LINK_READY)
    switch (s.link) {
      case SlaveLink::up:
        if (link) {
          if (is_up(*s.dev) && mindelay > -2) {
            mindelay = -2;
            best = static_cast<int>(j);
          }
          break;
        }
        s.link = SlaveLink::fail;
        s.delay = downdelay_periods_;
        ++s.link_failure_count;
        [[fallthrough]];
      case SlaveLink::fail:
        if (!link) {
          if (s.delay <= 0) {
            s.link = SlaveLink::down;
            note("slave link down", fmt::format("link status definitely down for interface {}, disabling it",
                                                s.dev->name()));
            if (p_.mode == BondMode::active_backup) s.state = SlaveState::backup;
            if (static_cast<int>(j) == current_) change_active_interface();
          } else {
            --s.delay;
          }
        } else {
          s.link = SlaveLink::up;
          if (is_up(*s.dev) && mindelay > -1) {
            mindelay = -1;
            best = static_cast<int>(j);
          }
        }
        break;
      case SlaveLink::down:
        if (!link) break;
        s.link = SlaveLink::back;
        s.delay = updelay_periods_;
        [[fallthrough]];
      case SlaveLink::back:
        if (!link) {
          s.link = SlaveLink::down;
        } else {
          if (s.delay == 0) {
            s.link = SlaveLink::up;
            note("slave link up", fmt::format("link status definitely up for interface {}", s.dev->name()));
            s.state = p_.mode == BondMode::active_backup ? SlaveState::backup : SlaveState::active;
          } else {
            --s.delay;
          }
          if (is_up(*s.dev) && s.delay < mindelay) {
            mindelay = s.delay;
            best = static_cast<int>(j);
          }
        }
        break;
    }
  }
  if (current_ < 0 && best >= 0) {  // no active interface: take the best candidate
    Slave& b = slaves_[best];
    if (b.link != SlaveLink::up) {
      b.delay = 0;
      b.link = SlaveLink::up;
    }
    b.state = SlaveState::active;
    set_current(best, "bond had no active slave");
  }
  k.mod_timer(mii_timer_, k.jiffies() + miimon_jiffies());
}

Task<int> ifenslave(Bonding& bond, NetDevice& slave) {
  Kernel& k = bond.kernel();
  bool master_has_addr = false;
  for (uint8_t b : bond.dev_addr) master_has_addr = master_has_addr || b != 0;
  if (master_has_addr && slave.dev_addr != bond.dev_addr) {  // assign the master's hwaddr to this slave
    int rc = co_await slave.set_mac_address(bond.dev_addr);
    if (rc == -kEbusy) {  // ifenslave takes the slave down for SIOCSIFHWADDR
      (void)co_await slave.stop();
      slave.up = false;
      rc = co_await slave.set_mac_address(bond.dev_addr);
    }
    if (rc != 0) co_return rc;
  }
  if (!slave.up) {  // "the interface will need to be up to be bonded"
    int rc = co_await k.dev_open(slave);
    if (rc != 0) co_return rc;
  }
  co_return bond.enslave(slave);
}

std::string Bonding::proc_info_block() const {
  // bond_get_info (2.4.20 bonding.c), one sprintf after another.
  const char* mode = p_.mode == BondMode::active_backup ? "active-backup"
                     : p_.mode == BondMode::balance_rr  ? "load balancing (round-robin)"
                                                        : "load balancing (xor)";
  std::string s = fmt::format("Bonding Mode: {}\n", mode);
  if (p_.mode == BondMode::active_backup && current_ >= 0)
    s += fmt::format("Currently Active Slave: {}\n", slaves_[current_].dev->name());
  s += fmt::format("MII Status: {}\n", current_ >= 0 ? "up" : "down");  // bond_check_mii_link
  s += fmt::format("MII Polling Interval (ms): {}\n", p_.miimon_ms);
  // The module's updelay/downdelay after bond_init: divided by miimon when monitoring is on.
  const int up = p_.miimon_ms > 0 ? updelay_periods_ : p_.updelay_ms;
  const int down = p_.miimon_ms > 0 ? downdelay_periods_ : p_.downdelay_ms;
  s += fmt::format("Up Delay (ms): {}\n", up);
  s += fmt::format("Down Delay (ms): {}\n", down);
  for (auto it = slaves_.rbegin(); it != slaves_.rend(); ++it) {  // bond->prev, then slave->prev
    s += fmt::format("\nSlave Interface: {}\n", it->dev->name());
    s += fmt::format("MII Status: {}\n", it->link == SlaveLink::up ? "up" : "down");
    s += fmt::format("Link Failure Count: {}\n", it->link_failure_count);
  }
  return s;
}

std::vector<const Bonding*> host_bonds(const Kernel& k) {
  std::vector<const Bonding*> out;
  for (int i = 0;; ++i) {
    auto* b = dynamic_cast<const Bonding*>(k.dev_get(fmt::format("bond{}", i)));
    if (!b) return out;
    out.push_back(b);
  }
}

std::string proc_net_bond_info(const std::vector<const Bonding*>& bonds) {
  std::string s;
  for (const Bonding* b : bonds) s += b->proc_info_block();
  return s;
}

}  // namespace nicsim::bonding
