// prebuilt.hpp: modules built before the run that uses them. A run `warplab watch` started
// feeds each module it built (its spec, in $WARPLAB_CODE_DIR/modules); the next run's
// process builds them again while the user edits (the standby: compiled, or from the
// cache, and loaded into its context), and lab::build hands one out when the run asks for
// the same spec and none of its files changed since: only what changed is rebuilt. The
// watcher also reads that feed to keep their headers warm (rtc/pch.hpp). No Lua.
#pragma once
#include <string>
#include <vector>

#include "lab/module.hpp"

namespace warplab::lab {

// Appends the spec to $WARPLAB_CODE_DIR/modules (a no-op without it): one JSON line, a
// file's path rather than its text.
void feed_module(const ModuleSpec& spec);
// The specs of a modules feed file, file-backed ones read again from their files (one that
// cannot be read is left out); a malformed line is skipped.
std::vector<ModuleSpec> read_module_feed(const std::string& text);

// Builds each spec (through `cache`, loaded into `ctx` when given) and keeps it for
// take_prebuilt. Tells no watcher anything: the run that takes a module does. Never throws.
void prebuild(const std::vector<ModuleSpec>& specs, rtc::Cache* cache, const cu::ContextPtr& ctx);
// A kept module built from exactly `spec` (same source bytes, same NVRTC options), loaded
// in `ctx`, whose headers still hash as they did; removed from the keep. Null otherwise.
ModuleRef take_prebuilt(const ModuleSpec& spec, const cu::ContextPtr& ctx);
// How many are kept (tests).
std::size_t prebuilt_count();

}  // namespace warplab::lab
