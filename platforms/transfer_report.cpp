#include "platforms/transfer_report.h"
#include "core/sim_context.h"
#include "core/trace_extra.h"
#include "drivers-sim/kernel/rx_batches.h"
#include <fmt/core.h>
#include <map>
#include <systemc>

namespace nicsim {

namespace {

std::string ip_text(uint32_t a) { return fmt::format("{}.{}.{}.{}", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255); }

std::string socket_name(const TcpSocket& s) {
  return fmt::format("{}:{} > {}:{}", ip_text(s.saddr()), s.sport(), ip_text(s.daddr()), s.dport());
}

bool carried_data(const TcpSocket& s) { return s.transfer().started && (s.bytes_written() > 0 || s.bytes_read() > 0); }

nlohmann::json histogram_json(const std::vector<uint64_t>& h) {
  uint64_t count = 0, frames = 0, max = 0;
  nlohmann::json rows = nlohmann::json::array();
  for (size_t n = 0; n < h.size(); ++n)
    if (h[n]) {
      count += h[n];
      frames += h[n] * n;
      max = n;
      rows.push_back({n, h[n]});
    }
  return {{"count", count}, {"frames", frames}, {"mean", count ? double(frames) / double(count) : 0.0}, {"max", max},
          {"histogram", rows}};
}

const char* seq_kind_name(TcpSeqEvent::Kind k) {
  switch (k) {
    case TcpSeqEvent::tx: return "tx";
    case TcpSeqEvent::retrans: return "retrans";
    case TcpSeqEvent::ack: return "ack";
    case TcpSeqEvent::sack: return "sack";
    case TcpSeqEvent::dupack: return "dupack";
    case TcpSeqEvent::recovery: return "recovery";
    case TcpSeqEvent::timeout: return "timeout";
    case TcpSeqEvent::undo: return "undo";
    case TcpSeqEvent::reorder: return "reorder";
    case TcpSeqEvent::cwnd: return "cwnd";
  }
  return "?";
}

}  // namespace

nlohmann::json transfer_json(HostSoftware& h, uint64_t now_ns) {
  nlohmann::json out = {{"sockets", nlohmann::json::array()}, {"rx_batches", nlohmann::json::object()}};
  if (h.inet) {
    TcpStack& st = h.inet->stack();
    st.transfer_finish(now_ns);
    for (size_t i = 0; i < st.socket_count(); ++i) {
      const TcpSocket& s = st.sock(int(i));
      if (!carried_data(s)) continue;
      const TcpTransfer& x = s.transfer();
      nlohmann::json snd = nlohmann::json::object(), rcv = nlohmann::json::object();
      for (size_t k = 0; k < size_t(TcpSendState::Count); ++k) snd[tcp_send_state_name(TcpSendState(k))] = x.send_ns[k];
      for (size_t k = 0; k < size_t(TcpRecvState::Count); ++k) rcv[tcp_recv_state_name(TcpRecvState(k))] = x.recv_ns[k];
      const TcpTransferEvents& e = x.ev;
      out["sockets"].push_back(
          {{"socket", socket_name(s)},
           {"id", i},
           {"lifetime_ns", x.last_ns - x.first_ns},
           {"first_ns", x.first_ns},
           {"bytes_written", s.bytes_written()},
           {"bytes_read", s.bytes_read()},
           {"bytes_acked", s.bytes_acked()},
           {"send", snd},
           {"recv", rcv},
           {"events",
            {{"dupacks", e.dupacks}, {"recoveries", e.recoveries}, {"fast_retrans", e.fast_retrans},
             {"timeouts", e.timeouts}, {"retrans_segs", e.retrans_segs}, {"undo_full", e.undo_full},
             {"undo_partial", e.undo_partial}, {"undo_dsack", e.undo_dsack}, {"undo_loss", e.undo_loss},
             {"undone", e.undone()}, {"reordering", e.reordering}, {"dsacks_received", e.dsacks_received},
             {"ofo_segs", e.ofo_segs}, {"delayed_acks", e.delayed_acks}, {"backlogged", e.backlogged}}}});
    }
  }
  for (auto& [name, dev] : h.netdevs) {
    const RxBatches& b = rx_batches(*dev);
    out["rx_batches"][h.name + "." + name] = {{"per_irq", histogram_json(b.per_irq)}, {"per_poll", histogram_json(b.per_poll)}};
  }
  return out;
}

struct RunSeries::Impl {
  Testbed* tb = nullptr;
  sc_core::sc_time interval;
  size_t max_samples = kMaxSeriesSamples;
  bool stopped = false;
  std::vector<double> t_s;
  sc_core::sc_time last_t = sc_core::SC_ZERO_TIME;
  struct CpuTrack {
    std::map<std::string, sc_core::sc_time> last;  // cumulative busy per context at the last sample
    sc_core::sc_time last_idle = sc_core::SC_ZERO_TIME;
    std::map<std::string, std::vector<double>> frac;  // per context (and "idle"), one per interval
  };
  std::map<std::string, CpuTrack> cpus;  // "<host>.cpu<N>"
  struct SockTrack {
    std::vector<uint64_t> read, acked;
  };
  std::map<std::string, SockTrack> socks;  // "<host> <socket>"
  bool recording_on = false;

  void sample() {
    TestbedSoftware* sw = built_software(*tb);
    if (!sw) return;
    if (!recording_on) {  // the first sample after the software exists: start the TCP record
      for (auto& [name, hs] : sw->hosts)
        if (hs->inet) hs->inet->stack().set_recording(true);
      recording_on = true;
    }
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const size_t n = t_s.size();
    t_s.push_back(now.to_seconds());
    const double width = n == 0 ? 0.0 : (now - last_t).to_seconds();
    last_t = now;
    for (auto& [hname, hs] : sw->hosts) {
      Kernel& k = *hs->kernel;
      for (unsigned c = 0; c < k.num_cpus(); ++c) {
        CpuTrack& tr = cpus[hname + ".cpu" + std::to_string(c)];
        std::map<std::string, sc_core::sc_time> cur;
        const CpuTimeProfile prof = k.cpu_time(c);
        for (const CpuTimeRow& row : prof.rows) cur[row.context] += row.time;
        cur["idle"] = prof.halted + prof.waking;
        for (auto& [ctx, t] : cur) {
          auto& v = tr.frac[ctx];
          v.resize(n, 0.0);  // a context first seen now was at 0 before
          const sc_core::sc_time before = tr.last.count(ctx) ? tr.last[ctx] : sc_core::SC_ZERO_TIME;
          v.push_back(width > 0 ? (t - before).to_seconds() / width : 0.0);
        }
        for (auto& [ctx, v] : tr.frac) v.resize(n + 1, 0.0);
        tr.last = std::move(cur);
      }
      if (!hs->inet) continue;
      TcpStack& st = hs->inet->stack();
      for (size_t i = 0; i < st.socket_count(); ++i) {
        const TcpSocket& s = st.sock(int(i));
        if (!s.transfer().started || s.tp.state == TcpState::Listen) continue;
        SockTrack& sk = socks[hname + " " + socket_name(s)];
        sk.read.resize(n, 0);
        sk.acked.resize(n, 0);
        sk.read.push_back(s.bytes_read());
        sk.acked.push_back(s.bytes_acked());
      }
    }
  }
  void run() {
    for (;;) {
      sample();
      if (t_s.size() >= max_samples) {
        stopped = true;
        return;
      }
      sc_core::wait(interval);
    }
  }
};

RunSeries::RunSeries(Testbed& tb, sc_core::sc_time interval, size_t max_samples) : impl_(std::make_unique<Impl>()) {
  impl_->tb = &tb;
  impl_->interval = interval;
  impl_->max_samples = max_samples;
  sc_core::sc_spawn_options o;
  Impl* p = impl_.get();
  sc_core::sc_spawn([p] { p->run(); }, "run_series", &o);
}

RunSeries::~RunSeries() = default;

std::optional<double> RunSeries::stopped_at_s() const {
  if (!impl_->stopped || impl_->t_s.empty()) return std::nullopt;
  return impl_->t_s.back();
}

nlohmann::json RunSeries::to_json() const {
  const Impl& m = *impl_;
  nlohmann::json j = {{"interval_s", m.interval.to_seconds()}, {"t_s", m.t_s}};
  j["cpu"] = nlohmann::json::object();
  for (auto& [cpu, tr] : m.cpus) j["cpu"][cpu] = tr.frac;
  j["sockets"] = nlohmann::json::object();
  for (auto& [s, tr] : m.socks) j["sockets"][s] = {{"bytes_read", tr.read}, {"bytes_acked", tr.acked}};
  j["tcp"] = nlohmann::json::object();
  if (TestbedSoftware* sw = built_software(*m.tb))
    for (auto& [hname, hs] : sw->hosts) {
      if (!hs->inet) continue;
      TcpStack& st = hs->inet->stack();
      for (const TcpSeqEvent& e : st.seq_events()) {
        const std::string key = hname + " " + socket_name(st.sock(e.sock));
        if (!j["tcp"].contains(key)) j["tcp"][key] = nlohmann::json::array();
        j["tcp"][key].push_back({e.t, seq_kind_name(e.kind), e.a, e.b});
      }
    }
  return j;
}

void RunSeries::to_trace() const {
  TraceExtras& log = trace_extras();
  const Impl& m = *impl_;
  for (auto& [cpu, tr] : m.cpus)
    for (auto& [ctx, v] : tr.frac)
      for (size_t i = 1; i < v.size() && i < m.t_s.size(); ++i)  // value i covers (t[i-1], t[i]]
        log.counter(cpu + " " + ctx + " %", sc_core::sc_time(m.t_s[i - 1], sc_core::SC_SEC), 100.0 * v[i]);
  TestbedSoftware* sw = built_software(*m.tb);
  if (!sw) return;
  for (auto& [hname, hs] : sw->hosts) {
    if (!hs->inet) continue;
    TcpStack& st = hs->inet->stack();
    for (const TcpSeqEvent& e : st.seq_events()) {
      const std::string track = hname + " tcp " + socket_name(st.sock(e.sock));
      const sc_core::sc_time t(double(e.t), sc_core::SC_NS);
      switch (e.kind) {
        case TcpSeqEvent::cwnd:
          log.counter(track + " snd_cwnd", t, e.a);
          break;
        case TcpSeqEvent::tx:
        case TcpSeqEvent::ack:
        case TcpSeqEvent::sack:
          break;  // per segment: the time-sequence plot's, too many for instants
        default:
          log.instant(track, seq_kind_name(e.kind), t, {{"seq", e.a}});
      }
    }
  }
}

}  // namespace nicsim
