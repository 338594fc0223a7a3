// pch.hpp: precompiled headers kept warm in this process (NVRTC 12.8+). warm_headers()
// compiles the directives a source opens with (its #include lines) with --create-pch into
// a file; compile() (compile.cpp) then hands NVRTC --use-pch for a source that opens with
// the same directives, under the same options, with the same header bytes, in this process
// or in a child forked from it (NVRTC's PCH heap sits at an address of this process: a
// file made by another process is refused). A header whose bytes changed since means no
// PCH, never a stale one; the output is the same with and without. No GPU, no Lua.
#pragma once
#include <string>
#include <vector>

#include "rtc/includes.hpp"

namespace warplab::rtc {

struct Options;

struct WarmResult {
  bool made = false;  // a PCH is kept for sources like this one
  bool kept = false;  // ... and it was already: nothing compiled
  std::string file;   // the PCH
  std::string why;    // why none: "no #include to precompile", NVRTC's reason, ...
  double ms = 0;      // what the warm-up took
};

// Precompiles the headers `src` opens with (under `opt`) into a file in `dir`, which must
// exist and outlive the compiles that use it; a PCH already kept that fits is kept as it
// is. A source that opens with no #include, or whose headers do not compile cleanly (a
// warning too: with the PCH it would not be shown again), keeps nothing; NVRTC itself is
// then warmed with one empty compile under `opt` (what a process's first compile pays).
// Throws rtc::Error only when NVRTC itself fails.
WarmResult warm_headers(const Source& src, const Options& opt, const std::string& dir);

// Forgets every kept PCH but those in `files`, and removes their files.
void forget_warm_headers(const std::vector<std::string>& files = {});
// How many PCHs are kept.
std::size_t warm_header_count();

// For compile.cpp: the options that make NVRTC use a kept PCH for this compile (the
// resolved includes and the exact option list it will pass), or {} when none fits; `why`
// says which (the file) or why not.
std::vector<std::string> pch_options(const ResolvedIncludes& inc, const std::vector<std::string>& options,
                                     std::string& why);
// True when NVRTC's log says it refused the PCH (then compile again without it, so the
// log the user sees is the one a compile without PCH gives).
bool pch_refused(const std::string& log);

// The preprocessing directives `text` opens with (comments and blank lines skipped,
// whitespace collapsed), up to the first line of code and never inside an open #if; and
// where they end (a byte offset). What NVRTC compares between a PCH and a source.
struct OpeningDirectives {
  std::vector<std::string> lines;
  std::size_t end = 0;
};
OpeningDirectives opening_directives(const std::string& text);

}  // namespace warplab::rtc
