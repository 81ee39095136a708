// Results writer: JSON with the scenario, seed, parameters actually used and the nicsim version,
// written atomically (temporary file in the same directory, fsync, rename) so an interrupted run
// never leaves a half-written result.
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace nicsim {

/// nicsim's version string (CMake project version).
const char* version();

/// Write `text` to `path` atomically. Creates parent directories. Throws std::runtime_error with
/// the path and errno text on failure.
void write_file_atomic(const std::filesystem::path& path, const std::string& text);

/// Write `j` as indented JSON to `path` atomically (see write_file_atomic).
void write_json_atomic(const std::filesystem::path& path, const nlohmann::json& j);

/// The standard envelope of a run's results: {"nicsim_version", "scenario", "seed", "params",
/// "metrics", "counters"}; callers fill metrics and counters.
nlohmann::json results_envelope(const std::string& scenario_path, uint64_t seed, const nlohmann::json& params_used);

}  // namespace nicsim
