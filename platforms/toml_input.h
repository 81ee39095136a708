// The bytes a TOML parser may see: a check run on scenario text and on `--set` values before
// toml++ reads them.
//
// Debian 12's toml++ 3.3.0 reaches undefined behaviour on some malformed input (upstream
// marzer/tomlplusplus#190 and #295, fixed after 3.3.0): its whitespace predicates
// (is_non_ascii_horizontal_whitespace) hit TOML_UNREACHABLE for most non-ASCII code points, and it
// evaluates them on characters in keys, after bare values, between tokens and after a backslash in
// a multi-line basic string; with assertions on, a control character in a key ("[\x0e") aborts in
// parser::parse_key. check_toml_input refuses, with the file, line, column and key, everything of
// that kind before the parser sees it:
//  - more than kMaxTomlInputBytes bytes;
//  - bytes that are not UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF);
//  - control characters other than TAB, LF and the CR of a CRLF (TOML 1.0 allows no others,
//    not even in strings; write them as escapes, e.g. "\u0007");
//  - non-ASCII characters outside string values and comments (TOML 1.0 bare keys and values are
//    ASCII) or in keys (quoted keys with non-ASCII characters are valid TOML, but unsafe in 3.3.0);
//  - in a multi-line basic string, a non-ASCII character right after a backslash, or as the first
//    character after a line-ending backslash (valid TOML, unsafe in 3.3.0: write it as \uXXXX);
//  - nesting deeper than kMaxTomlDepth (tables, arrays and inline tables, including the levels a
//    dotted key or table header opens).
// Everything else, including ordinary syntax errors, is left to toml++ and its messages.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace nicsim {

inline constexpr size_t kMaxTomlInputBytes = 16u << 20;  ///< a scenario file's limit (16 MiB)
inline constexpr size_t kMaxTomlDepth = 32;              ///< scenarios use at most 5 levels

/// What check_toml_input refused: 1-based line and column (columns count characters, as toml++'s
/// do), the dotted key being read there ("" at top level or outside any key), and why.
struct TomlInputProblem {
  int line = 0, column = 0;
  std::string key;
  std::string message;  ///< e.g. "invalid UTF-8 (byte 0xff)"
};

/// The first problem of `text` (see the file comment), or nullopt when toml++ may parse it.
std::optional<TomlInputProblem> check_toml_input(std::string_view text);

/// The first byte position where `text` is not valid UTF-8 or holds a control character other
/// than TAB, LF and CR, with why ("invalid UTF-8 (byte 0xff)", "control character U+000E"), or nullopt.
/// For values that never reach the parser (a `--set` bare string).
std::optional<std::pair<size_t, std::string>> check_utf8_text(std::string_view text);

}  // namespace nicsim
