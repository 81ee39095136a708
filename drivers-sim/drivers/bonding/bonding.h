// The Linux 2.4.20 bonding driver (drivers/net/bonding.c, in LH@2.4.20; the same file as
// MaximeChretien/linux-history tag 2.4.20) and the part of its user-space companion ifenslave
// (Documentation/networking/ifenslave.c of the same tree) that decides the slaves' MAC addresses.
//
// A bond is a stacked net_device over slave net_devices:
//  * bond_init: ether_setup, then dev->tx_queue_len = 0, so dev_activate gives the bond the
//    noqueue qdisc (Kernel::dev_queue_xmit calls hard_start_xmit directly); each slave keeps its
//    own pfifo_fast (txqueuelen 100);
//  * hard_start_xmit by module parameter `mode` (2.4.20 knows three, include/linux/if_bonding.h):
//    0 BOND_MODE_ROUNDROBIN (default): bond_xmit_roundrobin sends on current_slave and moves
//      current_slave to slave->next: strict per-packet alternation over the usable slaves;
//    1 BOND_MODE_ACTIVEBACKUP: bond_xmit_activebackup, always current_slave;
//    2 BOND_MODE_XOR: bond_xmit_xor, slave (h_dest[5] ^ dev_addr[5]) % slave_cnt counted from the
//      last enslaved backwards;
//    each sets skb->dev = slave, skb->priority = 1 and calls dev_queue_xmit; a frame with no usable
//    slave (IS_UP: IFF_UP and carrier, link BOND_LINK_UP, state BOND_STATE_ACTIVE) is freed;
//  * receive: netdev_set_master makes the bond the slave's dev->master and netif_receive_skb's
//    skb_bond hands the slave's packets to IP as the bond's;
//  * miimon (ms, 0 = off, the default): bond_mii_monitor every miimon*HZ/1000 jiffies runs each
//    slave's link through BOND_LINK_UP / FAIL / DOWN / BACK with downdelay / updelay (counted in
//    miimon periods, bond_init divides them), using bond_check_dev_link: ETHTOOL_GLINK, else the
//    MII link bit through SIOCGMIIPHY, or "up" when the slave's driver answers neither
//    (NetDevice::mii_link_status);
//  * MAC address: bond_enslave gives a bond whose address is still all zeros its first slave's
//    (bond_sethwaddr); ifenslave then sets every later slave's address to the bond's
//    (SIOCSIFHWADDR, taking the slave down first when its driver refuses while up).
// Broadcast (mode 3), 802.3ad, balance-tlb and balance-alb appeared in later bonding.c versions
// and are refused by name (bond_mode_problem).
#pragma once
#include "core/params.h"
#include "drivers-sim/kernel/driver_costs.h"
#include "drivers-sim/kernel/kernel.h"
#include "drivers-sim/kernel/netdevice.h"
#include <string>
#include <vector>

namespace nicsim::bonding {

/// include/linux/if_bonding.h (2.4.20): BOND_MODE_ROUNDROBIN 0, ACTIVEBACKUP 1, XOR 2.
enum class BondMode : int { balance_rr = 0, active_backup = 1, balance_xor = 2 };
/// The mode's name as later bonding.txt spells it ("balance-rr", "active-backup", "balance-xor").
const char* bond_mode_name(BondMode m);
/// Parse `mode` as the scenario writes it: the module's number ("0".."2") or the name. Returns
/// false for anything else (see bond_mode_problem for the message).
bool parse_bond_mode(const std::string& text, BondMode* out);
/// Why `text` is not a 2.4.20 bonding mode (empty when it is): names the modes later drivers
/// added (broadcast, 802.3ad, balance-tlb, balance-alb) as such.
std::string bond_mode_problem(const std::string& text);

/// The module parameters (MODULE_PARM in bonding.c 2.4.20), as `[hosts.H.bonds.bond0]` keys.
/// `mode` is a string parameter (its number or its name); `slaves` is read by the loader itself.
ParamSchema bonding_param_schema();

/// Module parameters of one bond (bonding.c statics: mode, miimon, updelay, downdelay).
struct BondParams {
  BondMode mode = BondMode::balance_rr;  ///< `static int mode = BOND_MODE_ROUNDROBIN`
  int miimon_ms = 0;                     ///< BOND_LINK_MON_INTERV = 0: link monitoring off
  int updelay_ms = 0;                    ///< `static int updelay = 0`
  int downdelay_ms = 0;                  ///< `static int downdelay = 0`
};
/// BondParams from values of bonding_param_schema(); throws std::invalid_argument on a bad mode.
BondParams bond_params_from(const ParamValues& v);

/// slave->link (bonding.c BOND_LINK_*) and slave->state (BOND_STATE_*).
enum class SlaveLink { up, fail, down, back };
enum class SlaveState { active, backup };

struct Slave {
  NetDevice* dev = nullptr;
  SlaveLink link = SlaveLink::up;
  SlaveState state = SlaveState::active;
  int delay = 0;                     ///< miimon periods left of updelay / downdelay
  uint64_t link_failure_count = 0;
  uint64_t* tx_packets = nullptr;    ///< counter "<host>.<bond>.<slave>.tx_packets": frames handed
                                     ///< to the slave's dev_queue_xmit
};

/// Path indexes of the bonding cost entries (bonding_path_names()).
enum class Path : unsigned { bond_xmit, bond_mii_monitor };
const std::vector<std::string>& path_names();

class Bonding : public NetDevice {
 public:
  /// register_netdev is the caller's (as bonding_init does for bond0 .. max_bonds-1). Counters
  /// (sim().counters): "<host>.<bond>.tx_no_slave" now, "<host>.<bond>.<slave>.tx_packets" at
  /// enslave.
  Bonding(Kernel& k, std::string name, BondParams p);
  ~Bonding() override;

  /// bond_open: arms the MII monitor when miimon > 0.
  Task<int> open() override;
  /// bond_close: stops the monitor and releases every slave (bond_release_all).
  Task<int> stop() override;
  /// bond_xmit_roundrobin / _activebackup / _xor by mode; always returns 0 (took the skb).
  Task<int> hard_start_xmit(SkbPtr& skb) override;
  /// bond_check_mii_link: BMSR_LSTATUS while the bond has a current slave.
  int mii_link_status() override { return current_ >= 0 ? 1 : 0; }

  /// bond_enslave (SIOCBONDENSLAVE): 0, or -EINVAL (-22) when `slave` is not up, -EBUSY (-16)
  /// when it (or this bond) is already a slave. The bond takes the first slave's MAC while its
  /// own address is all zeros (bond_sethwaddr).
  int enslave(NetDevice& slave);
  /// bond_release_all: every slave loses its master.
  void release_all();

  const BondParams& params() const { return p_; }
  const std::vector<Slave>& slaves() const { return slaves_; }
  /// Index into slaves() of bond->current_slave, -1 when none.
  int current_slave() const { return current_; }
  /// Whether a frame sent now would find a slave (IS_UP, link BOND_LINK_UP, state active): what
  /// /proc/net/bonding/bond0 shows as a slave with "MII Status: up" in use.
  bool has_usable_slave() const {
    for (auto& s : slaves_)
      if (usable(s)) return true;
    return false;
  }
  /// Frames freed for want of a usable slave ("no suitable interface, frame not sent").
  uint64_t tx_no_slave() const { return *tx_no_slave_; }
  /// This bond's block of /proc/net/<bond>/info as 2.4.20's bond_get_info prints it (see
  /// proc_net_bond_info).
  std::string proc_info_block() const;

 private:
  Task<void> mii_monitor();
  /// change_active_interface: the next slave after the current one with link up and IS_UP.
  void change_active_interface();
  static bool is_up(const NetDevice& d) { return d.up && d.netif_carrier_ok(); }
  bool usable(const Slave& s) const { return is_up(*s.dev) && s.link == SlaveLink::up && s.state == SlaveState::active; }
  Task<int> send_on(size_t slave, SkbPtr& skb);
  /// bond->current_slave = slave `i` (-1: none), noting an active-backup change in the run's
  /// event log (core/events.h) with `why`.
  void set_current(int i, const char* why);
  void note(const std::string& what, const std::string& detail);
  bool first_frame_pending_ = false;  ///< the next frame on the new active slave is noted
  uint64_t miimon_jiffies() const;

  BondParams p_;
  int updelay_periods_ = 0, downdelay_periods_ = 0;  ///< bond_init: updelay /= miimon
  std::vector<Slave> slaves_;  ///< in enslave order; slave i's next is i+1 (the last's is 0)
  int current_ = -1;
  uint64_t* tx_no_slave_;  ///< counter "<host>.<bond>.tx_no_slave"
  TimerList mii_timer_;
  DriverCosts costs_;
};

/// What `cat /proc/net/bondN/info` shows on a 2.4.20 host whose bonds are `bonds` (in
/// registration order). bonding.c 2.4.20 bond_init makes /proc/net/<bond>/info (there is no
/// /proc/net/bonding/ directory in 2.4.20: later bonding versions moved the file there), and
/// bond_get_info walks every bond (these_bonds), so each bond's file holds every bond's block, one
/// after the other. Per block: "Bonding Mode: " active-backup / load balancing (round-robin) /
/// load balancing (xor); "Currently Active Slave: ethN" in active-backup while current_slave is
/// set; "MII Status" of the bond (bond_check_mii_link: up while it has a current slave); "MII
/// Polling Interval (ms)"; "Up Delay (ms)" and "Down Delay (ms)" as bond_init left them: divided
/// by miimon, so in miimon ticks (updelay=5000, miimon=100 shows 50; research
/// link-faults-failover.md §A7); then per slave, from the last enslaved to the first (the walk
/// runs bond->prev backwards), "Slave Interface", "MII Status" (up only in BOND_LINK_UP: FAIL and
/// BACK show down) and "Link Failure Count".
std::string proc_net_bond_info(const std::vector<const Bonding*>& bonds);
/// The bonds kernel `k` knows, bond0, bond1, ... up to the first name it does not know (the order
/// bonding_init registers them in).
std::vector<const Bonding*> host_bonds(const Kernel& k);

/// ifenslave MASTER SLAVE (2.4.20 Documentation/networking/ifenslave.c), in process context:
/// brings `slave` up if it is down (dev_open), gives it the bond's MAC when the bond already has
/// one (set_mac_address; on -EBUSY the slave is taken down, set and reopened, as ifenslave does),
/// then SIOCBONDENSLAVE. Returns 0 or the failing step's negative errno.
Task<int> ifenslave(Bonding& bond, NetDevice& slave);

}  // namespace nicsim::bonding
