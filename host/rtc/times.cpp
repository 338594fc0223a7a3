// times.cpp: see times.hpp. The table NVRTC 12.x/13.x appends: a heading, then one
// "FILE, PHASE, N, ms" row per phase.
#include "rtc/times.hpp"

#include <atomic>
#include <regex>

#include "sys/regex_span.hpp"

namespace warplab::rtc {
namespace {

std::atomic<bool> g_phase_times{false};  // set_phase_times

}  // namespace

void set_phase_times(bool on) { g_phase_times = on; }
bool phase_times() { return g_phase_times; }

// With --time=- NVRTC appends a table ("k.cu, CUDA C++ Frontend, 533, ms") after a NUL,
// and ptxas a "Compile time = 8.5 ms" line: read into `t` and cut from the log, which
// then reads as without them.
void take_phase_times(std::string& log, CompileTimes& t) {
  static const std::regex row(R"re(^[^,\n]*, ([^,\n]+), ([0-9.]+), ms$)re");
  static const std::regex ptxas(R"re(^ptxas info\s*: Compile time = ([0-9.]+) ms$)re");
  std::string kept;
  std::size_t pos = 0;
  while (pos < log.size()) {
    std::size_t eol = log.find('\n', pos);
    if (eol == std::string::npos) eol = log.size();
    const std::string line = log.substr(pos, eol - pos);
    pos = eol + 1;
    std::smatch m;
    if (line.size() > sys::regex_span) {  // no timing row; std::regex recurses per character
      kept += line + "\n";
    } else if (std::regex_match(line, m, ptxas)) {
      t.ptxas = std::stod(m[1].str());
    } else if (std::regex_match(line, m, row)) {
      const double v = std::stod(m[2].str());
      const std::string phase = m[1].str();
      if (phase.find("Frontend") != std::string::npos)
        t.frontend = v;
      else if (phase.find("Optimizer") != std::string::npos)
        t.optimizer = v;
      else if (phase.find("PTX") != std::string::npos)
        t.ptx = v;
    } else if (line != "File name, phase name, metric, unit") {
      kept += line + "\n";
    }
  }
  while (!kept.empty() && kept.back() == '\n') kept.pop_back();
  if (!log.empty() && log.back() == '\n') kept += '\n';
  log = std::move(kept);
}

}  // namespace warplab::rtc
