// Seeded random numbers: one seed per run; each component derives its own stream by name, so
// adding a component does not shift the numbers another one draws. Same seed => same results.
#pragma once
#include <cstdint>
#include <random>
#include <string_view>

namespace nicsim {

class Rng {
 public:
  explicit Rng(uint64_t seed = 1) : seed_(seed), eng_(mix(seed)) {}
  /// An independent stream for component `name` (FNV-1a of the name mixed with the run seed).
  Rng derive(std::string_view name) const {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : name) { h ^= c; h *= 1099511628211ull; }
    return Rng(mix(seed_ ^ h));
  }
  uint64_t seed() const { return seed_; }
  /// Uniform real in [lo, hi).
  double uniform(double lo = 0.0, double hi = 1.0) { return std::uniform_real_distribution<double>(lo, hi)(eng_); }
  /// Uniform integer in [lo, hi].
  int64_t uniform_int(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(eng_); }
  double normal(double mean, double sd) { return std::normal_distribution<double>(mean, sd)(eng_); }
  std::mt19937_64& engine() { return eng_; }

 private:
  static uint64_t mix(uint64_t x) {  // splitmix64 finaliser
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }
  uint64_t seed_;
  std::mt19937_64 eng_;
};

}  // namespace nicsim
