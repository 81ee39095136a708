#include "core/journey.h"
#include <algorithm>
#include <functional>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace nicsim {

namespace {
struct ViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

/// A mark of a journey in flight: its time, (stage, cause) key and place, by index.
struct HeldMark {
  sc_time t;
  uint32_t key;
  uint32_t where;
};
}  // namespace

struct JourneyLog::Impl {
  JourneyTotals totals;
  std::unordered_map<std::string, uint32_t, ViewHash, std::equal_to<>> name_ids;
  std::unordered_map<uint64_t, uint32_t> key_ids;  // (stage << 32 | cause) -> index into totals.keys

  struct Live {
    uint32_t kind = 0;
    sc_time first;                // the earliest mark's time
    std::vector<HeldMark> held;   // the unfolded marks, sorted by time (the oldest first)
    bool folded_any = false;
    std::vector<std::pair<uint32_t, double>> stage_us;             // as JourneyTotals::Finished
    std::vector<std::tuple<uint32_t, uint32_t, uint64_t>> where;  // (key, where, ticks)
  };
  JourneyId last = 0;
  std::unordered_map<JourneyId, Live> live;
  uint64_t late = 0;
  size_t held = 0;

  bool keep = false;
  std::unordered_map<JourneyId, Journey> live_full;
  std::vector<Journey> done_full;

  uint32_t name(std::string_view s) {
    auto it = name_ids.find(s);
    if (it != name_ids.end()) return it->second;
    const auto id = static_cast<uint32_t>(totals.names.size());
    totals.names.emplace_back(s);
    name_ids.emplace(std::string(s), id);
    return id;
  }
  uint32_t key(std::string_view stage, std::string_view cause) {
    const uint32_t s = name(stage), c = name(cause);
    const uint64_t k = uint64_t(s) << 32 | c;
    auto it = key_ids.find(k);
    if (it != key_ids.end()) return it->second;
    const auto id = static_cast<uint32_t>(totals.keys.size());
    totals.keys.emplace_back(s, c);
    key_ids.emplace(k, id);
    return id;
  }

  /// Add mark `m`, which lasts until `next`, to `j`'s sums (the breakdown's arithmetic: the
  /// interval in µs added to the stage's running sum, in time order).
  static void fold(Live& j, const HeldMark& m, const sc_time& next) {
    const sc_time d = next > m.t ? next - m.t : SC_ZERO_TIME;
    auto s = std::find_if(j.stage_us.begin(), j.stage_us.end(), [&](auto& e) { return e.first == m.key; });
    if (s == j.stage_us.end()) s = j.stage_us.insert(s, {m.key, 0.0});
    s->second += to_us(d);
    auto w = std::find_if(j.where.begin(), j.where.end(),
                          [&](auto& e) { return std::get<0>(e) == m.key && std::get<1>(e) == m.where; });
    if (w == j.where.end()) w = j.where.insert(w, {m.key, m.where, 0});
    std::get<2>(*w) += d.value();
  }
  /// Fold the oldest marks of `j` until kWindow remain.
  void fold_oldest(Live& j) {
    const size_t n = j.held.size() - kWindow;
    for (size_t i = 0; i < n; ++i) fold(j, j.held[i], j.held[i + 1].t);
    j.held.erase(j.held.begin(), j.held.begin() + std::ptrdiff_t(n));
    j.folded_any = true;
    held -= n;
  }
};

JourneyLog::JourneyLog() : impl_(std::make_unique<Impl>()) {}
JourneyLog::~JourneyLog() = default;

JourneyId JourneyLog::begin(std::string_view kind, const sc_time& t, std::string_view stage, std::string_view where,
                            std::string_view cause) {
  if (!enabled_) return 0;
  Impl& m = *impl_;
  const JourneyId id = ++m.last;
  Impl::Live& j = m.live[id];
  j.kind = m.name(kind);
  j.first = t;
  j.held.push_back({t, m.key(stage, cause), m.name(where)});
  ++m.held;
  if (m.keep) {
    Journey& f = m.live_full[id];
    f.id = id;
    f.kind = std::string(kind);
    f.marks.push_back({t, std::string(stage), std::string(cause), std::string(where)});
  }
  return id;
}

void JourneyLog::mark_impl(JourneyId id, const sc_time& t, std::string_view stage, std::string_view where,
                           std::string_view cause) {
  Impl& m = *impl_;
  auto it = m.live.find(id);
  if (it == m.live.end()) return;
  Impl::Live& j = it->second;
  HeldMark hm{t, m.key(stage, cause), m.name(where)};
  auto pos = j.held.end();
  while (pos != j.held.begin() && (pos - 1)->t > t) --pos;
  if (pos == j.held.begin() && j.folded_any && t < j.held.front().t) {
    // Older than what is left unfolded: placed at the oldest unfolded mark's time.
    ++m.late;
    hm.t = j.held.front().t;
  }
  if (t < j.first && !j.folded_any) j.first = t;
  j.held.insert(pos, hm);
  ++m.held;
  if (j.held.size() >= 2 * kWindow) m.fold_oldest(j);
  if (m.keep) {
    auto f = m.live_full.find(id);
    if (f != m.live_full.end()) {
      auto& ms = f->second.marks;
      auto p = ms.end();
      while (p != ms.begin() && (p - 1)->t > t) --p;
      ms.insert(p, JourneyMark{t, std::string(stage), std::string(cause), std::string(where)});
    }
  }
}

void JourneyLog::finish(JourneyId id, const sc_time& t) {
  if (id == 0) return;
  Impl& m = *impl_;
  auto it = m.live.find(id);
  if (it == m.live.end()) return;
  Impl::Live& j = it->second;
  for (size_t i = 0; i < j.held.size(); ++i) Impl::fold(j, j.held[i], i + 1 < j.held.size() ? j.held[i + 1].t : t);
  m.held -= j.held.size();
  m.totals.finished.push_back({j.kind, to_us(t - j.first), std::move(j.stage_us)});
  for (auto& [key, where, ticks] : j.where) m.totals.where_ticks[{j.kind, key, where}] += ticks;
  m.live.erase(it);
  if (m.keep) {
    auto f = m.live_full.find(id);
    if (f != m.live_full.end()) {
      f->second.end = t;
      f->second.finished = true;
      m.done_full.push_back(std::move(f->second));
      m.live_full.erase(f);
    }
  }
}

void JourneyLog::discard(JourneyId id) {
  auto it = impl_->live.find(id);
  if (it == impl_->live.end()) return;
  impl_->held -= it->second.held.size();
  impl_->live.erase(it);
  impl_->live_full.erase(id);
}

std::optional<sc_time> JourneyLog::last_mark_time(JourneyId id) const {
  auto it = impl_->live.find(id);
  if (it == impl_->live.end()) return std::nullopt;
  return it->second.held.back().t;
}

const JourneyTotals& JourneyLog::totals() const { return impl_->totals; }

std::vector<std::string> JourneyLog::finished_kinds() const {
  std::set<uint32_t> ids;
  for (auto& f : impl_->totals.finished) ids.insert(f.kind);
  std::set<std::string> kinds;
  for (uint32_t k : ids) kinds.insert(impl_->totals.names[k]);
  return {kinds.begin(), kinds.end()};
}

uint64_t JourneyLog::late_marks() const { return impl_->late; }
size_t JourneyLog::held_marks() const { return impl_->held; }

void JourneyLog::set_keep_marks(bool on) { impl_->keep = on; }

const std::vector<Journey>& JourneyLog::finished() const {
  if (!impl_->keep)
    throw std::logic_error("JourneyLog::finished: marks are not kept (call set_keep_marks(true) before the run)");
  return impl_->done_full;
}

const Journey* JourneyLog::find(JourneyId id) const {
  auto it = impl_->live_full.find(id);
  return it == impl_->live_full.end() ? nullptr : &it->second;
}

void JourneyLog::clear() {
  const bool keep = impl_->keep;
  impl_ = std::make_unique<Impl>();
  impl_->keep = keep;
}

}  // namespace nicsim
