// run/lines.cpp: RunLines (lines.hpp): the session around a script, the stall pass, what
// is printed or written after it.
#include "app/run/lines.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "app/cli/exit_codes.hpp"
#include "app/cli/page.hpp"
#include "app/run/counters.hpp"
#include "app/run/quiet.hpp"
#include "bind/state.hpp"
#include "cu/error.hpp"
#include "lab/run.hpp"
#include "lab/sync.hpp"
#include "rtc/signature.hpp"
#include "sys/write.hpp"

namespace warplab::app {

RunLines::RunLines(const LineArgs& a, bool color, lua_State* L)
    : args_(a), color_(color), run_(bind::run_of(L)) {
  lab::LineColumns columns;
  try {
    columns = lab::line_columns(a.words());
  } catch (const Error& e) {  // a word that is no set: bad input (4)
    throw Error(e.kind(), std::string("--lines: ") + e.what());
  }
  // Every module the script compiles carries its line table (the same switch as
  // --sanitize's: WARPLAB_LINEINFO, read by cuda.compile).
  ::setenv("WARPLAB_LINEINFO", "1", 1);
  twice_ = columns.twice();
  if (!run_.offline())
    session_ = std::make_unique<lab::LineSession>(run_.gpu_context("--lines"),
                                                  twice_ ? columns.counts_only() : columns);
  else
    run_.built = &built_;  // offline: the maps of what the script compiles
}

RunLines::~RunLines() {
  if (session_ && run_.lost()) session_->abandon();  // no CUPTI call into a broken context
  if (run_.built == &built_) run_.built = nullptr;
}

int RunLines::finish(bool timed_out, const ScriptAgain& again) {
  std::fflush(stdout);
  if (!session_) {  // offline: the note, then the map of each kernel the script compiled
    std::cerr << "warplab: --lines: " << lab::lines_need_gpu() << " (" << run_.offline_reason() << ")\n";
    std::vector<lab::KernelLines> maps;
    try {
      for (const lab::ModuleRef& m : built_)
        if (m->result.ok)
          for (const std::string& e : m->result.entries) {
            const auto sig = rtc::demangle(e);
            maps.push_back(lab::kernel_lines(*m, e, sig ? sig->name : e));
          }
    } catch (const Error& e) {
      std::cerr << "warplab: --lines: " << e.what() << "\n";
      return exit_code_for(e);
    }
    if (maps.empty()) return kOk;
    return show(lab::map_report(maps));
  }
  if (timed_out || run_.lost()) {  // the script's error said why; nothing can be read back
    session_->abandon();
    return kOk;
  }
  lab::LineReport report;
  try {
    lab::synchronize_launched(run_);  // behind the watchdog, as every wait
    report = session_->end();
  } catch (const cu::Error& e) {  // a fault of a collected kernel (6): the launch named
    session_->abandon();
    std::cerr << "warplab: --lines: " << run_.describe(e) << "\n";
    return exit_code_for(e);
  } catch (const Error& e) {  // the watchdog (7), CUPTI's records unreadable (6)
    if (e.kind() == ErrorKind::timeout) session_->abandon();
    std::cerr << "warplab: --lines: " << e.what() << "\n";
    return exit_code_for(e);
  }
  if (twice_)
    if (std::optional<lab::LineReport> sampled = sample_again(again))
      lab::merge_stalls(report, std::move(*sampled));
  return show(report);
}

std::optional<lab::LineReport> RunLines::sample_again(const ScriptAgain& again) {
  auto not_sampled = [](const std::string& why) {
    std::cerr << "warplab: --lines: the stalls were not sampled: " << why << "\n";
    return std::nullopt;
  };
  bind::StatePtr state;
  std::unique_ptr<lab::LineSession> session;  // goes before the state
  try {
    state = again.fresh_state();
    lab::Run& run = bind::run_of(state.get());
    session = std::make_unique<lab::LineSession>(run.gpu_context("--lines"), lab::LineColumns::stalls_only());
    bind::RunResult r;
    with_stdout_silenced(
        [&] { r = bind::run_file(state.get(), again.script, again.args); });  // said once already
    if (!r.ok || run.lost()) {
      if (run.lost()) session->abandon();
      if (run.timed_out) (void)state.release();  // as run does: the process exit ends the kernel
      return not_sampled("the script's second run failed: " + r.error.substr(0, r.error.find('\n')));
    }
    lab::synchronize_launched(run);
    return session->end();
  } catch (const Error& e) {
    if (session && (dynamic_cast<const cu::Error*>(&e) || bind::run_of(state.get()).lost()))
      session->abandon();
    return not_sampled(e.what());
  }
}

int RunLines::show(const lab::LineReport& report) {
  // On a run's page (--serve, --html, watch --serve) the annotated source is a table of
  // its own; the terminal shows the text (under watch, which asks for --json, its diff).
  nlohmann::json event{{"kind", "lines"}, {"lines", lab::lines_json(report)}};
  if (args_.json.empty()) {
    const std::string text = "\n" + lab::lines_text(report, color_, args_.sass);
    std::cout.flush();
    event["text"] = text.substr(0, text.find_last_not_of('\n') + 1);
    if (!page_event(event)) std::cout << text;
    return kOk;
  }
  (void)page_event(event);
  return write_json_output(args_.json, event["lines"].dump(2) + "\n");
}

}  // namespace warplab::app
