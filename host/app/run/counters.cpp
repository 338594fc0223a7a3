// run/counters.cpp: RunCounters (counters.hpp): the session around a script, what is
// printed or written after it.
#include "app/run/counters.hpp"

#include <cstdio>
#include <iostream>

#include "app/cli/exit_codes.hpp"
#include "app/cli/page.hpp"
#include "bind/state.hpp"
#include "lab/counter_report.hpp"
#include "lab/run.hpp"
#include "lab/sync.hpp"
#include "sys/text.hpp"
#include "sys/write.hpp"

namespace warplab::app {

RunCounters::RunCounters(const CounterArgs& a, lua_State* L)
    : args_(a), words_(counter_words(a)), run_(bind::run_of(L)) {
  try {
    if (run_.offline())
      offline_ = lab::select_counters(words_, lab::counter_chip(run_.target()));
    else {
      lab::check_counter_words(words_, run_.target());  // a misspelling first, whatever CUPTI says next
      session_ = std::make_unique<lab::CounterSession>(run_.gpu_context("--counters"), words_,
                                                       lab::CounterSession::kScriptMaxLaunches);
    }
  } catch (const cu::Error&) {  // no CUPTI (3), CUPTI refused (6): its sentence as it is
    throw;
  } catch (const Error& e) {  // a word that is no counter, a chip warplab does not know
    throw Error(e.kind(), std::string("--counters: ") + e.what());
  }
}

RunCounters::~RunCounters() {
  if (session_ && run_.lost()) session_->abandon();  // no CUPTI call into a broken context
}

int RunCounters::finish(bool timed_out) {
  std::fflush(stdout);
  if (!session_) {
    std::cerr << "warplab: --counters: " << lab::counters_need_gpu() << " (" << run_.offline_reason()
              << "); the names were checked for chip " << offline_.chip << " ("
              << sys::plural(offline_.passes, "replay pass", "replay passes") << " per launch)\n";
    return kOk;
  }
  if (timed_out || run_.lost()) {  // the script's error said why; nothing can be read back
    session_->abandon();
    return kOk;
  }
  lab::CounterReport report;
  try {
    lab::synchronize_launched(run_);  // behind the watchdog, as every wait
    report = session_->end();
  } catch (const cu::Error& e) {
    session_->abandon();
    std::cerr << "warplab: --counters: " << run_.describe(e) << "\n";
    return exit_code_for(e);
  } catch (const Error& e) {  // the watchdog (7), CUPTI's replay cut short (6)
    if (e.kind() == ErrorKind::timeout) session_->abandon();
    std::cerr << "warplab: --counters: " << e.what() << "\n";
    return exit_code_for(e);
  }
  const bool by_kernel = args_.by == "kernel";
  const lab::CounterReport shown = by_kernel ? lab::by_kernel(report) : std::move(report);
  if (args_.json.empty()) {
    // On a run's page (--serve, --html) a table of its own; the terminal shows the text.
    std::string text = "\n" + lab::counters_text(shown, by_kernel);
    std::cout.flush();
    if (!page_event({{"kind", "counters"},
                     {"counters", lab::counters_json(shown, by_kernel)},
                     {"text", text.substr(0, text.find_last_not_of('\n') + 1)}}))
      std::cout << text;
    return kOk;
  }
  const std::string text = lab::counters_json(shown, by_kernel).dump(2) + "\n";
  return write_json_output(args_.json, text);
}

int write_json_output(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    return kOk;
  }
  // The writer refuses again a file the run read meanwhile (a kernel, a header).
  const sys::WriteResult w = sys::write_file(path, text, sys::Replace::allowed);
  if (w) return kOk;
  std::cerr << "warplab: --json: " << w.message << "\n";
  return kBadInput;
}

}  // namespace warplab::app
