#include "drivers-sim/kernel/profiles.h"
#include "core/registry.h"
#include "drivers-sim/kernel/costs.h"
#include "drivers-sim/kernel/kernel_params.h"
#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace nicsim {

const char* rx_budget_name(RxBudget b) {
  return b == RxBudget::netdev_max_backlog ? "netdev_max_backlog" : "netdev_budget";
}
const char* irq_policy_name(IrqPolicy) { return "single_cpu"; }

namespace {
template <typename Entry>
const Entry& find_profile(const char* what, const std::string& name) {
  auto& reg = Registry<Entry>::instance();
  if (const Entry* e = reg.find(name)) return *e;
  std::string known;
  for (auto& n : reg.names()) known += (known.empty() ? "" : ", ") + n;
  std::string near = nearest_name(name, reg.names());
  throw std::invalid_argument(fmt::format("unknown {} profile '{}'{} (known: {})", what, name,
                                          near.empty() ? "" : " (did you mean '" + near + "'?)", known));
}
}  // namespace

const KernelProfile& kernel_profile(const std::string& name) { return find_profile<KernelProfile>("kernel", name); }
const CpuProfile& cpu_profile(const std::string& name) { return find_profile<CpuProfile>("CPU", name); }

const char* byte_order_name(ByteOrder o) { return o == ByteOrder::big ? "big-endian" : "little-endian"; }

std::string describe_profiles(const ParamValues& v) {
  const KernelProfile& k = kernel_profile(v.s("kernel_profile"));
  const CpuProfile& c = cpu_profile(v.s("cpu_profile"));
  const std::string cost = v.has("cost_profile") && !v.s("cost_profile").empty() ? v.s("cost_profile") : c.cost_profile;
  return fmt::format(
             "kernel: {} (Linux {} {}, HZ {}, {}, NET_RX budget {} = {}, {} jiffy limit, {} txqueuelen {}, IRQs {})\n",
             k.name, k.version, k.arch, k.hz, k.napi ? fmt::format("NAPI, weight_p {}", k.weight_p) : "no NAPI",
             rx_budget_name(k.rx_budget),
             k.rx_budget == RxBudget::netdev_max_backlog ? k.netdev_max_backlog : k.netdev_budget,
             k.rx_time_limit_jiffies, k.qdisc, k.tx_queue_len, irq_policy_name(k.irq_policy)) +
         fmt::format("cpu: {} ({}, {}{}, {}-{} MHz, {}-byte lines{}, L1d {} KB, L2 {} KB{}), cost table {}\n", c.name,
                     c.isa, byte_order_name(c.byte_order),
                     [&] {
                       const unsigned t = threads_per_core_of(v);
                       return t > 1 ? fmt::format(", hyper-threading: {} logical CPUs per core sharing its caches, "
                                                  "each at {:.0f} % of the core while its sibling runs",
                                                  t, 100 * c.smt_shared_speed)
                                    : c.threads_per_core > 1 ? std::string(", hyper-threading off") : std::string();
                     }(),
                     c.min_mhz, c.max_mhz, c.cache_line_bytes,
                     c.read_sector_bytes > c.cache_line_bytes
                         ? fmt::format(" read in {}-byte sectors", c.read_sector_bytes)
                         : std::string(),
                     c.l1d_kb, c.l2_kb,
                     c.l3_kb ? fmt::format(", L3 {} KB", c.l3_kb) : "", cost);
}

std::vector<ParamProblem> profile_problems(const std::string& host, const ParamValues& v) {
  std::vector<ParamProblem> out;
  auto unknown = [&](const char* key, const char* what, const std::vector<std::string>& names) {
    const std::string& n = v.s(key);
    std::string known;
    for (auto& k : names) known += (known.empty() ? "" : ", ") + k;
    out.push_back({"hosts." + host + "." + key, fmt::format("no {} profile '{}' in this build (known: {})", what, n, known),
                   nearest_name(n, names)});
  };
  if (v.has("kernel_profile") && !Registry<KernelProfile>::instance().find(v.s("kernel_profile")))
    unknown("kernel_profile", "kernel", Registry<KernelProfile>::instance().names());
  if (v.has("cost_profile") && !v.s("cost_profile").empty() && !Registry<CostProfile>::instance().find(v.s("cost_profile")))
    unknown("cost_profile", "cost", Registry<CostProfile>::instance().names());
  if (v.has("cpu_profile")) {
    const CpuProfile* c = Registry<CpuProfile>::instance().find(v.s("cpu_profile"));
    if (!c) unknown("cpu_profile", "CPU", Registry<CpuProfile>::instance().names());
    else {
      if (v.has("threads_per_core") && v.i("threads_per_core") > static_cast<int64_t>(c->threads_per_core))
        out.push_back({"hosts." + host + ".threads_per_core",
                       fmt::format("the {} CPU profile has {} logical processor{} per core (no hyper-threading); "
                                   "threads_per_core {} needs a CPU profile with it (e.g. xeon-prestonia-ht)",
                                   c->name, c->threads_per_core, c->threads_per_core == 1 ? "" : "s",
                                   v.i("threads_per_core"))});
      if (v.has("cpu_mhz") && (v.r("cpu_mhz") < c->min_mhz || v.r("cpu_mhz") > c->max_mhz))
        out.push_back({"hosts." + host + ".cpu_mhz", fmt::format("{} MHz is outside the {} CPU profile's {}-{} MHz",
                                                                 v.r("cpu_mhz"), c->name, c->min_mhz, c->max_mhz)});
      // The kernel charges its paths from this table (Kernel's constructor would throw); an explicit
      // cost_profile is checked against the registered tables above.
      const std::vector<std::string> tables = cost_profile_names();
      const bool overridden = v.has("cost_profile") && !v.s("cost_profile").empty();
      if (!overridden && std::find(tables.begin(), tables.end(), c->cost_profile) == tables.end()) {
        std::string known;
        for (auto& t : tables) known += (known.empty() ? "" : ", ") + t;
        out.push_back({"hosts." + host + ".cpu_profile",
                       fmt::format("the {} CPU profile charges the kernel's paths from cost table '{}', which this build "
                                   "does not have (known: {}); set cost_profile to one of those for a what-if",
                                   c->name, c->cost_profile, known)});
      }
    }
  }
  return out;
}

}  // namespace nicsim
