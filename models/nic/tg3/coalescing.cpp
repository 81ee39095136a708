#include "models/nic/tg3/coalescing.h"
#include <cmath>

namespace nicsim::tg3 {

const char* update_cause_name(UpdateCause c) {
  switch (c) {
    case UpdateCause::RxMaxFrames: return "RXMAX_FRAMES";
    case UpdateCause::TxMaxFrames: return "TXMAX_FRAMES";
    case UpdateCause::RxTicks: return "RXCOL_TICKS";
    case UpdateCause::TxTicks: return "TXCOL_TICKS";
    case UpdateCause::Now: return "HOSTCC_MODE_NOW";
    case UpdateCause::None: break;
  }
  return "none";
}

void HostCoalescing::on_update(const sc_time& t) {
  rx_reload_ = tx_reload_ = t;
  rx_bds_ = tx_bds_ = 0;
}

UpdateCause HostCoalescing::check_max() const {
  if (rx_bds_ && rx_max_now() && rx_bds_ >= rx_max_now()) return UpdateCause::RxMaxFrames;
  if (tx_bds_ && tx_max_now() && tx_bds_ >= tx_max_now()) return UpdateCause::TxMaxFrames;
  return UpdateCause::None;
}

UpdateCause HostCoalescing::rx_bds(const sc_time& t, unsigned n) {
  if (!rx_bds_) {
    rx_first_ = t;
    if (clrtick_rx_) rx_reload_ = t;  // CLRTICK: idle since the update, counting from this first BD
  }
  rx_bds_ += n;
  return check_max();
}

UpdateCause HostCoalescing::tx_bds(const sc_time& t, unsigned n) {
  if (!tx_bds_) {
    tx_first_ = t;
    if (clrtick_tx_) tx_reload_ = t;
  }
  tx_bds_ += n;
  return check_max();
}

sc_time HostCoalescing::expiry(const sc_time& reload, const sc_time& first, uint32_t ticks, const sc_time& tick) {
  const double period = tick.to_seconds() * ticks;
  double k = first > reload ? std::ceil((first - reload).to_seconds() / period - 1e-9) : 1.0;
  if (k < 1.0) k = 1.0;
  return reload + sec(k * period);
}

std::optional<std::pair<sc_time, UpdateCause>> HostCoalescing::deadline() const {
  std::optional<std::pair<sc_time, UpdateCause>> best;
  auto consider = [&](unsigned pending, const sc_time& reload, const sc_time& first, uint32_t ticks, UpdateCause c) {
    if (!pending || !ticks) return;
    sc_time at = expiry(reload, first, ticks, tick_);
    if (!best || at < best->first) best = std::make_pair(at, c);
  };
  consider(rx_bds_, rx_reload_, rx_first_, rx_ticks_now(), UpdateCause::RxTicks);
  consider(tx_bds_, tx_reload_, tx_first_, tx_ticks_now(), UpdateCause::TxTicks);
  return best;
}

}  // namespace nicsim::tg3
