#include "platforms/pcap_capture.h"
#include <cerrno>
#include <cstring>
#include <pcap/pcap.h>
#include <stdexcept>

namespace nicsim {

namespace {
constexpr unsigned kPcapMinFrameBytes = 60;  // 802.3 §4.4.2 minFrameSize 64 B less the 4-byte FCS
constexpr int kPcapSnapLen = 65535;          // larger than any frame a model sends (no jumbo frames)
}  // namespace

std::string pcap_file_name(const std::string& link, const std::string& from, const std::string& to) {
  std::string s = link + "." + from + "-to-" + to + ".pcap";
  for (char& c : s)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
          c == '-'))
      c = '_';
  return s;
}

std::vector<uint8_t> pcap_record_bytes(const std::vector<uint8_t>& frame_bytes) {
  std::vector<uint8_t> r = frame_bytes;
  if (r.size() < kPcapMinFrameBytes) r.resize(kPcapMinFrameBytes, 0);
  return r;
}

struct PcapLinkCapture::Pcap {
  pcap_t* handle = nullptr;
  pcap_dumper_t* dumper[2] = {nullptr, nullptr};
  std::filesystem::path part[2];  // written here, renamed to the file's name by close()
  void close_dumpers() {
    for (auto*& d : dumper)
      if (d) {
        pcap_dump_close(d);
        d = nullptr;
      }
  }
  ~Pcap() {
    // Not closed (the run threw): no half capture under the file's name.
    const bool open = dumper[0] || dumper[1];
    close_dumpers();
    if (open)
      for (auto& p : part) {
        std::error_code ec;
        if (!p.empty()) std::filesystem::remove(p, ec);
      }
    if (handle) pcap_close(handle);
  }
};

PcapLinkCapture::PcapLinkCapture(const std::filesystem::path& dir, const std::string& link, const std::string& a,
                                 const std::string& b)
    : pcap_(std::make_unique<Pcap>()) {
  files_[0] = dir / pcap_file_name(link, a, b);
  files_[1] = dir / pcap_file_name(link, b, a);
  pcap_->handle = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, kPcapSnapLen, PCAP_TSTAMP_PRECISION_NANO);
  if (!pcap_->handle) throw std::runtime_error("pcap: cannot open a capture handle (libpcap)");
  for (unsigned d = 0; d < 2; ++d) {
    pcap_->part[d] = files_[d];
    pcap_->part[d] += ".part";
    errno = 0;
    pcap_->dumper[d] = pcap_dump_open(pcap_->handle, pcap_->part[d].c_str());
    if (!pcap_->dumper[d]) {
      // The reason from errno (fopen's): pcap_geterr's text repeats the path in a 256-byte buffer,
      // which a long path fills before the reason.
      const int err = errno;
      throw std::runtime_error("pcap: cannot create " + pcap_->part[d].string() + ": " +
                               (err ? std::string(std::strerror(err)) : std::string(pcap_geterr(pcap_->handle))));
    }
  }
}

PcapLinkCapture::~PcapLinkCapture() = default;

void PcapLinkCapture::on_frame(unsigned dir, const EthFrame& f, const sc_time& first_bit, const sc_time&) {
  pcap_dumper_t* d = pcap_->dumper[dir & 1];
  if (!d) return;  // closed
  const std::vector<uint8_t> bytes = pcap_record_bytes(f.bytes);
  static const uint64_t ticks_per_ns = static_cast<uint64_t>(detail::tick_scale().ns + 0.5);  // 1000 at 1 ps
  const uint64_t t_ns = first_bit.value() / ticks_per_ns;
  pcap_pkthdr h{};
  // With nanosecond precision libpcap writes ts.tv_usec as the nanoseconds within the second.
  h.ts.tv_sec = static_cast<time_t>(t_ns / 1000000000ull);
  h.ts.tv_usec = static_cast<suseconds_t>(t_ns % 1000000000ull);
  h.caplen = h.len = static_cast<bpf_u_int32>(bytes.size());
  pcap_dump(reinterpret_cast<u_char*>(d), &h, bytes.data());
  ++frames_[dir & 1];
}

void PcapLinkCapture::close() {
  if (!pcap_->dumper[0] && !pcap_->dumper[1]) return;
  for (auto* d : pcap_->dumper)
    if (d && pcap_dump_flush(d) != 0) throw std::runtime_error("pcap: cannot write " + files_[0].parent_path().string());
  pcap_->close_dumpers();
  for (unsigned d = 0; d < 2; ++d) std::filesystem::rename(pcap_->part[d], files_[d]);  // whole files only
}

}  // namespace nicsim
