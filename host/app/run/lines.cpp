// run/lines.cpp: RunLines (lines.hpp): the session around a script, what is printed or
// written after it.
#include "app/run/lines.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "app/cli/exit_codes.hpp"
#include "bind/state.hpp"
#include "lab/run.hpp"
#include "lab/sync.hpp"
#include "sys/write.hpp"

namespace warplab::app {

RunLines::RunLines(const LineArgs& a, std::string json, bool color, lua_State* L)
    : args_(a), json_(std::move(json)), color_(color), run_(bind::run_of(L)) {
  lab::LineColumns columns;
  try {
    columns = lab::line_columns(a.words());
  } catch (const lab::Error& e) {
    throw Failure(kBadInput, std::string("--lines: ") + e.what());
  }
  // Every module the script compiles carries its line table (the same switch as
  // --sanitize's: WARPLAB_LINEINFO, read by cuda.compile).
  ::setenv("WARPLAB_LINEINFO", "1", 1);
  if (!run_.offline()) session_ = std::make_unique<lab::LineSession>(run_.gpu_context("--lines"), columns);
}

RunLines::~RunLines() {
  if (session_ && run_.lost()) session_->abandon();  // no CUPTI call into a broken context
}

int RunLines::finish(bool timed_out) {
  std::fflush(stdout);
  if (!session_) {
    std::cerr << "warplab: --lines: " << lab::lines_need_gpu() << " (" << run_.offline_reason() << ")\n";
    return kOk;
  }
  if (timed_out || run_.lost()) {  // the script's error said why; nothing can be read back
    session_->abandon();
    return kOk;
  }
  lab::LineReport report;
  try {
    lab::synchronize_launched(run_);  // behind the watchdog, as every wait
    report = session_->end();
  } catch (const lab::Timeout& e) {
    session_->abandon();
    std::cerr << "warplab: --lines: " << e.what() << "\n";
    return kTimeout;
  } catch (const cu::Error& e) {
    session_->abandon();
    std::cerr << "warplab: --lines: " << run_.describe(e) << "\n";
    return exit_code_for(e);
  } catch (const lab::Error& e) {
    std::cerr << "warplab: --lines: " << e.what() << "\n";
    return kFailed;
  }
  if (json_.empty()) {
    std::cout << "\n" << lab::lines_text(report, color_, args_.sass);
    return kOk;
  }
  const std::string text = lab::lines_json(report).dump(2) + "\n";
  if (json_ == "-") {
    std::cout << text;
    return kOk;
  }
  const sys::WriteResult w = sys::write_file(json_, text, sys::Replace::allowed);
  if (w) return kOk;
  std::cerr << "warplab: --json: " << w.message << "\n";
  return kFailed;
}

}  // namespace warplab::app
