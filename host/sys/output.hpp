// output.hpp: the one check of a file warplab was told to write (run --json, attrs -o,
// compile --cubin, the REPL's :save, warplab.write_file and the library's writers on it),
// made before any work; and the inputs of this process (the script, the kernels and
// headers a run compiled, a profile file), noted as they are read, which no output may
// replace: the one writer (write.hpp) asks again at the moment it writes, so an input the
// run read after the first check is protected too. No Lua, no CUDA.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "sys/write.hpp"

namespace warplab::sys {

// Notes the file at `path` as an input of this process (by device and inode, so another
// name for it is the same input): `role` says what it is ("the script", "a kernel source",
// "a header of k.cu", "the profile"). A path that is not there is ignored. Thread-safe.
void note_input(const std::string& path, const std::string& role) noexcept;
// The role of the input with this device and inode, or nullopt.
std::optional<std::string> input_role(unsigned long long dev, unsigned long long ino);
// "'x.lua' is the script: warplab never writes over a file it reads".
std::string input_refusal(const std::string& path, const std::string& role);

// The sentence refusing `path` as an output, or nullopt when it may be written: an empty
// name; a folder; a folder that does not exist or is not a folder; a symbolic link (never
// written through or replaced); an input of this process (note_input) or one of `inputs`
// (files the command reads that are not noted yet: a script argument, the source of
// compile), by name or as the same file; an output reserved (reserve_output); a file already there when
// `replace` is never; anything at the name but a regular file, a character device or a FIFO. The sentence
// starts with the quoted path and names no option (the caller puts "--json: " before it).
struct NamedInput {
  std::string path, role;  // role as note_input takes it
};

// Notes `path` as an output this process writes when it ends (`role`: "the --json file of
// this run"), so that no other writer of the process takes it meanwhile: output_refusal
// refuses it, by name or as the same file ("'r.json' is the --json file of this run: the
// script cannot write it"). Thread-safe.
void reserve_output(const std::string& path, const std::string& role) noexcept;

// Whether `a` and `b` name one file: by name (made absolute and normal; neither need exist)
// or as the same file (a hard or symbolic link).
bool same_file(const std::string& a, const std::string& b);
std::optional<std::string> output_refusal(const std::string& path, Replace replace,
                                          const std::vector<NamedInput>& inputs = {});

}  // namespace warplab::sys
