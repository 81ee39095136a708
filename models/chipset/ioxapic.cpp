#include "models/chipset/ioxapic.h"
#include "models/bus/payload.h"
#include "core/sim_context.h"
#include <cstring>
#include <stdexcept>

namespace nicsim {

IoxApic::IoxApic(sc_core::sc_module_name name, const IoxApicParams& p)
    : sc_module(name),
      msg_out("msg_out"),
      p_(p),
      rte_(p.redirection_entries),
      level_(p.redirection_entries, false),
      c_messages_(sim().counters.at(std::string(this->name()) + ".messages")),
      c_eois_(sim().counters.at(std::string(this->name()) + ".eois")),
      c_held_(sim().counters.at(std::string(this->name()) + ".asserts_while_in_service")) {
  for (unsigned i = 0; i < p.redirection_entries; ++i) {
    auto pin = std::make_unique<Pin>();
    pin->owner = this;
    pin->idx = i;
    auto ex = std::make_unique<sc_core::sc_export<irq_if>>(("intin" + std::to_string(i)).c_str());
    ex->bind(*pin);
    pins_.push_back(std::move(pin));
    exports_.push_back(std::move(ex));
  }
  SC_HAS_PROCESS(IoxApic);
  SC_METHOD(eoi_method);
  sensitive << eoi_ev_;
  dont_initialize();
}

sc_core::sc_export<irq_if>& IoxApic::pin(unsigned i) { return *exports_.at(i); }

void IoxApic::program(unsigned i, const RedirectionEntry& e) {
  RedirectionEntry& r = rte_.at(i);
  bool irr = r.remote_irr;
  r = e;
  r.remote_irr = irr;
  if (!r.masked && level_[i] && r.level && !r.remote_irr) send(i);
}

void IoxApic::set_level(unsigned i, bool asserted) {
  bool was = level_.at(i);
  level_[i] = asserted;
  RedirectionEntry& r = rte_[i];
  if (!asserted || r.masked) return;
  if (r.level) {
    if (r.remote_irr) {
      ++c_held_;  // already in service: the EOI will re-send if the line is still asserted
      return;
    }
    send(i);
  } else if (!was) {
    send(i);  // edge-triggered: rising edge only
  }
}

void IoxApic::send(unsigned i) {
  RedirectionEntry& r = rte_[i];
  if (r.level) r.remote_irr = true;
  uint32_t data = r.vector & 0xFF;
  if (r.level) data |= 1u << 15;  // trigger mode bit of the message data
  uint64_t addr = p_.message_address | (uint64_t(r.dest & 0xFF) << 12);
  tlm::tlm_generic_payload pl;
  reset_payload(pl, tlm::TLM_WRITE_COMMAND, addr, reinterpret_cast<unsigned char*>(&data), 4);
  sc_time d = ns(p_.message_ns);
  msg_out->b_transport(pl, d);
  ++c_messages_;
}

void IoxApic::eoi(unsigned vector, const sc_core::sc_time& delay) {
  sc_time at = now() + delay;
  bool earliest = pending_eoi_.empty() || at < pending_eoi_.begin()->first;
  pending_eoi_.emplace(at, vector);
  if (earliest) eoi_ev_.notify(delay);
}

void IoxApic::eoi_method() {
  while (!pending_eoi_.empty() && pending_eoi_.begin()->first <= now()) {
    unsigned v = pending_eoi_.begin()->second;
    pending_eoi_.erase(pending_eoi_.begin());
    for (unsigned i = 0; i < rte_.size(); ++i) {
      RedirectionEntry& r = rte_[i];
      if (!r.level || r.vector != v || !r.remote_irr) continue;
      r.remote_irr = false;
      ++c_eois_;
      if (level_[i] && !r.masked) send(i);
    }
  }
  if (!pending_eoi_.empty()) eoi_ev_.notify(pending_eoi_.begin()->first - now());
}

}  // namespace nicsim
