#include "core/transfer_report.h"
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>

namespace nicsim {
namespace {

using json = nlohmann::json;

struct StateName {
  const char* name;
  const char* meaning;
};
// Display order and meaning (drivers-sim/net/tcp_transfer.h defines the states).
constexpr StateName kSend[] = {
    {"connecting", "before ESTABLISHED"},
    {"sending", "data queued or in flight, nothing holding it"},
    {"cwnd_limited", "blocked on the congestion window"},
    {"rwnd_limited", "blocked on the peer's receive window"},
    {"nagle", "held by Nagle (small segment, one unacknowledged)"},
    {"sndbuf_limited", "writer asleep on the socket send buffer"},
    {"recovery", "in fast recovery"},
    {"loss", "after a retransmission timeout (loss state)"},
    {"idle", "nothing queued, nothing in flight"},
    {"closed", "after the connection"},
};
constexpr StateName kRecv[] = {
    {"connecting", "before ESTABLISHED"},
    {"reading", "in recv(), copying"},
    {"waiting", "asleep in recv(), waiting for data"},
    {"delack_wait", "asleep in recv(), a delayed ACK held"},
    {"not_reading", "application not in recv()"},
    {"closed", "after the connection"},
};
constexpr const char* kEvents[] = {"dupacks",     "recoveries", "fast_retrans", "timeouts",        "retrans_segs",
                                   "undo_full",   "undo_partial", "undo_dsack", "undo_loss",       "reordering",
                                   "dsacks_received", "ofo_segs", "delayed_acks", "backlogged"};

double pct(uint64_t part, uint64_t whole) { return whole ? 100.0 * double(part) / double(whole) : 0.0; }

template <size_t N>
std::vector<std::string> order_of(const StateName (&names)[N], const json& obj) {
  std::vector<std::string> o;
  for (auto& s : names) o.push_back(s.name);
  for (auto& [k, v] : obj.items())
    if (std::find(o.begin(), o.end(), k) == o.end()) o.push_back(k);
  return o;
}

template <size_t N>
std::string meaning_of(const StateName (&names)[N], const std::string& s) {
  for (auto& n : names)
    if (s == n.name) return n.meaning;
  return "";
}

/// A host's rx_batches, by reference (items() of a temporary would dangle).
const json& batches_of(const json& h) {
  static const json none = json::object();
  return h.contains("rx_batches") ? h.at("rx_batches") : none;
}

bool sends(const json& s) { return s.value("bytes_written", uint64_t(0)) > 0; }
bool reads(const json& s) { return s.value("bytes_read", uint64_t(0)) > 0; }

std::string side_table(const json& states, uint64_t life, bool sender) {
  std::string out = fmt::format("    {:<16} {:>11} {:>8}  {}\n", "state", "time ms", "% life", "");
  const auto order = sender ? order_of(kSend, states) : order_of(kRecv, states);
  for (auto& st : order) {
    const uint64_t ns = states.value(st, uint64_t(0));
    if (ns == 0) continue;
    out += fmt::format("    {:<16} {:>11.3f} {:>7.2f}%  {}\n", st, double(ns) * 1e-6, pct(ns, life),
                       sender ? meaning_of(kSend, st) : meaning_of(kRecv, st));
  }
  return out;
}

/// The events that happened ("none" when none did).
std::string events_line(const json& ev) {
  std::string out;
  for (const char* k : kEvents) {
    const uint64_t v = ev.value(k, uint64_t(0));
    if (v) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", k, v);
  }
  return out.empty() ? "none" : out;
}

std::string batch_line(const json& h, const char* noun) {
  const uint64_t count = h.value("count", uint64_t(0));
  if (!count) return "none";
  // The commonest sizes, most first (at most 6).
  std::vector<std::pair<uint64_t, uint64_t>> rows;
  for (auto& r : h.at("histogram")) rows.push_back({r[1].get<uint64_t>(), r[0].get<uint64_t>()});
  std::sort(rows.rbegin(), rows.rend());
  std::string common;
  for (size_t i = 0; i < rows.size() && i < 6; ++i)
    common += fmt::format("{}{}: {:.1f}%", i ? ", " : "", rows[i].second, pct(rows[i].first, count));
  return fmt::format("{} {}, {} frames, mean {:.2f}, max {} (frames: share {})", count, noun, h.value("frames", uint64_t(0)),
                     h.value("mean", 0.0), h.value("max", uint64_t(0)), common);
}

/// The data sockets of a host in order, with the side they carry.
struct SideRef {
  std::string host, socket, side;
  const json* s;
  size_t ordinal;  // among the host's sockets of that side
};
std::vector<SideRef> sides_of(const json& transfer) {
  std::vector<SideRef> out;
  for (auto& [host, h] : transfer.items()) {
    size_t ns = 0, nr = 0;
    if (!h.contains("sockets")) continue;
    for (auto& s : h.at("sockets")) {  // pointers into `transfer` itself, not into a copy
      if (sends(s)) out.push_back({host, s.value("socket", ""), "sender", &s, ns++});
      if (reads(s)) out.push_back({host, s.value("socket", ""), "receiver", &s, nr++});
    }
  }
  return out;
}

/// A socket's retransmission timeouts (result.json transfer "timeouts" / "resumed",
/// platforms/fault_timeline.h): when each fired, the RTO that expired, the backoff, the RTO armed
/// next, the faults its wait spanned; and when new data was acknowledged again. Empty when none.
std::string timeouts_text(const json& s) {
  if (!s.contains("timeouts")) return "";
  std::string out = "  retransmission timeouts (tcp_retransmit_timer: the head segment resent, the RTO doubled):\n";
  for (auto& t : s.at("timeouts")) {
    if (t.value("local_drop", false))
      out += fmt::format("    {:.3f} s  RTO {:.0f} ms expired (armed {:.3f} s), the retransmission dropped by the "
                         "full device queue (NET_XMIT_DROP): backoff {} kept, retry in {:.0f} ms",
                         t.value("t_s", 0.0), t.value("rto_ms", 0.0), t.value("armed_s", 0.0), t.value("backoff", 0u),
                         t.value("next_rto_ms", 0.0));
    else
      out += fmt::format("    {:.3f} s  RTO {:.0f} ms expired (armed {:.3f} s), backoff {}, next RTO {:.0f} ms",
                         t.value("t_s", 0.0), t.value("rto_ms", 0.0), t.value("armed_s", 0.0),
                         t.value("backoff", 0u), t.value("next_rto_ms", 0.0));
    std::string faults;
    for (auto& f : t.value("faults", json::array()))
      faults += fmt::format("{}fault {} {} {} at {:.3f} s", faults.empty() ? "" : ", ", f.value("fault", size_t(0)),
                            f.value("type", ""), f.value("link", ""), f.value("at_s", 0.0));
    out += faults.empty() ? "\n" : "; waited through " + faults + "\n";
  }
  for (auto& r : s.value("resumed", json::array()))
    out += fmt::format("    {:.3f} s  new data acknowledged again, after {} timeout(s)\n", r.value("t_s", 0.0),
                       r.value("after_timeouts", 0u));
  return out;
}

const SideRef* match(const std::vector<SideRef>& v, const SideRef& r) {
  for (auto& x : v)
    if (x.host == r.host && x.side == r.side && x.ordinal == r.ordinal) return &x;
  return nullptr;
}


/// Out-of-order segments the data of `r` (a sender) caused at its peer: the ofo_segs of the other
/// hosts' sockets (a two-host run: the one peer).
uint64_t peer_ofo(const json& transfer, const SideRef& r) {
  uint64_t n = 0;
  for (auto& [host, h] : transfer.items()) {
    if (host == r.host || !h.contains("sockets")) continue;
    for (auto& s : h.at("sockets")) n += s.value("events", json::object()).value("ofo_segs", uint64_t(0));
  }
  return n;
}

/// What happened to one sender's segments, in plain words computed from its events: reordering
/// (segments arrived out of order at the peer and most retransmissions were reported by D-SACK as
/// already received, i.e. the original was late, not lost), loss (retransmissions not reported as
/// duplicates, or timeouts), or neither; with the recovery share and how the peer's NICs batched.
std::string delivery_words(const json& transfer, const SideRef& r) {
  const json ev = r.s->value("events", json::object());
  const uint64_t retr = ev.value("retrans_segs", uint64_t(0)), fast = ev.value("fast_retrans", uint64_t(0));
  const uint64_t dsack = ev.value("dsacks_received", uint64_t(0)), rto = ev.value("timeouts", uint64_t(0));
  // Undo events are not recoveries: Linux 2.4.20's tcp_try_undo_partial keeps undo_marker, so one
  // recovery can be undone in part (TCPPartialUndo) and then in full (TCPFullUndo); a D-SACK undo
  // (TCPDSACKUndo) comes after the recovery ended, and a loss undo (TCPLossUndo) ends an RTO, not a
  // fast recovery. They are given as what they are, never as "N of M recoveries".
  const uint64_t u_full = ev.value("undo_full", uint64_t(0)), u_partial = ev.value("undo_partial", uint64_t(0));
  const uint64_t u_dsack = ev.value("undo_dsack", uint64_t(0)), u_loss = ev.value("undo_loss", uint64_t(0));
  const uint64_t undone = u_full + u_partial + u_dsack + u_loss;
  const uint64_t recoveries = ev.value("recoveries", uint64_t(0)), ofo = peer_ofo(transfer, r);
  const uint64_t life = r.s->value("lifetime_ns", uint64_t(0));
  const double rec_pct = pct(r.s->at("send").value("recovery", uint64_t(0)) + r.s->at("send").value("loss", uint64_t(0)), life);
  std::string batches;  // the peer's NICs: frames per RX interrupt
  for (auto& [host, h] : transfer.items()) {
    if (host == r.host) continue;
    for (auto& [nic, x] : batches_of(h).items()) {
      const double m = x.at("per_irq").value("mean", 0.0);
      if (m > 0) batches += fmt::format("{}{} {:.1f}", batches.empty() ? "" : ", ", nic, m);
    }
  }
  if (!batches.empty()) batches = " (frames per RX interrupt at the receiver: " + batches + ")";
  if (retr == 0 && ofo == 0) return "every segment arrived once and in order: no reordering, no loss" + batches;
  std::string out;
  if (ofo) out = fmt::format("{} segments reached the peer out of order", ofo);
  if (retr == 0) return out + ", none retransmitted: reordering within the dupack threshold" + batches;
  const bool reordered = rto == 0 && 2 * dsack >= retr;
  const std::string undos =
      undone == 0 ? std::string("none undone")
                  : fmt::format("{} undo events (TCPFullUndo {}, TCPPartialUndo {}, TCPDSACKUndo {}, TCPLossUndo {})",
                                undone, u_full, u_partial, u_dsack, u_loss);
  out += fmt::format("{}{} segments retransmitted ({} fast retransmits, {} timeouts), {} reported by D-SACK as received "
                     "twice; {} recoveries, {}; in recovery {:.1f}% of the time",
                     out.empty() ? "" : "; ", retr, fast, rto, dsack, recoveries, undos, rec_pct);
  out += reordered ? ": reordered, not lost" : ": lost (the retransmissions were needed)";
  return out + batches;
}
}  // namespace

std::string format_transfer(const json& transfer) {
  std::string out;
  for (auto& [host, h] : transfer.items()) {
    for (auto& s : h.value("sockets", json::array())) {
      const uint64_t life = s.value("lifetime_ns", uint64_t(0));
      out += fmt::format("{} {}: {:.3f} ms, wrote {} B, read {} B, acknowledged by the peer {} B\n", host,
                         s.value("socket", ""), double(life) * 1e-6, s.value("bytes_written", uint64_t(0)),
                         s.value("bytes_read", uint64_t(0)), s.value("bytes_acked", uint64_t(0)));
      if (sends(s)) out += "  sender\n" + side_table(s.at("send"), life, true);
      if (reads(s)) out += "  receiver\n" + side_table(s.at("recv"), life, false);
      out += "  events: " + events_line(s.value("events", json::object())) + "\n";
      out += timeouts_text(s);
      out += "\n";
    }
    for (auto& [nic, b] : batches_of(h).items()) {
      if (b.at("per_irq").value("frames", uint64_t(0)) == 0 && b.at("per_poll").value("frames", uint64_t(0)) == 0)
        continue;  // a port that received nothing (e.g. the unlinked port of a dual-port part)
      out += fmt::format("{}: frames per RX interrupt: {}\n", nic, batch_line(b.at("per_irq"), "interrupts"));
      if (b.at("per_poll").value("count", uint64_t(0)))
        out += fmt::format("{}: frames per NAPI poll: {}\n", nic, batch_line(b.at("per_poll"), "polls"));
    }
    if (h.contains("rx_batches") && !h["rx_batches"].empty()) out += "\n";
  }
  if (out.empty()) out = "(no TCP data transfer in this run)\n";
  return out;
}

std::vector<std::string> transfer_problems(const json& transfer) {
  std::vector<std::string> p;
  for (auto& [host, h] : transfer.items()) {
    for (auto& s : h.value("sockets", json::array())) {
      const uint64_t life = s.value("lifetime_ns", uint64_t(0));
      for (const char* side : {"send", "recv"}) {
        uint64_t sum = 0;
        for (auto& [k, v] : s.at(side).items()) sum += v.get<uint64_t>();
        if (sum != life)
          p.push_back(fmt::format("{} {}: {} states sum to {} ns, lifetime {} ns", host, s.value("socket", ""), side, sum, life));
      }
    }
    for (auto& [nic, b] : batches_of(h).items())
      for (const char* k : {"per_irq", "per_poll"}) {
        const json& x = b.at(k);
        uint64_t c = 0, f = 0;
        for (auto& r : x.at("histogram")) {
          c += r[1].get<uint64_t>();
          f += r[0].get<uint64_t>() * r[1].get<uint64_t>();
        }
        if (c != x.value("count", uint64_t(0)) || f != x.value("frames", uint64_t(0)))
          p.push_back(fmt::format("{} {}: histogram sums to {} calls / {} frames, totals {} / {}", nic, k, c, f,
                                  x.value("count", uint64_t(0)), x.value("frames", uint64_t(0))));
      }
  }
  return p;
}

std::vector<TransferGapRow> transfer_gap(const json& a, const json& b) {
  std::vector<TransferGapRow> rows;
  const auto sa = sides_of(a), sb = sides_of(b);
  auto add = [&](const SideRef& r, const SideRef* other, bool r_is_a) {
    const char* key = r.side == "sender" ? "send" : "recv";
    const json& st = r.s->at(key);
    const uint64_t life = r.s->value("lifetime_ns", uint64_t(0));
    const uint64_t olife = other ? other->s->value("lifetime_ns", uint64_t(0)) : 0;
    std::vector<std::string> names;
    for (auto& [k, v] : st.items()) names.push_back(k);
    if (other)
      for (auto& [k, v] : other->s->at(key).items())
        if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
    for (auto& n : names) {
      const uint64_t mine = st.value(n, uint64_t(0));
      const uint64_t theirs = other ? other->s->at(key).value(n, uint64_t(0)) : 0;
      if (!mine && !theirs) continue;
      TransferGapRow g{r.host, r.socket, r.side, n};
      g.a_pct = r_is_a ? pct(mine, life) : pct(theirs, olife);
      g.b_pct = r_is_a ? pct(theirs, olife) : pct(mine, life);
      g.a_ms = double(r_is_a ? mine : theirs) * 1e-6;
      g.b_ms = double(r_is_a ? theirs : mine) * 1e-6;
      rows.push_back(g);
    }
  };
  for (auto& r : sa) add(r, match(sb, r), true);
  for (auto& r : sb)
    if (!match(sa, r)) add(r, nullptr, false);
  std::stable_sort(rows.begin(), rows.end(), [](const TransferGapRow& x, const TransferGapRow& y) {
    return std::fabs(x.b_pct - x.a_pct) > std::fabs(y.b_pct - y.a_pct);
  });
  return rows;
}

std::string format_transfer_gap(const json& a, const json& b, const std::string& a_name, const std::string& b_name) {
  std::string out = fmt::format("Transfer gap (A: {}, B: {}), by change in share of the socket's lifetime:\n", a_name, b_name);
  out += fmt::format("  {:<6} {:<36} {:<8} {:<15} {:>9} {:>9} {:>9} {:>11} {:>11}\n", "host", "socket", "side", "state",
                     "A %", "B %", "B - A", "A ms", "B ms");
  for (auto& r : transfer_gap(a, b)) {
    if (std::fabs(r.b_pct - r.a_pct) < 0.05) continue;
    out += fmt::format("  {:<6} {:<36} {:<8} {:<15} {:>8.2f}% {:>8.2f}% {:>+9.2f} {:>11.3f} {:>11.3f}\n", r.host, r.socket,
                       r.side, r.state, r.a_pct, r.b_pct, r.b_pct - r.a_pct, r.a_ms, r.b_ms);
  }
  const auto sa = sides_of(a), sb = sides_of(b);
  for (auto& r : sa) {
    if (r.side != "sender") continue;
    const SideRef* o = match(sb, r);
    out += fmt::format("  events {} {}: A: {}\n", r.host, r.socket, events_line(r.s->value("events", json::object())));
    if (o) out += fmt::format("  events {} {}: B: {}\n", o->host, o->socket, events_line(o->s->value("events", json::object())));
  }
  for (auto& [host, h] : a.items())
    for (auto& [nic, x] : batches_of(h).items()) {
      const double ma = x.at("per_irq").value("mean", 0.0);
      double mb = 0;
      if (b.contains(host) && b[host].contains("rx_batches") && b[host]["rx_batches"].contains(nic))
        mb = b[host]["rx_batches"][nic]["per_irq"].value("mean", 0.0);
      if (ma == 0 && mb == 0) continue;  // a port that received nothing in either run
      out += fmt::format("  {}: frames per RX interrupt, mean: A {:.2f}, B {:.2f}\n", nic, ma, mb);
    }
  return out;
}

std::vector<std::string> transfer_gap_summary(const json& a, const json& b) {
  std::vector<std::string> out;
  const auto rows = transfer_gap(a, b);
  const auto sa = sides_of(a), sb = sides_of(b);
  std::map<std::string, std::vector<std::string>> parts;  // by host
  std::vector<std::string> hosts;
  auto part = [&](const std::string& host, std::string text) {
    if (!parts.count(host)) hosts.push_back(host);
    parts[host].push_back(std::move(text));
  };
  // Per socket side: the states whose share moved by a point or more, largest first (at most 3).
  for (const SideRef& r : sa) {
    std::vector<std::string> moved;
    for (auto& g : rows)
      if (g.host == r.host && g.socket == r.socket && g.side == r.side && std::fabs(g.b_pct - g.a_pct) >= 1.0 &&
          moved.size() < 3)
        moved.push_back(fmt::format("{} {:.0f}% vs {:.0f}%", g.state, g.a_pct, g.b_pct));
    if (!moved.empty()) part(r.host, fmt::format("{}: {}", r.side, fmt::join(moved, ", ")));
    if (r.side != "sender") continue;
    const SideRef* o = match(sb, r);
    const json ea = r.s->value("events", json::object()), eb = o ? o->s->value("events", json::object()) : json::object();
    std::vector<std::string> ev;
    for (const char* k : {"retrans_segs", "timeouts", "recoveries", "undone", "reordering", "dupacks"}) {
      const uint64_t x = ea.value(k, uint64_t(0)), y = eb.value(k, uint64_t(0));
      if (x != y) ev.push_back(fmt::format("{} {} vs {}", k, x, y));
    }
    if (!ev.empty()) part(r.host, fmt::format("{}", fmt::join(ev, ", ")));
  }
  for (auto& [host, h] : a.items())
    for (auto& [nic, x] : batches_of(h).items()) {
      if (!b.contains(host) || !b[host].contains("rx_batches") || !b[host]["rx_batches"].contains(nic)) continue;
      const double ma = x.at("per_irq").value("mean", 0.0), mb = b[host]["rx_batches"][nic]["per_irq"].value("mean", 0.0);
      if (ma > 0 && mb > 0 && std::fabs(mb - ma) / std::max(ma, mb) >= 0.10)
        part(host, fmt::format("{} {:.2f} vs {:.2f} frames per RX interrupt", nic, ma, mb));
    }
  for (auto& h : hosts) out.push_back(fmt::format("{} transfer: {}.", h, fmt::join(parts[h], "; ")));
  // In plain words, per sending host: was it reordering or loss, in A and in B (when either had any).
  for (const SideRef& r : sa) {
    if (r.side != "sender") continue;
    const SideRef* o = match(sb, r);
    const std::string wa = delivery_words(a, r), wb = o ? delivery_words(b, *o) : std::string("no such sender");
    const json ea = r.s->value("events", json::object()), eb = o ? o->s->value("events", json::object()) : json::object();
    const bool quiet_a = ea.value("retrans_segs", uint64_t(0)) == 0 && peer_ofo(a, r) == 0;
    const bool quiet_b = !o || (eb.value("retrans_segs", uint64_t(0)) == 0 && peer_ofo(b, *o) == 0);
    if (quiet_a && quiet_b) continue;
    out.push_back(fmt::format("{} sending: A: {}; B: {}.", r.host, wa, wb));
  }
  return out;
}

}  // namespace nicsim
