// error.hpp: warplab's one exception and the kinds of error, each with one exit code
// (app/cli/exit_codes.hpp, docs/exit-codes.md). What stops an operation is a warplab::Error
// with its kind, from where it is raised to main, across the Lua boundary too (bind/guard.hpp
// keeps the kind beside the message); no code reads a kind back from a message's words. A
// question whose "no" is a normal answer returns std::optional<std::string>: nullopt for
// yes, else the reason, one sentence.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace warplab {

enum class ErrorKind {
  failed,          // the command did not do what was asked: an output it could not write, a tool that failed
  usage,           // a bad command line
  no_gpu,          // no driver, no GPU, no such device; a call that needs a GPU on a run without one
  not_in_profile,  // a value the profile does not know (an architecture profile's SM count)
  bad_input,       // unreadable or malformed input, misuse of the API: the caller's input
  parameter,       // a -p value the script's params refuses
  compile,         // NVRTC rejected the source
  driver,          // a CUDA driver call failed at run time
  profiler,        // CUPTI refused or failed to count
  timeout,         // the kernel watchdog fired: the context is stuck
  tool,            // a CUDA tool warplab runs was not found: compute-sanitizer, cuobjdump, nvdisasm
  internal,        // a bug in warplab, or a resource the system refused warplab itself
};

// Every kind and its name as the Lua library writes it (warplab.raise("parameter", ...)),
// for tables that must cover them all (exit_codes_test.cpp checks exit_codes.hpp's).
struct KindName {
  ErrorKind kind;
  std::string_view name;
};
inline constexpr KindName kErrorKinds[] = {
    {ErrorKind::failed, "failed"},       {ErrorKind::usage, "usage"},
    {ErrorKind::no_gpu, "no_gpu"},       {ErrorKind::not_in_profile, "not_in_profile"},
    {ErrorKind::bad_input, "bad_input"}, {ErrorKind::parameter, "parameter"},
    {ErrorKind::compile, "compile"},     {ErrorKind::driver, "driver"},
    {ErrorKind::profiler, "profiler"},   {ErrorKind::timeout, "timeout"},
    {ErrorKind::tool, "tool"},           {ErrorKind::internal, "internal"},
};

constexpr std::string_view kind_name(ErrorKind k) {
  for (const KindName& row : kErrorKinds)
    if (row.kind == k) return row.name;
  return "internal";
}

// The kind named `name`, or nullopt.
constexpr std::optional<ErrorKind> kind_named(std::string_view name) {
  for (const KindName& row : kErrorKinds)
    if (row.name == name) return row.kind;
  return std::nullopt;
}

// What stops an operation: one sentence and its kind. cu::Error, cu::CuptiError and
// rtc::Error add what their library reports (the CUresult, the call, the nvrtcResult).
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace warplab
