#include "drivers-sim/kernel/costs.h"
#include "drivers-sim/kernel/costs_linux_2_6.h"
#include "drivers-sim/kernel/cpu_time.h"
#include "core/registry.h"
#include <stdexcept>

namespace nicsim {

const char* cost_name(CostId id) {
  static const char* names[kCostCount] = {
      "syscall_entry", "syscall_exit", "copy_user_cached", "copy_user_uncached", "csum_partial",
      "skb_alloc",     "skb_free",     "netif_rx",         "net_rx_action",      "ip_rcv",
      "ip_output",     "tcp_v4_rcv",   "tcp_sendmsg",      "tcp_transmit_skb",   "tcp_recvmsg",
      "tcp_ack",       "udp_sendmsg",  "udp_rcv",          "udp_recvmsg",        "ip_defrag",
      "dev_queue_xmit", "net_tx_action",  "wakeup",             "context_switch",
      "pipe_rw",       "irq_entry",    "irq_return",       "apic_eoi",           "softirq_entry",
      "timer_interrupt", "local_timer", "run_timer_list", "timer_callback", "spin_lock",
      "locked_op", "add_interrupt_randomness", "ip_forward"};
  return names[static_cast<size_t>(id)];
}

double CostProfile::cycles(const CostEntry& e, size_t bytes, double mhz) const {
  double per_byte = e.memory_bound ? e.cycles_per_byte * mhz / ref_mhz : e.cycles_per_byte;
  return e.cycles_per_call + per_byte * static_cast<double>(bytes);
}

void CostProfile::set(CostId id, double cycles_per_call, double cycles_per_byte, bool memory_bound, const char* source) {
  CostEntry& e = entries[static_cast<size_t>(id)];
  e.cycles_per_call = cycles_per_call;
  e.cycles_per_byte = cycles_per_byte;
  e.memory_bound = memory_bound;
  e.source = source;
}

void CostProfile::set_smp_locked_ops(CostId id, unsigned n, const char* source) {
  CostEntry& e = entries[static_cast<size_t>(id)];
  e.smp_locked_ops = n;
  e.smp_locked_source = source;
}

CostEntry scaled_entry(CostEntry e, const std::vector<std::pair<std::string, double>>& scales) {
  if (!e.group) return e;
  for (const auto& [group, factor] : scales)
    if (group == e.group) {
      e.cycles_per_call *= factor;
      e.cycles_per_byte *= factor;
    }
  return e;
}

void CostProfile::scale_group(const std::string& group, double factor) {
  const std::vector<std::pair<std::string, double>> one{{group, factor}};
  for (CostEntry& e : entries) e = scaled_entry(e, one);
  group_scales.emplace_back(group, factor);
}

const std::vector<CostGroup>& cost_groups() {
  static const std::vector<CostGroup> groups{linux26_profile_cost_group(), uncached_copy_cost_group()};
  return groups;
}

void set_what_tags(CostProfile& p) {
  for (size_t i = 0; i < kCostCount; ++i) p.entries[i].what = what_tag(static_cast<CostId>(i));
}

const CostProfile& cost_profile(const std::string& name) {
  const auto& reg = Registry<CostProfile>::instance();
  if (const CostProfile* p = reg.find(name)) return *p;
  std::string known;
  for (auto& k : reg.names()) known += (known.empty() ? "" : ", ") + k;
  const std::string near = nearest_name(name, reg.names());
  throw std::invalid_argument("unknown cost profile '" + name + "'" +
                              (near.empty() ? "" : " (did you mean '" + near + "'?)") + " (known: " + known + ")");
}

std::vector<std::string> cost_profile_names() { return Registry<CostProfile>::instance().names(); }

}  // namespace nicsim
