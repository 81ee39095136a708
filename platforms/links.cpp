// Link types a scenario's [[links]] can name. models/ must not depend on platforms/, so the
// registration of the Ethernet link model lives here.
#include "models/ether/link.h"
#include "platforms/testbed.h"

namespace nicsim {
namespace {

Registrar<LinkEntry> crossover_reg{LinkEntry{
    "crossover",
    "full-duplex point-to-point Ethernet cable (crossover), 10/100/1000 Mb/s (models/ether/link.h)",
    [](const std::string& name, const LinkConfig& cfg, EthPort& a, EthPort& b) -> std::shared_ptr<sc_core::sc_object> {
      return std::make_shared<EthLink>(name.c_str(), cfg.speed_mbps, cfg.length_m, a, b);
    },
    {}}};

}  // namespace
}  // namespace nicsim
