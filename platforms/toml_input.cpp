// check_toml_input: a small TOML 1.0 tokenizer that follows the document's structure (keys,
// values, strings, comments, nesting) only as far as needed to know where each character is, and
// refuses what toml++ 3.3.0 cannot read safely (see toml_input.h).
//
// It never needs to agree with toml++ beyond toml++'s first syntax error (toml++ reads no further),
// so it may be lenient there. When it meets something it cannot place (a syntax error toml++ will
// report), it stops following the structure; what follows is then only checked to be UTF-8 without
// control characters, and any non-ASCII character in it is refused (at the point it lost track),
// since toml++ might read it in an unsafe position.
#include "platforms/toml_input.h"
#include <fmt/core.h>
#include <string>
#include <vector>

namespace nicsim {
namespace {

struct Decoded {
  char32_t cp = 0;
  size_t len = 0;  ///< 0: not UTF-8
};

/// One RFC 3629 code point at s[i] (i < s.size()).
Decoded decode(std::string_view s, size_t i) {
  auto b = [&](size_t k) -> unsigned { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0x100; };
  auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return b(k) >= lo && b(k) <= hi; };
  const unsigned c0 = b(0);
  if (c0 < 0x80) return {c0, 1};
  if (c0 >= 0xC2 && c0 <= 0xDF && cont(1)) return {((c0 & 0x1F) << 6) | (b(1) & 0x3F), 2};
  if (c0 >= 0xE0 && c0 <= 0xEF) {
    const unsigned lo = c0 == 0xE0 ? 0xA0 : 0x80, hi = c0 == 0xED ? 0x9F : 0xBF;  // no overlongs, no surrogates
    if (cont(1, lo, hi) && cont(2)) return {((c0 & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F), 3};
  }
  if (c0 >= 0xF0 && c0 <= 0xF4) {
    const unsigned lo = c0 == 0xF0 ? 0x90 : 0x80, hi = c0 == 0xF4 ? 0x8F : 0xBF;  // U+10000..U+10FFFF
    if (cont(1, lo, hi) && cont(2) && cont(3))
      return {((c0 & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F), 4};
  }
  return {0, 0};
}

std::string cp_name(char32_t c) { return fmt::format("U+{:04X}", static_cast<uint32_t>(c)); }

bool bare_key_char(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/// Thrown inside the scanner: a problem to report.
struct Refused {
  TomlInputProblem p;
};
/// Thrown inside the scanner: the structure could not be followed from here on.
struct LostTrack {};

class Scanner {
 public:
  explicit Scanner(std::string_view t) : s_(t) {}

  std::optional<TomlInputProblem> run() {
    try {
      if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // a byte order mark (toml++ skips it)
      document();
      return std::nullopt;
    } catch (const Refused& r) {
      return r.p;
    } catch (const LostTrack&) {
      return rest_after_lost_track();
    }
  }

 private:
  // ---- characters ------------------------------------------------------------------------------
  bool eof() const { return pos_ >= s_.size(); }
  /// The code point at the cursor (refuses bytes that are not UTF-8 and control characters).
  char32_t peek() {
    if (eof()) return 0;
    if (peeked_at_ == pos_) return peeked_;
    Decoded d = decode(s_, pos_);
    if (!d.len) refuse(fmt::format("invalid UTF-8 (byte 0x{:02x})", static_cast<unsigned char>(s_[pos_])));
    if ((d.cp < 0x20 && d.cp != '\t' && d.cp != '\n' && d.cp != '\r') || d.cp == 0x7F)
      refuse(fmt::format("control character {} (TOML allows only TAB, LF and CRLF; write it as an escape, e.g. "
                         "\"\\u{:04X}\")", cp_name(d.cp), static_cast<uint32_t>(d.cp)));
    if (d.cp == '\r' && (pos_ + 1 >= s_.size() || s_[pos_ + 1] != '\n'))
      refuse("carriage return not followed by a line feed");
    peeked_at_ = pos_;
    peeked_ = d.cp;
    peeked_len_ = d.len;
    return d.cp;
  }
  char32_t peek_at(size_t ahead) const {  // ASCII lookahead only (for delimiters)
    return pos_ + ahead < s_.size() ? static_cast<unsigned char>(s_[pos_ + ahead]) : 0;
  }
  void advance() {
    char32_t c = peek();
    pos_ += peeked_len_;
    if (c == '\n') {
      ++line_;
      col_ = 1;
    } else if (c != '\r') {
      ++col_;
    }
  }
  bool newline_here() { return !eof() && (peek() == '\n' || peek() == '\r'); }
  void skip_ws() {
    while (!eof() && (peek() == ' ' || peek() == '\t')) advance();
  }
  void skip_comment() {  // at '#': to the end of the line (any character but controls)
    while (!eof() && !newline_here()) advance();
  }
  /// Whitespace, newlines and comments (inside arrays).
  void skip_ws_nl_comments() {
    for (;;) {
      skip_ws();
      if (eof()) return;
      if (newline_here()) advance();
      else if (peek() == '#') skip_comment();
      else return;
    }
  }
  [[noreturn]] void refuse(const std::string& why) { throw Refused{{line_, col_, key_path(), why}}; }
  [[noreturn]] void lost() {
    lost_line_ = line_;
    lost_col_ = col_;
    lost_key_ = key_path();
    throw LostTrack{};
  }
  void need_ascii(char32_t c, const char* where) {
    if (c >= 0x80) refuse(fmt::format("non-ASCII character {} {}", cp_name(c), where));
  }
  void check_depth(size_t d) {
    if (d > kMaxTomlDepth) refuse(fmt::format("nesting deeper than {} levels", kMaxTomlDepth));
  }

  // ---- structure -------------------------------------------------------------------------------
  void document() {
    while (true) {
      skip_ws();
      if (eof()) return;
      char32_t c = peek();
      if (c == '\n' || c == '\r') {
        advance();
        continue;
      }
      if (c == '#') {
        skip_comment();
        continue;
      }
      if (c == '[') {
        header();
      } else {
        key_.clear();
        size_t n = key(key_);
        skip_ws();
        if (peek() != '=') lost();
        advance();
        skip_ws();
        value(table_depth_ + n);
      }
      skip_ws();
      if (!eof() && peek() == '#') skip_comment();
      if (!eof() && !newline_here()) lost();
    }
  }

  void header() {  // at '['
    advance();
    const bool array_of_tables = !eof() && peek() == '[';
    if (array_of_tables) advance();
    header_.clear();
    key_.clear();
    // toml++ 3.3.0 reads a header's key without checking that one starts here (parser::parse_key
    // asserts it, and assumes it without assertions): anything but ']' (which it reports) that
    // cannot start a key is refused here.
    skip_ws();
    if (!eof() && peek() != ']' && peek() != '"' && peek() != '\'' && !bare_key_char(peek())) {
      need_ascii(peek(), "in a key (keys are ASCII)");
      refuse(fmt::format("TOML syntax error: expected a key after '{}', saw '{}'", array_of_tables ? "[[" : "[",
                         static_cast<char>(peek())));
    }
    size_t n = key(header_);
    skip_ws();
    if (peek() != ']') lost();
    advance();
    if (array_of_tables) {
      if (peek() != ']') lost();
      advance();
    }
    table_depth_ = n + (array_of_tables ? 1 : 0);
    check_depth(table_depth_);
  }

  /// A (dotted) key at the cursor into `segs`; returns its segment count.
  size_t key(std::vector<std::string>& segs) {
    size_t n = 0;
    for (;;) {
      skip_ws();
      if (eof()) lost();
      char32_t c = peek();
      std::string seg;
      if (c == '"' || c == '\'') {
        seg = quoted_key(static_cast<char>(c));
      } else if (bare_key_char(c)) {
        while (!eof() && bare_key_char(peek())) {
          seg += static_cast<char>(peek());
          advance();
        }
      } else {
        need_ascii(c, "in a key (keys are ASCII)");
        lost();
      }
      segs.push_back(std::move(seg));
      ++n;
      skip_ws();
      if (!eof() && peek() == '.') {
        advance();
        continue;
      }
      break;
    }
    return n;
  }

  std::string quoted_key(char q) {  // at the opening quote; keys: single-line strings only
    advance();
    std::string seg;
    for (;;) {
      if (eof() || newline_here()) lost();
      char32_t c = peek();
      need_ascii(c, "in a key (quoted keys must be ASCII here: toml++ 3.3.0 cannot read them safely)");
      advance();
      if (c == static_cast<char32_t>(q)) return seg;
      if (q == '"' && c == '\\') {
        if (eof()) lost();
        need_ascii(peek(), "after a backslash");
        seg += '\\';
        seg += static_cast<char>(peek());
        advance();
        continue;
      }
      seg += static_cast<char>(c);
    }
  }

  /// A value at the cursor, at tree depth `d`.
  void value(size_t d) {
    check_depth(d);
    if (eof()) lost();
    char32_t c = peek();
    // toml++ 3.3.0 asserts (and without assertions assumes) that an array element does not start
    // with a value terminator; of those only '}' reaches it there ("[}").
    if (c == '}') refuse("TOML syntax error: expected a value, saw '}'");
    if (c == '"' || c == '\'') {
      const bool multi = peek_at(1) == c && peek_at(2) == c;
      if (multi) multi_line_string(static_cast<char>(c));
      else string_value(static_cast<char>(c));
    } else if (c == '[') {
      advance();
      for (;;) {
        skip_ws_nl_comments();
        if (eof()) lost();
        if (peek() == ']') {
          advance();
          return;
        }
        value(d + 1);
        skip_ws_nl_comments();
        if (eof()) lost();
        if (peek() == ',') {
          advance();
          continue;
        }
        if (peek() != ']') lost();
        advance();
        return;
      }
    } else if (c == '{') {
      advance();
      const std::vector<std::string> outer = key_;
      skip_ws();
      if (!eof() && peek() == '}') {
        advance();
        return;
      }
      for (;;) {
        key_ = outer;
        size_t n = key(key_);
        skip_ws();
        if (eof() || peek() != '=') lost();
        advance();
        skip_ws();
        value(d + n);
        skip_ws();
        if (eof()) lost();
        if (peek() == ',') {
          advance();
          continue;
        }
        if (peek() != '}') lost();
        advance();
        key_ = outer;
        return;
      }
    } else {
      bare_value();
    }
  }

  /// A number, boolean, date or time: ASCII up to a value terminator (a date and a time may be
  /// separated by one space). As toml++ does, everything up to a terminator is taken as the value
  /// (toml++ reports what does not belong), and '_' is left out where it guesses the type.
  void bare_value() {
    std::string text;  // the value without '_'
    size_t n = 0;
    // toml++ 3.3.0 reads a date-time's time without checking its first two characters: after the
    // date's 'T' it asserts (and without assertions assumes) a digit (parser::parse_time), and after
    // "DATE D" it scans on assuming no value terminator follows (parser::parse_value). A time's hour
    // has two digits, so anything else is refused here, before the rest of the value is looked at.
    auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
    // "YYYY-MM-DD" + separator (+ one digit), awaiting a digit. As loose as toml++'s own guess
    // that a value is a date-time (ten characters, '-' at 4 and 7: "1979-@5-27 0" is one to it).
    auto date_then = [&] {
      if (text.size() != 11 && text.size() != 12) return false;
      if (text[4] != '-' || text[7] != '-') return false;
      const char sep = text[10];
      if (text.size() == 11) return sep == 'T' || sep == 't';
      return (sep == 'T' || sep == 't' || sep == ' ') && is_digit(text[11]);
    };
    auto no_time = [&] {
      refuse(fmt::format("TOML syntax error: expected the hour's digits after '{}' in the date-time starting '{}'",
                         text.substr(0, 10), text));
    };
    for (;;) {
      if (eof()) break;
      char32_t c = peek();
      if (date_then() && !(c >= '0' && c <= '9')) no_time();
      need_ascii(c, "outside a string or comment");
      if (c == ' ' && text.size() == 10 && text[4] == '-' && text[7] == '-' && peek_at(1) >= '0' && peek_at(1) <= '9') {
        text += ' ';
        advance();
        continue;
      }
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ']' || c == '}' || c == '#') break;
      if (c != '_') text += static_cast<char>(c);
      advance();
      ++n;
    }
    if (date_then()) no_time();
    if (n == 0) lost();
  }

  void string_value(char q) {  // at the opening quote of a single-line string
    advance();
    for (;;) {
      if (eof() || newline_here()) lost();
      char32_t c = peek();
      advance();
      if (c == static_cast<char32_t>(q)) return;
      if (q == '"' && c == '\\') {
        if (eof()) lost();
        need_ascii(peek(), "after a backslash");
        advance();
      }
    }
  }

  void multi_line_string(char q) {  // at the first of three opening quotes
    advance();
    advance();
    advance();
    for (;;) {
      if (eof()) lost();
      char32_t c = peek();
      if (c == static_cast<char32_t>(q)) {
        size_t run = 0;
        while (!eof() && peek() == static_cast<char32_t>(q)) {
          advance();
          ++run;
        }
        if (run >= 3) return;  // up to two more quotes belong to the content (toml++ checks > 5)
        continue;
      }
      advance();
      if (q == '"' && c == '\\') {
        if (eof()) lost();
        char32_t e = peek();
        need_ascii(e, "after a backslash in a multi-line string (toml++ 3.3.0 cannot read it safely: write it as \\uXXXX)");
        if (e == ' ' || e == '\t' || e == '\n' || e == '\r') {  // a line-ending backslash
          skip_ws_nl();
          if (!eof())
            need_ascii(peek(), "right after a line-ending backslash (toml++ 3.3.0 cannot read it safely: write it as "
                               "\\uXXXX)");
        } else {
          advance();
        }
      }
    }
  }
  void skip_ws_nl() {
    while (!eof() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) advance();
  }

  // ---- after losing track ----------------------------------------------------------------------
  std::optional<TomlInputProblem> rest_after_lost_track() {
    // The rest must be UTF-8 without control characters; the first non-ASCII character in it is
    // refused where the structure was lost (toml++ reports the syntax error there otherwise).
    bool non_ascii = false;
    try {
      while (!eof()) {
        if (peek() >= 0x80) non_ascii = true;
        advance();
      }
    } catch (const Refused& r) {
      return r.p;
    }
    if (!non_ascii) return std::nullopt;
    TomlInputProblem p{lost_line_, lost_col_, lost_key_, ""};
    p.message = "TOML syntax error here, and non-ASCII characters after it (toml++ 3.3.0 cannot read them safely "
                "past a syntax error)";
    return p;
  }

  std::string key_path() const {
    std::string k;
    auto add = [&](const std::vector<std::string>& v) {
      for (auto& s : v) k += (k.empty() ? "" : ".") + s;
    };
    add(header_);
    add(key_);
    return k;
  }

  std::string_view s_;
  size_t pos_ = 0;
  int line_ = 1, col_ = 1;
  size_t peeked_at_ = std::string_view::npos, peeked_len_ = 0;
  char32_t peeked_ = 0;
  size_t table_depth_ = 0;
  std::vector<std::string> header_, key_;
  int lost_line_ = 0, lost_col_ = 0;
  std::string lost_key_;
};

}  // namespace

std::optional<TomlInputProblem> check_toml_input(std::string_view text) {
  if (text.size() > kMaxTomlInputBytes)
    return TomlInputProblem{0, 0, "", fmt::format("{} bytes, more than the limit of {} MiB", text.size(), kMaxTomlInputBytes >> 20)};
  return Scanner(text).run();
}

std::optional<std::pair<size_t, std::string>> check_utf8_text(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    Decoded d = decode(text, i);
    if (!d.len) return std::make_pair(i, fmt::format("invalid UTF-8 (byte 0x{:02x})", static_cast<unsigned char>(text[i])));
    if ((d.cp < 0x20 && d.cp != '\t' && d.cp != '\n' && d.cp != '\r') || d.cp == 0x7F)
      return std::make_pair(i, "control character " + cp_name(d.cp));
    i += d.len;
  }
  return std::nullopt;
}

}  // namespace nicsim
