#include "models/nic/i8255x/eeprom.h"
#include <stdexcept>

namespace nicsim::i8255x {

SerialEeprom::SerialEeprom(unsigned addr_bits) : addr_bits_(addr_bits) {
  if (addr_bits != 6 && addr_bits != 8)
    throw std::invalid_argument("SerialEeprom: addr_bits must be 6 (93C46) or 8 (93C66)");
  words_.assign(size_t(1) << addr_bits, 0xFFFF);
}

void SerialEeprom::pins(bool cs, bool sk, bool di) {
  if (!cs) {  // deselected: the command ends, EEDO floats (reads high)
    cs_ = sk_ = false;
    st_ = St::Start;
    nbits_ = opcode_ = addr_ = bit_ = 0;
    dout_ = true;
    return;
  }
  bool rising = cs_ && sk && !sk_;
  cs_ = true;
  sk_ = sk;
  if (!rising) return;
  switch (st_) {
    case St::Start:
      if (di) {
        st_ = St::Opcode;
        nbits_ = 0;
        opcode_ = 0;
      }
      break;
    case St::Opcode:
      opcode_ = (opcode_ << 1) | unsigned(di);
      if (++nbits_ == 2) {
        st_ = St::Address;
        nbits_ = 0;
        addr_ = 0;
      }
      break;
    case St::Address:
      addr_ = (addr_ << 1) | unsigned(di);
      if (++nbits_ == addr_bits_) {
        if (opcode_ == 0b10) {  // READ: the dummy zero, then data
          st_ = St::Data;
          dout_ = false;
          bit_ = 16;
        } else {
          st_ = St::Ignore;
        }
      }
      break;
    case St::Data:
      if (bit_ == 0) {  // sequential read: the next word
        addr_ = (addr_ + 1) & (unsigned(words_.size()) - 1);
        bit_ = 16;
      }
      --bit_;
      dout_ = (words_[addr_] >> bit_) & 1;
      break;
    case St::Ignore: break;
  }
}

std::vector<uint16_t> SerialEeprom::image(const std::array<uint8_t, 6>& mac, unsigned words) {
  std::vector<uint16_t> w(words, 0);
  for (int i = 0; i < 3; ++i) w[i] = uint16_t(mac[2 * i] | (mac[2 * i + 1] << 8));
  w[6] = kPhyWord;
  uint16_t sum = 0;
  for (unsigned i = 0; i + 1 < words; ++i) sum = uint16_t(sum + w[i]);
  w[words - 1] = uint16_t(kChecksum - sum);
  return w;
}

}  // namespace nicsim::i8255x
