#include "models/mem/dram.h"
#include "core/sim_context.h"
#include "models/bus/stream_timing.h"
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

namespace nicsim {

static constexpr uint64_t kPage = 4096;

Dram::Dram(sc_core::sc_module_name name, const DramParams& p)
    : sc_module(name),
      target("target"),
      p_(p),
      bus_(std::string(this->name()) + ".data_bus"),
      open_row_(p.banks, -1),
      c_reads_(sim().counters.at(std::string(this->name()) + ".reads")),
      c_writes_(sim().counters.at(std::string(this->name()) + ".writes")),
      c_rd_bytes_(sim().counters.at(std::string(this->name()) + ".bytes_read")),
      c_wr_bytes_(sim().counters.at(std::string(this->name()) + ".bytes_written")),
      c_hit_(sim().counters.at(std::string(this->name()) + ".page_hits")),
      c_empty_(sim().counters.at(std::string(this->name()) + ".page_empty")),
      c_miss_(sim().counters.at(std::string(this->name()) + ".page_misses")),
      c_busy_ns_(sim().counters.at(std::string(this->name()) + ".busy_ns")) {
  if (p_.banks == 0 || p_.page_bytes == 0 || p_.line_bytes == 0) throw std::invalid_argument("DramParams: zero geometry");
  // Per-access constants, computed once with the same expressions schedule() used per access.
  clk_ = clock_period();
  const double bytes_per_clock = double(p_.channels) * p_.channel_bytes * p_.transfers_per_clock;
  line_clocks_ = p_.line_bytes / bytes_per_clock;
  for (Page pg : {Page::Hit, Page::Empty, Page::Miss}) command_time_[int(pg)] = clk_ * command_clocks(pg);
  line_time_ = clk_ * line_clocks_;
  read_first_time_ = clk_ * (line_clocks_ + p_.tRD_clocks);
  read_delay_time_ = clk_ * p_.tRD_clocks;
  target.register_b_transport(this, &Dram::b_transport);
  target.register_transport_dbg(this, &Dram::transport_dbg);
}

double Dram::peak_mb_per_s() const {
  return p_.channels * p_.channel_bytes * p_.transfers_per_clock * p_.clock_mhz;
}

double Dram::command_clocks(Page pg) const {
  switch (pg) {
    case Page::Hit: return p_.tCL_clocks;
    case Page::Empty: return p_.tRCD_clocks + p_.tCL_clocks;
    case Page::Miss: return p_.tRP_clocks + p_.tRCD_clocks + p_.tCL_clocks;
  }
  return 0;
}

Dram::Timing Dram::schedule(bool write, uint64_t addr, uint32_t len, const sc_time& earliest) {
  const sc_time& clk = clk_;
  uint64_t row_index = addr / p_.page_bytes;
  unsigned bank = static_cast<unsigned>(row_index % p_.banks);
  int64_t row = static_cast<int64_t>(row_index / p_.banks);
  Timing t;
  if (open_row_[bank] == row) {
    t.page = Page::Hit;
    ++c_hit_;
  } else if (open_row_[bank] < 0) {
    t.page = Page::Empty;
    ++c_empty_;
  } else {
    t.page = Page::Miss;
    ++c_miss_;
  }
  // The access leaves the row of its last byte open (open-page policy).
  uint64_t last_row_index = (addr + (len ? len - 1 : 0)) / p_.page_bytes;
  open_row_[last_row_index % p_.banks] = static_cast<int64_t>(last_row_index / p_.banks);

  uint64_t lines = len ? (addr + len - 1) / p_.line_bytes - addr / p_.line_bytes + 1 : 1;
  sc_time burst = clk * (double(lines) * line_clocks_);
  Grant g = bus_.reserve(earliest + command_time_[int(t.page)], burst);
  busy_ns_ += to_ns(burst);
  c_busy_ns_ = static_cast<uint64_t>(std::llround(busy_ns_));
  if (write) {
    t.first = g.start + line_time_;
    t.last = g.end;
    ++c_writes_;
    c_wr_bytes_ += len;
  } else {
    t.first = g.start + read_first_time_;
    t.last = g.end + read_delay_time_;
    ++c_reads_;
    c_rd_bytes_ += len;
  }
  return t;
}

void Dram::check_range(uint64_t addr, size_t len) const {
  if (!installed(addr, len))
    throw std::out_of_range("DRAM access [" + std::to_string(addr) + ", +" + std::to_string(len) +
                            ") outside installed memory of " + std::to_string(p_.size_bytes) + " bytes");
}

uint8_t* Dram::page_for_write(uint64_t page) {
  if (page == last_page_ && last_data_) return last_data_;
  auto& slot = pages_[page];
  if (!slot) {
    slot = std::make_unique<uint8_t[]>(kPage);
    std::memset(slot.get(), 0, kPage);
  }
  last_page_ = page;
  last_data_ = slot.get();
  return slot.get();
}

void Dram::read(uint64_t addr, void* dst, size_t len) const {
  check_range(addr, len);
  auto* out = static_cast<uint8_t*>(dst);
  while (len > 0) {
    uint64_t page = addr / kPage, off = addr % kPage;
    size_t n = std::min<size_t>(len, kPage - off);
    const uint8_t* src = nullptr;
    if (page == last_page_ && last_data_) {
      src = last_data_;
    } else if (auto it = pages_.find(page); it != pages_.end()) {
      src = it->second.get();
      last_page_ = page;
      last_data_ = it->second.get();
    }
    if (src)
      std::memcpy(out, src + off, n);
    else
      std::memset(out, 0, n);
    out += n;
    addr += n;
    len -= n;
  }
}

void Dram::write(uint64_t addr, const void* src, size_t len) {
  check_range(addr, len);
  auto* in = static_cast<const uint8_t*>(src);
  while (len > 0) {
    uint64_t page = addr / kPage, off = addr % kPage;
    size_t n = std::min<size_t>(len, kPage - off);
    std::memcpy(page_for_write(page) + off, in, n);
    in += n;
    addr += n;
    len -= n;
  }
}

unsigned Dram::transport_dbg(tlm::tlm_generic_payload& trans) {
  const uint64_t addr = trans.get_address();
  const uint32_t len = trans.get_data_length();
  if (!installed(addr, len)) return 0;
  if (trans.is_write())
    write(addr, trans.get_data_ptr(), len);
  else if (trans.is_read())
    read(addr, trans.get_data_ptr(), len);
  else
    return 0;
  return len;
}

void Dram::b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
  uint64_t addr = trans.get_address();
  uint32_t len = trans.get_data_length();
  if (!installed(addr, len)) {
    trans.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  bool write = trans.is_write();
  if (write)
    this->write(addr, trans.get_data_ptr(), len);
  else
    this->read(addr, trans.get_data_ptr(), len);
  if (write) {
    if (auto* train = trans.get_extension<PostedTrainExt>()) {
      // Each piece is its own access at its own time, in order (bank state, data bus).
      Timing first, t;
      uint64_t a = addr;
      for (size_t i = 0; i < train->pieces.size(); ++i) {
        t = schedule(true, a, train->pieces[i].bytes, train->pieces[i].at);
        if (i == 0) first = t;
        a += train->pieces[i].bytes;
      }
      if (auto* e = trans.get_extension<StreamTimingExt>()) {
        e->first_data = first.first;
        e->has_first_data = true;
      }
      delay = t.last - now();
      trans.set_response_status(tlm::TLM_OK_RESPONSE);
      return;
    }
  }
  Timing t = schedule(write, addr, len, now() + delay);
  if (auto* e = trans.get_extension<StreamTimingExt>()) {
    e->first_data = t.first;
    e->has_first_data = true;
  }
  delay = t.last - now();
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace nicsim
