// `nicsim run --pcap DIR` (platforms/pcap_capture.h): each link direction's frames as a pcap file,
// read back with libpcap's own reader (and tshark, when installed) and checked against the run's
// frame accounting (result.json "accounting": frames carried per direction) and the wire's rules
// (802.3: a frame starts no earlier than the previous one's serialisation plus the inter-frame gap).
#include "models/ether/link.h"
#include "platforms/pcap_capture.h"
#include "tests/support/run_nicsim.h"
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <pcap/pcap.h>
#include <unistd.h>

// This file's own names, apart from the other files of a unity batch.
namespace pcap_capture_test {

namespace fs = std::filesystem;

namespace {

struct Record {
  uint64_t t_ns;
  std::vector<uint8_t> bytes;
};

/// Every record of a pcap file through libpcap (nanosecond precision asked for: a file written
/// with microseconds would be scaled, one with nanoseconds is read as is).
std::vector<Record> read_pcap(const fs::path& f, int* linktype) {
  char err[PCAP_ERRBUF_SIZE];
  pcap_t* p = pcap_open_offline_with_tstamp_precision(f.c_str(), PCAP_TSTAMP_PRECISION_NANO, err);
  INFO(err);
  REQUIRE(p != nullptr);
  *linktype = pcap_datalink(p);
  std::vector<Record> r;
  pcap_pkthdr* h;
  const u_char* data;
  while (pcap_next_ex(p, &h, &data) == 1)
    r.push_back({uint64_t(h->ts.tv_sec) * 1000000000ull + uint64_t(h->ts.tv_usec), std::vector<uint8_t>(data, data + h->caplen)});
  pcap_close(p);
  return r;
}

uint32_t magic_of(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  uint32_t m = 0;
  in.read(reinterpret_cast<char*>(&m), 4);
  return m;
}

}  // namespace

TEST_CASE("pcap: file names and 60-byte padding") {
  CHECK(nicsim::pcap_file_name("links.0", "alpha.eth1:1", "beta.eth1:1") == "links.0.alpha.eth1_1-to-beta.eth1_1.pcap");
  CHECK(nicsim::pcap_record_bytes(std::vector<uint8_t>(54, 0xab)).size() == 60);
  CHECK(nicsim::pcap_record_bytes(std::vector<uint8_t>(54, 0xab))[53] == 0xab);
  CHECK(nicsim::pcap_record_bytes(std::vector<uint8_t>(54, 0xab))[54] == 0);
  CHECK(nicsim::pcap_record_bytes(std::vector<uint8_t>(1514, 1)).size() == 1514);
}

TEST_CASE("pcap: nicsim run --pcap writes every link direction's frames, times and counts as the run accounted them") {
  fs::path dir = fs::temp_directory_path() / ("nicsim-pcap-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string pcap = (dir / "pcap").string();
  auto j = nicsim::test::run_json("run scenarios/seed000/82546eb-pcix100.toml --set workload.lower=1 --set workload.upper=1024"
                                  " --set workload.trials=2 --set workload.runtm_s=0.002 --pcap " + nicsim::test::shell_quote(pcap));
  const double sim_ns = j["sim_time_s"].get<double>() * 1e9;
  const unsigned speed = j["params"]["links"][0].value("speed_mbps", 1000u);
  REQUIRE(j["pcap"].size() == j["accounting"]["directions"].size());
  REQUIRE(j["pcap"].size() == 2);
  bool tshark = std::system("command -v tshark >/dev/null 2>&1") == 0;
  for (size_t i = 0; i < j["pcap"].size(); ++i) {
    const auto& c = j["pcap"][i];
    const auto& d = j["accounting"]["directions"][i];
    INFO(c.dump() << "\n" << d.dump());
    CHECK(c["link"] == d["link"]);
    CHECK(c["from"] == d["from"]);
    const fs::path f = fs::path(pcap) / c["file"].get<std::string>();
    CHECK(magic_of(f) == 0xa1b23c4du);  // nanosecond-resolution pcap, written in the host's byte order
    int lt = -1;
    auto recs = read_pcap(f, &lt);
    CHECK(lt == DLT_EN10MB);
    // As many frames as the link carried in that direction, and the run listed.
    CHECK(recs.size() == d["carried"].get<uint64_t>());
    CHECK(recs.size() == c["frames"].get<uint64_t>());
    REQUIRE(recs.size() > 100);
    for (size_t k = 0; k < recs.size(); ++k) {
      INFO("record " << k);
      REQUIRE(recs[k].bytes.size() >= 60);
      REQUIRE(double(recs[k].t_ns) <= sim_ns);
      if (k > 0) {
        // Wire order: the previous frame's preamble..FCS and the inter-frame gap come first
        // (1 ns of slack for the truncation to whole nanoseconds).
        const double min_gap_ns = nicsim::frame_time(unsigned(recs[k - 1].bytes.size()), speed).to_seconds() * 1e9;
        REQUIRE(double(recs[k].t_ns - recs[k - 1].t_ns) >= min_gap_ns - 1.0);
      }
    }
    // Real frames: IPv4 EtherType on the TCP ping-pong's data frames.
    CHECK(recs.back().bytes[12] == 0x08);
    CHECK(recs.back().bytes[13] == 0x00);
    if (tshark) {
      // The tool people read captures with counts the same frames and parses them as TCP.
      std::string n = nicsim::test::run_stdout("tshark -r " + nicsim::test::shell_quote(f.string()) + " -Y tcp 2>/dev/null | wc -l");
      CHECK(std::stoul(n) == recs.size());
    } else {
      WARN("tshark is not installed (./setup.sh installs it): capture read back with libpcap only");
    }
  }
  fs::remove_all(dir);
}

}  // namespace pcap_capture_test
