// hooks.cpp: make_dir and now_seconds, with std::filesystem and std::chrono.
// Depends on lab/hooks.hpp.
#include "lab/hooks.hpp"

#include <chrono>
#include <filesystem>
#include <system_error>

namespace warplab::lab {

std::string make_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec && std::filesystem::is_directory(dir)) return {};
  return "cannot create the folder '" + dir +
         "': " + (ec ? ec.message() : std::string("a file is in the way"));
}

double now_seconds() {
  const auto t = std::chrono::steady_clock::now().time_since_epoch();
  return std::chrono::duration<double>(t).count();
}

}  // namespace warplab::lab
