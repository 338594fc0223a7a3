// cli/sanitize.hpp: what `run --sanitize TOOL` and the completion scripts use of
// app/sanitize/: the tools --sanitize accepts, and the run of warplab again under
// compute-sanitizer. Defined in sanitize/rerun.cpp. No Lua, no CUDA.
#pragma once
#include <string>
#include <vector>

namespace warplab::app::sanitize {

// The tools --sanitize accepts, in the order the usage message lists them.
const std::vector<std::string>& tools();
bool valid_tool(const std::string& tool);

// Runs warplab again (`argv`, its own command line) under compute-sanitizer's `tool` and
// prints the summary. Returns the exit code: the child's when the tool found nothing,
// kSanitizerFindings when it found errors; throws Error (tool) when
// compute-sanitizer is nowhere to be found.
int run(const std::string& tool, const std::vector<std::string>& argv);

// In the run compute-sanitizer started (WARPLAB_SANITIZE is set): this process dies with
// its parent, the tool, which dies with `run --sanitize` (PR_SET_PDEATHSIG both): killing
// `run --sanitize`, whatever the signal, never leaves the script running. A no-op otherwise.
void die_with_the_tool();

}  // namespace warplab::app::sanitize
