// e100 driver model: what probe and open send to the real 8255x model, per part and module
// parameter (e100 2.1.6-k1 e100_check_options / e100_load_microcode; research seeds-001-004 §2.4).
#include "driver_e100_harness.h"
#include <catch2/catch.hpp>

// This file's own names, apart from the other files of a unity batch.
namespace driver_e100_open_test {
using namespace e100test;
using namespace nicsim::e100drv;

namespace {
/// The rig after probe + open (5 ms is past the self-test's 2 jiffies and every polled CB).
void open_and_run(Rig& r) {
  r.open();
  sc_core::sc_start(ms(60));
  REQUIRE(r.rc == 0);
}
}  // namespace

TEST_CASE("e100 on an 82559: open loads the CPU-Saver microcode by default with IntDelay 0x600 BundleMax 6 mask 0xFF80",
          "[e100drv]") {
  Rig r("82559");
  open_and_run(r);
  CHECK(r.a->ucode_loaded());
  CHECK(r.dev->dev_addr == r.nic->mac_address());  // read from the EEPROM
  const auto* s = r.nic->cpusaver();
  REQUIRE(s);
  CHECK(s->params().int_delay_ticks == 0x600);
  REQUIRE(s->params().bundle_max);
  CHECK(*s->params().bundle_max == 6);
  REQUIRE(s->params().min_size_mask);
  CHECK(*s->params().min_size_mask == 0xFF80);
  // The patched words where e100_ucode.h puts them for the D101M, in their instruction form.
  const auto& w = r.a->ucode_sent();
  REQUIRE(w.size() == UCODE_MAX_DWORDS);
  CHECK(w[78] == 0x00080600u);
  CHECK(w[65] == 0x000C0006u);
  CHECK(w[126] == 0x000CFF80u);
  CHECK(r.nic->ru_state() == i8255x::Rus::Ready);
}

TEST_CASE("e100 on an 82558 B0: no microcode unless ucode=1, then the timer-only image", "[e100drv]") {
  {
    Rig r("82558B0");
    open_and_run(r);
    CHECK_FALSE(r.a->ucode_loaded());
    CHECK(r.nic->cpusaver() == nullptr);
  }
}

TEST_CASE("e100 on an 82558 A4 with ucode=1 and IntDelay 0x200: the D101 image starts the timer only", "[e100drv]") {
  Rig r("82558A4", {{"ucode", 1}, {"IntDelay", 0x200}});
  open_and_run(r);
  CHECK(r.a->ucode_loaded());
  const auto* s = r.nic->cpusaver();
  REQUIRE(s);
  CHECK(s->params().int_delay_ticks == 0x200);
  CHECK_FALSE(s->params().bundle_max);  // D101 images: no bundle limit, no min-size rule
  CHECK_FALSE(s->params().min_size_mask);
  CHECK(r.a->ucode_sent().at(72) == 0x00080200u);
}

TEST_CASE("e100 on an 82557: never a microcode, even with ucode=1", "[e100drv]") {
  Rig r("82557", {{"ucode", 1}});
  open_and_run(r);
  CHECK_FALSE(r.a->ucode_loaded());
  CHECK(r.a->ucode_sent().empty());
  CHECK(r.nic->cpusaver() == nullptr);
}

TEST_CASE("e100 on an 82559: IntDelay BundleMax BundleSmallFr reach the model, ucode=0 loads none", "[e100drv]") {
  {
    Rig r("82559", {{"IntDelay", 0x1000}, {"BundleMax", 2}, {"BundleSmallFr", 1}});
    open_and_run(r);
    const auto* s = r.nic->cpusaver();
    REQUIRE(s);
    CHECK(s->params().int_delay_ticks == 0x1000);
    CHECK(*s->params().bundle_max == 2);
    CHECK(*s->params().min_size_mask == 0xFFFF);
  }
}

TEST_CASE("e100 on an 82559 with ucode=0: no microcode, FR per frame", "[e100drv]") {
  Rig r("82559", {{"ucode", 0}});
  open_and_run(r);
  CHECK_FALSE(r.a->ucode_loaded());
  CHECK(r.nic->cpusaver() == nullptr);
}

TEST_CASE("e100 check_options: out-of-range values fall back to the defaults, ucode default by revision", "[e100drv]") {
  const auto schema = param_schema();
  ParamValues v(schema);
  nicsim::e100drv::Options o = check_options(v, D101MA_REV_ID);
  CHECK(o.ucode);
  CHECK(o.int_delay == 0x600);
  CHECK(o.bundle_max == 6);
  CHECK_FALSE(o.bundle_small_fr);
  CHECK(o.tx_descriptors == 64);
  CHECK(o.rx_descriptors == 64);
  CHECK(o.rx_congestion_control);
  CHECK_FALSE(check_options(v, D101B0_REV_ID).ucode);
  CHECK_FALSE(check_options(v, 2).ucode);
  v.set("TxDescriptors", 5);  // below E100_MIN_TCB 19
  v.set("BundleMax", 0);      // below 1
  o = check_options(v, D101MA_REV_ID);
  CHECK(o.tx_descriptors == 64);
  CHECK(o.bundle_max == 6);
}

}  // namespace driver_e100_open_test
