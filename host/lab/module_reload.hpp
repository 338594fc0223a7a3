// module_reload.hpp: compiling a file-backed module again, with a Builder (Run::builder):
// the live refresh (a file it was built from changed: recompile, or keep the old module and
// say why once per change) and m:reload() (compile again now, the failure handed back).
#pragma once
#include <optional>
#include <string>

#include "lab/module.hpp"

namespace warplab::lab {

// When a file the module m was built from changed (live.hpp), compiles it again with
// `build`. Success replaces m (kernels already handed out keep the old code alive),
// prints "recompiled" to stderr unless `quiet`, and returns true (the caller drops what
// it cached from the old module). An unreadable file or a failed compile keeps m and
// prints why to stderr (diagnostics colored when `color`), once per change.
bool refresh(ModuleRef& m, const Builder& build, bool color, bool quiet);

// m:reload(): the module compiled again from its file, into `fresh`. Throws Error
// (bad_input) when m has no file; returns the sentence when the file cannot be read. The
// result may be a failed compile (result.ok false): the caller decides whether to keep m.
std::optional<std::string> reload(const ModuleRef& m, const Builder& build, ModuleRef& fresh);

}  // namespace warplab::lab
