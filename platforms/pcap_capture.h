// Packet captures of a run (`nicsim run --pcap DIR`): every frame each link direction carries, as a
// libpcap capture file that Wireshark, tshark, tcpdump and tcptrace read like a real one.
//
// Format: the pcap file format with nanosecond timestamps (magic 0xa1b23c4d, written by libpcap's
// pcap_dump on a pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535, PCAP_TSTAMP_PRECISION_NANO)
// handle), link type LINKTYPE_ETHERNET (1). A record's timestamp is the simulated time the frame's
// first preamble bit went on the wire (what a passive tap at the sender's end of the cable stamps),
// truncated to the nanosecond; the epoch is the start of the simulation (1970-01-01 00:00:00 in a
// reader's display). Its bytes are the frame's real bytes, destination MAC through payload, padded
// with zeros to the 60-byte minimum as the MAC pads it (802.3 §4.2.3.3; the 8254x's TCTL.PSP, the
// BCM5701's and the 8255x's padding likewise write zeros); no preamble, SFD or FCS, as a host's
// capture shows them.
#pragma once
#include "models/ether/link.h"
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace nicsim {

/// The pcap file name of one link direction: "<link>.<from>-to-<to>.pcap" with every character
/// other than [A-Za-z0-9._-] replaced by '_' ("links.0.alpha.eth1_1-to-beta.eth1_1.pcap" for
/// alpha.eth1:1 -> beta.eth1:1).
std::string pcap_file_name(const std::string& link, const std::string& from, const std::string& to);

/// The bytes one pcap record of `frame_bytes` holds: the frame padded with zeros to 60 bytes.
std::vector<uint8_t> pcap_record_bytes(const std::vector<uint8_t>& frame_bytes);

/// One link's capture: two pcap files (a->b, b->a) in a directory, written as frames go on the wire
/// (EthTap) into NAME.part files that close() renames to their names (atomic: a reader never sees
/// half a capture); destroyed without close() (the run threw), it removes them.
class PcapLinkCapture : public EthTap {
 public:
  /// Opens DIR/pcap_file_name(link, a, b) and DIR/pcap_file_name(link, b, a). Throws
  /// std::runtime_error naming the file when one cannot be created.
  PcapLinkCapture(const std::filesystem::path& dir, const std::string& link, const std::string& a,
                  const std::string& b);
  ~PcapLinkCapture() override;
  PcapLinkCapture(const PcapLinkCapture&) = delete;
  PcapLinkCapture& operator=(const PcapLinkCapture&) = delete;

  void on_frame(unsigned dir, const EthFrame& f, const sc_time& first_bit, const sc_time& last_bit) override;
  /// Flush and close both files and give them their names (idempotent). Throws std::runtime_error
  /// (or std::filesystem::filesystem_error) when they cannot be written.
  void close();
  /// Frames written to direction `dir`'s file so far.
  uint64_t frames(unsigned dir) const { return frames_[dir & 1]; }
  /// The file of direction `dir`.
  const std::filesystem::path& file(unsigned dir) const { return files_[dir & 1]; }

 private:
  struct Pcap;
  std::unique_ptr<Pcap> pcap_;
  std::filesystem::path files_[2];
  uint64_t frames_[2] = {0, 0};
};

}  // namespace nicsim
