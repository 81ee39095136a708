// The 8255x's serial configuration EEPROM (Microwire, 93C46-type: 64 words of 16 bits, 6 address
// bits), driven bit by bit through the SCB EEPROM control register (EECS, EESK, EEDI in; EEDO out)
// the way eepro100.c do_eeprom_cmd and e100 e100_eeprom_read shift commands out: pure logic, no
// SystemC.
//
// Protocol (eepro100.c read_eeprom, and its size probe `do_eeprom_cmd(ioaddr, EE_READ_CMD << 24,
// 27) & 0xffe0000`): with EECS high, each rising edge of EESK clocks one EEDI bit in. Leading zeros
// are ignored until the start bit (1); then two opcode bits (read = 10), then `addr_bits` address
// bits, MSB first. EEDO reads 1 until the edge that clocks the last address bit, after which it is
// the dummy 0 (which is how drivers size the EEPROM); each further rising edge presents the next
// data bit, MSB first, and after bit 0 the next word follows (sequential read). EECS low ends the
// command. Only READ is modelled: the write/erase/EWEN/EWDS commands are accepted and ignored
// (the drivers of the seed never write the EEPROM).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

namespace nicsim::i8255x {

class SerialEeprom {
 public:
  /// An EEPROM of 2^addr_bits words, all 0xFFFF (erased). Throws std::invalid_argument unless
  /// addr_bits is 6 (93C46, 64 words) or 8 (93C66, 256 words).
  explicit SerialEeprom(unsigned addr_bits = 6);
  unsigned addr_bits() const { return addr_bits_; }
  std::vector<uint16_t>& words() { return words_; }
  const std::vector<uint16_t>& words() const { return words_; }
  /// The pins after a write of the EEPROM control register.
  void pins(bool cs, bool sk, bool di);
  /// EEDO as the part presents it now.
  bool dout() const { return dout_; }

  /// The image the 8255x drivers expect (e100.h EEPROM_NODE_ADDRESS_BYTE_0 = word 0, EEPROM_SUM
  /// 0xBABA): words 0-2 the station address (low byte first in each word), word 6 the primary PHY
  /// (eepro100.c: bits 13:8 PHY type, 7 = "i82555" in its phys[] table; bits 4:0 PHY address 1),
  /// the last word making the 16-bit sum of all words 0xBABA.
  static std::vector<uint16_t> image(const std::array<uint8_t, 6>& mac, unsigned words = 64);
  static constexpr uint16_t kChecksum = 0xBABA;
  static constexpr uint16_t kPhyWord = 0x0701;  ///< PHY type 7 (82555), address 1

 private:
  enum class St { Start, Opcode, Address, Data, Ignore };
  unsigned addr_bits_;
  std::vector<uint16_t> words_;
  bool cs_ = false, sk_ = false, dout_ = true;
  St st_ = St::Start;
  unsigned nbits_ = 0, opcode_ = 0, addr_ = 0, bit_ = 0;
};

}  // namespace nicsim::i8255x
