// warplab_table.cpp: make_dir, write_result and now_seconds, with std::filesystem, sys/write.hpp
// and std::chrono.
#include "lab/warplab_table.hpp"

#include "lab/watch_feed.hpp"
#include "sys/output.hpp"
#include "sys/write.hpp"

#include <chrono>
#include <filesystem>
#include <system_error>

namespace warplab::lab {

std::optional<std::string> make_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (!ec && std::filesystem::is_directory(dir)) return std::nullopt;
  return "cannot create the folder '" + dir +
         "': " + (ec ? ec.message() : std::string("a file is in the way"));
}

std::optional<std::string> write_result(const std::string& path, std::string_view bytes) {
  // The one check of an output (sys/output.hpp): never a file this run read (the script, a
  // kernel, a header, the profile), a folder, a folder that is not there or a link.
  if (auto why = sys::output_refusal(path, sys::Replace::allowed)) return why;
  feed_written(path);  // under `warplab watch`: the run's own write, not a save
  const sys::WriteResult w = sys::write_file(path, bytes, sys::Replace::allowed);
  if (w) return std::nullopt;
  return w.message;
}

double now_seconds() {
  const auto t = std::chrono::steady_clock::now().time_since_epoch();
  return std::chrono::duration<double>(t).count();
}

}  // namespace warplab::lab
