// A TLM extension the chipset models use among themselves to pass streaming times that the single
// annotated delay of blocking transport cannot carry.
//
// For a read, b_transport's returned delay says when the LAST byte is available to the caller;
// `first_data` says when the first byte is (memory and links stream, so a bridge can start its
// completion before the last byte arrives). For a write sent over a link, `sent_end` says when the
// last byte left the sender (its buffer space is free again), while the returned delay says when
// the far end accepted it. Absent extension: callers fall back to the returned delay.
#pragma once
#include "core/units.h"
#include <boost/container/small_vector.hpp>
#include <cstdint>
#include <tlm>

namespace nicsim {

struct StreamTimingExt : tlm::tlm_extension<StreamTimingExt> {
  sc_time first_data = SC_ZERO_TIME;  ///< reads: absolute time the first byte is available to the caller
  sc_time sent_end = SC_ZERO_TIME;    ///< link writes: absolute time the last byte left the sender
  bool has_first_data = false;
  bool has_sent_end = false;
  tlm::tlm_extension_base* clone() const override { return new StreamTimingExt(*this); }
  void copy_from(const tlm::tlm_extension_base& o) override { *this = static_cast<const StreamTimingExt&>(o); }
};

/// A posted-write train ("carry a burst as one transaction"): one memory-write
/// transaction whose bytes [address, address + data_length) are a burst's consecutive pieces, in
/// address order, each with its own time, so a bridge forwards a tenure's posted pieces upstream in
/// one call instead of one call per piece. Every layer that understands it treats the pieces one by
/// one, in order, exactly as it would treat the same pieces sent as separate writes at those times
/// (a link reserves each piece's packets, the memory controller schedules each piece's access), and
/// rewrites `at` for the layer below; a layer that cannot must split the train into single writes.
/// The transaction's annotated delay on the way down is that of the first piece; on the way back it
/// is the last piece's completion. Absent extension: one write, as always.
struct PostedTrainExt : tlm::tlm_extension<PostedTrainExt> {
  struct Piece {
    uint32_t bytes = 0;                ///< the piece's length (the pieces' sum is the data length)
    sc_time at = SC_ZERO_TIME;         ///< absolute time the piece is available to the callee
    sc_time sent_end = SC_ZERO_TIME;   ///< set by a link: absolute time its last byte left the sender
  };
  /// Inline storage for a tenure's pieces (a 512-byte posted buffer holds four 128-byte ADB pieces).
  boost::container::small_vector<Piece, 8> pieces;
  tlm::tlm_extension_base* clone() const override { return new PostedTrainExt(*this); }
  void copy_from(const tlm::tlm_extension_base& o) override { *this = static_cast<const PostedTrainExt&>(o); }
};

/// Makes sure a payload carries a StreamTimingExt for the duration of one call: uses the caller's
/// if it attached one (each layer overwrites it with its own view on the way back), otherwise
/// attaches a local one and removes it on destruction (payloads owned by someone else must not
/// keep our extension).
class StreamExtGuard {
 public:
  explicit StreamExtGuard(tlm::tlm_generic_payload& p) : p_(p) {
    ext_ = p_.get_extension<StreamTimingExt>();
    if (!ext_) {
      ext_ = &local_;
      p_.set_extension(&local_);
      owned_ = true;
    }
  }
  ~StreamExtGuard() {
    if (owned_) p_.clear_extension(&local_);
  }
  StreamTimingExt& operator*() { return *ext_; }
  StreamTimingExt* operator->() { return ext_; }
  StreamExtGuard(const StreamExtGuard&) = delete;
  StreamExtGuard& operator=(const StreamExtGuard&) = delete;

 private:
  tlm::tlm_generic_payload& p_;
  StreamTimingExt local_;
  StreamTimingExt* ext_ = nullptr;
  bool owned_ = false;
};

}  // namespace nicsim
