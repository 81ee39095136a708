#include "models/ether/switch.h"
#include "core/sim_context.h"
#include "models/ether/link.h"
#include "models/ether/pause.h"
#include <algorithm>
#include <stdexcept>

namespace nicsim {

namespace {
uint64_t mac_key(const uint8_t* m) {
  uint64_t k = 0;
  for (int i = 0; i < 6; ++i) k = (k << 8) | m[i];
  return k;
}
constexpr unsigned kMaxFrameBytes = 1518;  ///< 802.3 §3.2.7 maxUntaggedFrameSize incl. FCS
}  // namespace

sc_time switch_unloaded_latency(const SwitchParams& p, unsigned frame_len, unsigned speed_mbps) {
  return p.forwarding_latency + serialization_time(frame_len, speed_mbps);
}

unsigned switch_cells(unsigned frame_len, unsigned cell_bytes) {
  const unsigned b = std::max(frame_len + kEthFcsBytes, kEthMinFrameBytes);
  return (b + cell_bytes - 1) / cell_bytes;
}

/// One switch port: its receive side (ingress: forwarding, the held-train states) and its output
/// queue (egress: an SC_METHOD that starts queued frames on the wire).
class EthSwitch::Port : public sc_core::sc_module, public EthPort {
 public:
  Port(sc_core::sc_module_name n, EthSwitch& sw, unsigned idx)
      : sc_module(n), sw_(sw), idx_(idx), where_(name()),
        c_in_(ctr("frames_in")), c_out_(ctr("frames_out")), c_fwd_(ctr("frames_forwarded")),
        c_pause_rx_(ctr("pause_rx")), c_pause_tx_(ctr("pause_tx")), c_ctrl_(ctr("consumed_control")),
        c_drop_full_(ctr("drop_queue_full")), c_drop_noroom_(ctr("rx_drop_no_room")),
        c_drop_filtered_(ctr("drop_filtered")) {
    sc_core::sc_spawn_options o;
    o.spawn_method();
    o.dont_initialize();
    o.set_sensitivity(&ev_);
    sc_core::sc_spawn([this] { run(); }, "egress", &o);
    sc_core::sc_spawn_options o2;
    o2.spawn_method();
    o2.dont_initialize();
    o2.set_sensitivity(&pump_ev_);
    sc_core::sc_spawn([this] { pump(); }, "pump", &o2);
  }

  // ------------------------------------------------------------------ EthPort
  void attach_link(EthLinkEnd* end) override { link_ = end; }
  void attach_rx(EthRxFeed* feed) override { feed_ = feed; }
  std::string port_name() const override { return where_; }
  void frame_received(const EthFrame& f) override {
    ++c_in_;
    sw_.route(*this, f);
  }
  void rx_feed_settle() override {
    if (hold_ == Hold::Pass)
      break_pass();
    else if (hold_ == Hold::Drop)
      settle_drop();
  }
  std::optional<FrameTally> tally() const override {
    const_cast<Port*>(this)->take_arrived();  // held frames that arrived are counted (no state change)
    FrameTally t;
    t.sent = c_out_;
    t.accepted = c_fwd_;
    t.consumed = {{"802.3x PAUSE (pause_rx)", c_pause_rx_}, {"other MAC Control (consumed_control)", c_ctrl_}};
    t.dropped = {{"no room in the packet memory (rx_drop_no_room)", c_drop_noroom_},
                 {"destination is the ingress port (drop_filtered)", c_drop_filtered_}};
    return t;
  }

  // ------------------------------------------------------------------ egress
  /// Queue `f` (stored at `arrived`, `cells` of memory, from ingress port `from`, -1 for the
  /// switch's own control frames) for this port's wire.
  void enqueue(EthFrame f, const sc_time& arrived, unsigned cells, int from, bool control) {
    stop_passing_to();
    Queued q{std::move(f), arrived + (control ? SC_ZERO_TIME : sw_.p_.forwarding_latency), cells, from, control};
    cells_queued_ += cells;
    if (q.f.journey) sim().journeys.mark(q.f.journey, arrived, "switch", where_, "");
    if (control) {
      auto it = std::find_if(q_.begin(), q_.end(), [](const Queued& r) { return !r.control; });
      q_.insert(it, std::move(q));
    } else {
      q_.push_back(std::move(q));
    }
    ev_.notify(SC_ZERO_TIME);
  }
  /// A PAUSE of `quanta` received on this port (obey_pause): the output stops after the frame in
  /// progress (802.3 Annex 31B.3), committed train frames not started are taken back.
  void pause(unsigned quanta) {
    const unsigned speed = link_ ? link_->speed_mbps() : 1000;
    pause_until_ = now() + pause_duration(quanta, speed);
    if (quanta) stop_passing_to();
    ev_.notify(SC_ZERO_TIME);
  }
  bool paused() const { return pause_until_ > now(); }
  size_t queued() const { return q_.size() + on_wire_.size(); }
  /// Memory held by frames in this port's output queue (waiting or on the wire).
  unsigned cells_queued() const { return cells_queued_; }
  void send_pause(uint16_t quanta) {
    break_pass();  // its sender will take back what it has not started: pass no more of it
    auto sa = sw_.p_.base_mac;
    sa[5] = uint8_t(sa[5] + idx_);
    enqueue(make_pause_frame(sa, quanta), now(), 0, -1, true);
    ++c_pause_tx_;
  }

  /// Could a train of `f` arriving now from `in` pass through this (egress) port: idle, not
  /// paused when the first frame would start, same speed, trains possible on the wire.
  bool can_pass(const Port& in, const EthFrame& f) const {
    const sc_time start = now() + sw_.p_.forwarding_latency;
    return link_ && in.link_ && in.feed_ && q_.empty() && passing_from_ < 0 && pause_until_ <= start &&
           link_->wire_free_at() <= start && link_->speed_mbps() == in.link_->speed_mbps() && f.journey == 0 &&
           !sim().trace.enabled();
  }

  // ------------------------------------------------------------------ ingress
  /// Try to pass the train whose frame `f` (to `out`) just arrived through as a train.
  bool start_pass(Port& out, const EthFrame& f) {
    if (hold_ != Hold::None || !out.can_pass(*this, f) || !feed_->hold(f)) return false;
    const EthFrameTrain pk = feed_->peek();
    if (pk.n == 0) {  // the last frame of its train: nothing to pass
      feed_->release();
      return false;
    }
    hold_ = Hold::Pass;
    out_ = &out;
    out.passing_from_ = static_cast<int>(idx_);
    period_ = pk.period;
    frame_ = f;
    last_taken_ = now();
    next_ = now();  // frame f itself is committed first
    ++c_fwd_;
    commit(pk.n + 1);
    return true;
  }
  /// Frames for `out` are dropped for lack of room: hold the train while nothing frees memory.
  void start_drop_hold(Port& out, const EthFrame& f) {
    if (hold_ != Hold::None || !feed_ || f.journey != 0 || !feed_->hold(f)) return;
    hold_ = Hold::Drop;
    out_ = &out;
  }
  /// Count the held frames that have arrived by now (pass: forwarded; drop: dropped).
  void take_arrived() {
    if (hold_ == Hold::None) return;
    const EthFrameTrain t = feed_->take(now());
    if (t.n == 0) return;
    c_in_ += t.n;
    if (hold_ == Hold::Pass) {
      c_fwd_ += t.n;
      last_taken_ = t.at(t.n - 1);
    } else {
      c_drop_noroom_ += t.n;
      out_->c_drop_full_ += t.n;
    }
  }
  void settle_drop() {
    if (hold_ != Hold::Drop) return;
    take_arrived();
    feed_->release();
    hold_ = Hold::None;
    out_ = nullptr;
  }
  /// End passing through (at now): frames committed that have not started are taken back from the
  /// egress wire; those already stored (arrived) go into the egress queue as one-by-one frames,
  /// those still to come are delivered one by one again.
  void break_pass() {
    if (hold_ != Hold::Pass) return;
    Port& out = *out_;
    const uint64_t r = out.link_->retract_train(now());
    out.c_out_ -= r;
    take_arrived();
    feed_->release();
    hold_ = Hold::None;
    out.passing_from_ = -1;
    out_ = nullptr;
    pump_ev_.cancel();
    // Stored but not sent: arrivals from the first frame taken back (or never committed) to the
    // last one taken.
    const sc_time cut = sc_time::from_value(next_.value() - r * period_.value());
    if (last_taken_ >= cut) {
      const uint64_t n = (last_taken_.value() - cut.value()) / period_.value() + 1;
      const unsigned cells = switch_cells(static_cast<unsigned>(frame_.bytes.size()), sw_.p_.cell_bytes);
      for (uint64_t i = 0; i < n; ++i) {
        const sc_time at = sc_time::from_value(cut.value() + i * period_.value());
        // They were stored when they arrived (the queue was empty): room is there unless other
        // traffic filled the memory meanwhile, which the pass-through did not count.
        if (sw_.room_for(out.idx_, cells)) {
          sw_.cells_used_ += cells;
          cells_from_ += cells;
          out.enqueue(frame_, at, cells, static_cast<int>(idx_), false);
        } else {
          --c_fwd_;
          ++c_drop_noroom_;
          ++out.c_drop_full_;
        }
      }
      sw_.memory_changed();
    }
  }
  /// If an ingress port passes a train through this port, end it.
  void stop_passing_to() {
    if (passing_from_ >= 0) sw_.ports_[static_cast<size_t>(passing_from_)]->break_pass();
  }

  enum class Hold : uint8_t { None, Pass, Drop };
  Hold hold_ = Hold::None;
  EthSwitch& sw_;
  unsigned idx_;
  std::string where_;
  EthLinkEnd* link_ = nullptr;
  EthRxFeed* feed_ = nullptr;
  unsigned cells_from_ = 0;  ///< memory held by frames that arrived on this port
  bool xoff_sent_ = false;
  bool obey_pause_ = true, send_pause_ = false;  ///< this port's 802.3x settings (set_flow_control)
  uint64_t &c_in_, &c_out_, &c_fwd_, &c_pause_rx_, &c_pause_tx_, &c_ctrl_, &c_drop_full_, &c_drop_noroom_,
      &c_drop_filtered_;

 private:
  uint64_t& ctr(const char* n) { return sim().counters.at(where_ + "." + n); }
  /// Commit `n` more frames of the held train to the egress wire, the first arriving at next_.
  void commit(uint64_t n) {
    Port& out = *out_;
    const sc_time lat = sw_.p_.forwarding_latency;
    out.link_->transmit_train(frame_, next_ + lat, period_, n);
    out.c_out_ += n;
    next_ = sc_time::from_value(next_.value() + n * period_.value());
    // Come back when the last committed frame starts: by then its sender has scheduled more.
    pump_ev_.notify(sc_time::from_value(next_.value() - period_.value()) + lat - now());
  }
  /// Pass-through: commit what the sender has scheduled since; end when it has scheduled nothing.
  void pump() {
    if (hold_ != Hold::Pass) return;
    const EthFrameTrain pk = feed_->peek();
    uint64_t fresh = 0;
    if (pk.n) {
      const uint64_t committed_untaken =
          next_ > pk.first ? (next_.value() - pk.first.value()) / period_.value() : 0;
      if (pk.n > committed_untaken) fresh = pk.n - committed_untaken;
    }
    if (fresh) {
      commit(fresh);
      take_arrived();
      return;
    }
    take_arrived();  // every committed frame has arrived (this is the last one's start)
    feed_->release();
    hold_ = Hold::None;
    out_->passing_from_ = -1;
    out_ = nullptr;
  }

  struct Queued {
    EthFrame f;
    sc_time ready;
    unsigned cells;
    int from;
    bool control;
  };
  struct OnWire {
    sc_time end;
    unsigned cells;
    int from;
  };
  void run() {
    bool freed = false;
    while (!on_wire_.empty() && on_wire_.front().end <= now()) {
      const OnWire w = on_wire_.front();
      on_wire_.pop_front();
      if (w.cells) {
        if (!freed) sw_.settle_drop_holds(nullptr);  // frames dropped until now were dropped
        freed = true;
        sw_.cells_used_ -= w.cells;
        cells_queued_ -= w.cells;
        if (w.from >= 0) sw_.ports_[static_cast<size_t>(w.from)]->cells_from_ -= w.cells;
      }
    }
    if (freed) sw_.memory_changed();
    sc_time next = sc_core::sc_max_time();
    if (!on_wire_.empty()) next = on_wire_.front().end;
    if (!q_.empty() && link_) {
      Queued& h = q_.front();
      sc_time start = std::max({h.ready, link_->wire_free_at(), now()});
      const char* cause = link_->wire_free_at() > h.ready ? "wire busy" : "";
      if (!h.control && pause_until_ > start) {  // 802.3 Annex 31B.3: data frames wait out the pause
        start = pause_until_;
        cause = "PAUSE";
      }
      if (start <= now()) {
        if (cause[0] && h.f.journey) sim().journeys.mark(h.f.journey, h.ready, "switch", where_, cause);
        Queued fr = std::move(q_.front());
        q_.pop_front();
        const sc_time end = link_->transmit(fr.f, now());
        ++c_out_;
        on_wire_.push_back({end, fr.cells, fr.from});
        next = std::min({next, end, link_->wire_free_at()});
      } else {
        next = std::min(next, start);
      }
    }
    if (next != sc_core::sc_max_time()) ev_.notify(next - now());
  }

  sc_core::sc_event ev_, pump_ev_;
  std::deque<Queued> q_;
  std::deque<OnWire> on_wire_;
  sc_time pause_until_ = SC_ZERO_TIME;
  unsigned cells_queued_ = 0;
  int passing_from_ = -1;  ///< egress: the ingress port passing a train through here
  // ingress, while holding: the egress port, and for a pass the train's frame and period, the
  // arrival of the next frame not committed, and the arrival of the last frame taken.
  Port* out_ = nullptr;
  EthFrame frame_;
  sc_time period_ = SC_ZERO_TIME, next_ = SC_ZERO_TIME, last_taken_ = SC_ZERO_TIME;
};

EthSwitch::EthSwitch(sc_core::sc_module_name name, unsigned ports, const SwitchParams& p) : sc_module(name), p_(p) {
  const std::string me = this->name();
  if (ports < 2) throw std::invalid_argument("EthSwitch " + me + ": needs at least 2 ports");
  if (p.cell_bytes == 0) throw std::invalid_argument("EthSwitch " + me + ": cell_bytes must be at least 1");
  cells_total_ = p.buffer_kb * 1024 / p.cell_bytes;
  if (cells_total_ < switch_cells(kMaxFrameBytes - kEthFcsBytes, p.cell_bytes))
    throw std::invalid_argument("EthSwitch " + me + ": buffer_kb holds less than one maximum frame");
  if (p.pause_off_kb > p.pause_on_kb)
    throw std::invalid_argument("EthSwitch " + me + ": pause_off_kb must not be above pause_on_kb");
  pause_on_cells_ = p.pause_on_kb * 1024 / p.cell_bytes;
  pause_off_cells_ = p.pause_off_kb * 1024 / p.cell_bytes;
  for (unsigned i = 0; i < ports; ++i) {
    ports_.push_back(std::make_unique<Port>(("port" + std::to_string(i)).c_str(), *this, i));
    ports_.back()->obey_pause_ = p.obey_pause;
    ports_.back()->send_pause_ = p.send_pause;
  }
}

EthSwitch::~EthSwitch() = default;

EthPort& EthSwitch::port(unsigned i) { return *ports_.at(i); }
size_t EthSwitch::queued(unsigned i) const { return ports_.at(i)->queued(); }
bool EthSwitch::paused(unsigned i) const { return ports_.at(i)->paused(); }
bool EthSwitch::passing_through(unsigned i) const { return ports_.at(i)->hold_ == Port::Hold::Pass; }

void EthSwitch::set_flow_control(unsigned i, bool obey_pause, bool send_pause) {
  Port& pt = *ports_.at(i);
  pt.obey_pause_ = obey_pause;
  pt.send_pause_ = send_pause;
}

void EthSwitch::add_static(const std::array<uint8_t, 6>& mac, unsigned port) {
  if (port >= ports_.size()) throw std::out_of_range("EthSwitch " + std::string(name()) + ": no port " + std::to_string(port));
  fdb_[mac_key(mac.data())] = {port, true};
}

int EthSwitch::lookup(const std::array<uint8_t, 6>& mac) const {
  auto it = fdb_.find(mac_key(mac.data()));
  return it == fdb_.end() ? -1 : static_cast<int>(it->second.first);
}

bool EthSwitch::room_for(unsigned egress, unsigned cells) const {
  if (cells_used_ + cells > cells_total_) return false;
  if (p_.port_queue_kb) {
    const unsigned cap = p_.port_queue_kb * 1024 / p_.cell_bytes;
    if (ports_[egress]->cells_queued() + cells > cap) return false;
  }
  return true;
}

void EthSwitch::settle_drop_holds(const Port* except) {
  for (auto& pt : ports_)
    if (pt.get() != except) pt->settle_drop();
}

void EthSwitch::memory_changed() {
  for (auto& pt : ports_) {
    if (!pt->send_pause_) continue;
    if (!pt->xoff_sent_ && pt->cells_from_ >= pause_on_cells_) {
      pt->xoff_sent_ = true;
      pt->send_pause(p_.pause_quanta);
    } else if (pt->xoff_sent_ && pt->cells_from_ <= pause_off_cells_) {
      pt->xoff_sent_ = false;
      pt->send_pause(0);
    }
  }
}

void EthSwitch::route(Port& in, const EthFrame& f) {
  const auto& b = f.bytes;
  if (is_mac_control_frame(b)) {  // 802.3 §31: consumed by the MAC, never forwarded
    if (is_pause_frame(b) && in.obey_pause_) {
      ++in.c_pause_rx_;
      in.pause(pause_time_quanta(b));
    } else {
      ++in.c_ctrl_;
    }
    if (f.journey) sim().journeys.mark(f.journey, now(), "consumed", in.where_, "MAC Control");
    return;
  }
  if (b.size() < 14) throw std::logic_error("EthSwitch " + std::string(name()) + ": frame shorter than a header");
  if (!(b[6] & 1)) {  // learn the source (unicast SAs only); static entries stay
    auto& e = fdb_[mac_key(b.data() + 6)];
    if (!e.second) e.first = in.idx_;
  }
  const bool group = b[0] & 1;
  int dest = -1;
  if (!group) {
    auto it = fdb_.find(mac_key(b.data()));
    if (it != fdb_.end()) dest = static_cast<int>(it->second.first);
  }
  if (dest == static_cast<int>(in.idx_)) {
    ++in.c_drop_filtered_;
    if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", in.where_, "destination is the ingress port");
    return;
  }
  const unsigned cells = switch_cells(static_cast<unsigned>(b.size()), p_.cell_bytes);
  if (dest >= 0) {
    Port& out = *ports_[static_cast<size_t>(dest)];
    out.stop_passing_to();  // a frame one by one for a port a train passes through: frame by frame now
    if (in.start_pass(out, f)) return;
    if (!room_for(out.idx_, cells)) {
      ++in.c_drop_noroom_;
      ++out.c_drop_full_;
      if (f.journey) sim().journeys.mark(f.journey, now(), "dropped", out.where_, "output queue full");
      in.start_drop_hold(out, f);
      return;
    }
    ++in.c_fwd_;
    cells_used_ += cells;
    in.cells_from_ += cells;
    out.enqueue(f, now(), cells, static_cast<int>(in.idx_), false);
    memory_changed();
    return;
  }
  bool stored = false;  // flood: a copy for every other port with room
  for (auto& pt : ports_) {
    if (pt.get() == &in) continue;
    if (!room_for(pt->idx_, cells)) {
      ++pt->c_drop_full_;
      continue;
    }
    stored = true;
    cells_used_ += cells;
    in.cells_from_ += cells;
    pt->enqueue(f, now(), cells, static_cast<int>(in.idx_), false);
  }
  if (stored)
    ++in.c_fwd_;
  else
    ++in.c_drop_noroom_;
  memory_changed();
}

}  // namespace nicsim
