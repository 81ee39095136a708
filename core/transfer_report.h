// The transfer-time attribution of a run as `nicsim explain --transfer` prints it, read from
// result.json's `transfer` (platforms/transfer_report.h documents its shape): per host and TCP
// socket the sender's and the receiver's time by state (drivers-sim/net/tcp_transfer.h), the
// loss-recovery events, and each NIC's frames per interrupt / per poll. Pure functions over that
// JSON: no SystemC.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace nicsim {

/// The text of `transfer` ({host: {"sockets": [...], "rx_batches": {...}}}): for each socket that
/// sent data its sender table, for each that read data its receiver table (state, ms, % of the
/// socket's lifetime), its events, then per NIC the mean frames per RX interrupt / per poll with
/// the commonest batch sizes. "(no TCP data transfer in this run)" when there is none.
std::string format_transfer(const nlohmann::json& transfer);

/// What does not add up, one line each (empty when it balances): per socket the sender states
/// and the receiver states must each sum to lifetime_ns exactly; per NIC histogram the counts
/// and frames must match count and frames.
std::vector<std::string> transfer_problems(const nlohmann::json& transfer);

/// One socket's side (sender or receiver) in two runs, matched by host, side and the order of the
/// host's data sockets: the share of lifetime of each state in A and B.
struct TransferGapRow {
  std::string host, socket, side;  // side: "sender" | "receiver"
  std::string state;
  double a_pct = 0, b_pct = 0;      // % of the socket's lifetime
  double a_ms = 0, b_ms = 0;
};
/// Every (socket side, state) either run has time in, by |b_pct - a_pct| descending.
std::vector<TransferGapRow> transfer_gap(const nlohmann::json& a, const nlohmann::json& b);
/// The side-by-side table of transfer_gap (rows moving < 0.05 points left out), the events of
/// each matched socket in A and B, and the NICs' mean batch sizes in A and B.
std::string format_transfer_gap(const nlohmann::json& a, const nlohmann::json& b, const std::string& a_name,
                                const std::string& b_name);
/// Plain words, one line per host whose transfer moved, computed from the data: the sender (and
/// receiver) states whose share moved most ("alpha sender: rwnd_limited 41% vs 3%, sending 55% vs
/// 96%"), the loss-recovery events that differ, the NICs' frames per RX interrupt where they
/// moved by 10% or more. Empty when nothing moved by 1 point / 10% (or there is no transfer).
std::vector<std::string> transfer_gap_summary(const nlohmann::json& a, const nlohmann::json& b);

}  // namespace nicsim
