// times.hpp: NVRTC's own split of a compile's time (front end, optimizer, PTX, ptxas:
// rtc::CompileTimes), asked for with --time=- once set_phase_times(true) was called
// (`warplab compile --timings`), and read out of the log so that the log reads as without.
// No GPU, no Lua.
#pragma once
#include <string>

#include "rtc/compile.hpp"

namespace warplab::rtc {

// Whether set_phase_times asked for the split.
bool phase_times();
// Moves the --time table and ptxas's "Compile time" line from `log` into `t`.
void take_phase_times(std::string& log, CompileTimes& t);

}  // namespace warplab::rtc
