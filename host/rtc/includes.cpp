// includes.cpp: finds #include directives (outside comments), resolves them against the
// including file's folder and the search dirs, reads the headers recursively (each once)
// and rewrites the directives to canonical names for NVRTC; what to use instead of a C or
// C++ standard header NVRTC lacks, and which CCCL header the toolkit lacks. Needs the file
// system only.
#include "rtc/includes.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>

namespace warplab::rtc {
namespace fs = std::filesystem;
namespace {

// One directive: the byte range of the spelled name inside the text.
struct Directive {
  std::size_t name_begin = 0, name_end = 0;
  int line = 0;
  bool angle = false;
};

// Scans line by line, tracking /* */ comments and string literals well enough that a
// commented-out #include is not resolved. #if blocks are not evaluated: an include in a
// dead branch is resolved too (harmless: an unused header NVRTC never opens).
std::vector<Directive> find_directives(std::string_view text) {
  std::vector<Directive> out;
  bool in_comment = false;
  int line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    ++line_no;
    std::size_t i = pos;
    // A block comment opened on an earlier line: skip to its end, or the whole line.
    if (in_comment) {
      const std::size_t close = text.find("*/", i);
      if (close == std::string_view::npos || close >= eol) {
        pos = eol + 1;
        continue;
      }
      i = close + 2;
      in_comment = false;
    }
    // `#  include "x"` and `# include <x>`: blanks are allowed around the '#'.
    std::size_t j = i;
    while (j < eol && (text[j] == ' ' || text[j] == '\t')) ++j;
    if (j < eol && text[j] == '#') {
      ++j;
      while (j < eol && (text[j] == ' ' || text[j] == '\t')) ++j;
      if (text.substr(j, 7) == "include" && j + 7 < eol) {
        j += 7;
        while (j < eol && (text[j] == ' ' || text[j] == '\t')) ++j;
        if (j < eol && (text[j] == '"' || text[j] == '<')) {
          const char close = text[j] == '"' ? '"' : '>';
          const std::size_t end = text.find(close, j + 1);
          if (end != std::string_view::npos && end < eol && end > j + 1)
            out.push_back({j + 1, end, line_no, close == '>'});
        }
      }
    }
    // Track comment state for the following lines. Quotes matter: "/*" in a string
    // literal opens nothing. A // comment ends the scan of this line.
    for (char quote = 0; i < eol; ++i) {
      const char c = text[i];
      if (quote) {
        if (c == '\\')
          ++i;
        else if (c == quote)
          quote = 0;
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '/' && i + 1 < eol && text[i + 1] == '/') {
        break;
      } else if (c == '/' && i + 1 < eol && text[i + 1] == '*') {
        const std::size_t close = text.find("*/", i + 2);
        if (close == std::string_view::npos || close >= eol) {
          in_comment = true;
          break;
        }
        i = close + 1;
      }
    }
    pos = eol + 1;
  }
  return out;
}

class Resolver {
 public:
  Resolver(const std::vector<fs::path>& dirs, ResolvedIncludes& out) : dirs_(dirs), out_(out) {}

  // Returns `text` with its resolved directives rewritten; resolves headers recursively.
  std::string process(const std::string& text, const fs::path& dir, const std::string& nvrtc_name) {
    std::string rewritten;
    std::size_t copied = 0;
    for (const Directive& d : find_directives(text)) {
      const std::string spelled = text.substr(d.name_begin, d.name_end - d.name_begin);
      std::vector<std::string> searched;
      const fs::path found = locate(spelled, d.angle, dir, searched);
      if (found.empty()) {
        out_.missing.push_back({nvrtc_name, d.line, spelled, d.angle, searched, {}});
        continue;
      }
      // Copy up to the name, then the canonical path instead of the spelling.
      const std::string name = found.string();
      rewritten.append(text, copied, d.name_begin - copied).append(name);
      copied = d.name_end;
      if (depth_ >= kMaxIncludeDepth) {
        out_.missing.push_back({nvrtc_name,
                                d.line,
                                spelled,
                                d.angle,
                                {},
                                "#include nested more than " + std::to_string(kMaxIncludeDepth) +
                                    " deep: \"" + spelled + "\" is not read"});
        continue;
      }
      if (!seen_.insert(name).second) continue;  // each file read once (cycles)
      if (const auto why = add_header(found))
        out_.missing.push_back({nvrtc_name,
                                d.line,
                                spelled,
                                d.angle,
                                {},
                                "cannot read the header \"" + spelled + "\": " + *why});
    }
    rewritten.append(text, copied, std::string::npos);
    return rewritten;
  }

 private:
  // The file an include names, or empty; `searched` lists the folders tried. Quoted
  // includes start next to the including file, as every C compiler does.
  fs::path locate(const std::string& spelled, bool angle, const fs::path& dir,
                  std::vector<std::string>& searched) const {
    std::vector<fs::path> tries;
    if (fs::path(spelled).is_absolute()) {
      tries.emplace_back(spelled);
    } else {
      if (!angle) {
        std::error_code ec;  // a current folder that was removed: none to try
        const fs::path here = dir.empty() ? fs::current_path(ec) : dir;
        if (!ec) tries.push_back(here);
      }
      for (const fs::path& d : dirs_) tries.push_back(d);
    }
    for (const fs::path& t : tries) {
      const fs::path p = fs::path(spelled).is_absolute() ? t : t / spelled;
      std::error_code ec;
      // Canonical (symlinks resolved) so one file reached two ways is one header.
      if (fs::is_regular_file(p, ec)) {
        const fs::path canon = fs::canonical(p, ec);
        if (!ec) return canon;
      }
      if (!fs::path(spelled).is_absolute()) searched.push_back(display_path(t));
    }
    return {};
  }

  // Why the file cannot be read (a folder, too large, unreadable), or nullopt once added.
  std::optional<std::string> add_header(const fs::path& path) {
    std::string bytes;
    if (auto why = read_file(path, bytes)) return why;
    out_.deps.push_back({path, display_path(path), content_hash(bytes)});
    // Reserve the slot first: recursion appends the headers this one includes.
    const std::size_t slot = out_.header_names.size();
    out_.header_names.push_back(path.string());
    out_.header_texts.emplace_back();
    ++depth_;
    std::string text = process(bytes, path.parent_path(), path.string());
    --depth_;
    out_.header_texts[slot] = std::move(text);
    return std::nullopt;
  }

  const std::vector<fs::path>& dirs_;
  ResolvedIncludes& out_;
  std::set<std::string> seen_;
  int depth_ = 0;  // headers being processed, nested
};

}  // namespace

ResolvedIncludes resolve_includes(const Source& src, const std::vector<fs::path>& search_dirs) {
  ResolvedIncludes out;
  Resolver r(search_dirs, out);
  out.main_text = r.process(src.text, src.dir, src.name);
  return out;
}

namespace {

// The C++ standard library's headers (C++23) and the C headers C++ keeps as <cNAME>, each
// between spaces.
constexpr std::string_view kCppHeaders =
    " algorithm any array atomic barrier bit bitset charconv chrono compare complex concepts "
    "condition_variable coroutine deque exception execution expected filesystem format forward_list "
    "fstream functional future initializer_list iomanip ios iosfwd iostream istream iterator latch limits "
    "list locale map mdspan memory memory_resource mutex new numbers numeric optional ostream print queue "
    "random ranges ratio regex scoped_allocator semaphore set shared_mutex source_location span sstream "
    "stack stacktrace stdexcept stop_token streambuf string string_view syncstream system_error thread "
    "tuple type_traits typeindex typeinfo unordered_map unordered_set utility valarray variant vector "
    "version ";
constexpr std::string_view kCHeaders =
    " assert complex ctype errno fenv float inttypes limits locale math setjmp signal stdarg stdbool "
    "stddef stdint stdio stdlib string time uchar wchar wctype ";

bool listed(std::string_view list, const std::string& name) {
  return !name.empty() && list.find(" " + name + " ") != std::string_view::npos;
}

}  // namespace

namespace {

// A CCCL header (<cuda/barrier>, <cuda/ptx>, <cub/...>, <thrust/...>, <nv/...>) that no CUDA
// include dir holds: the toolkit lacks CCCL (CUDA 13 keeps it in include/cccl, which warplab
// passes to every compile when it exists). nullopt when the name is not CCCL's, or a dir has it.
std::optional<std::string> cccl_header_note(const std::string& spelled,
                                            const std::vector<fs::path>& cuda_dirs) {
  static constexpr const char* kCccl[] = {"cuda/", "cub/", "thrust/", "nv/"};
  if (std::none_of(std::begin(kCccl), std::end(kCccl),
                   [&](const char* p) { return spelled.rfind(p, 0) == 0; }))
    return std::nullopt;
  std::string dirs;
  for (const fs::path& d : cuda_dirs) {
    std::error_code ec;
    if (fs::is_regular_file(d / spelled, ec)) return std::nullopt;
    dirs += (dirs.empty() ? "" : ", ") + d.string();
  }
  return "<" + spelled + "> is one of the CUDA toolkit's CCCL headers (libcu++, CUB, Thrust), which " +
         (dirs.empty() ? std::string("no CUDA include dir was found to hold (set CUDA_HOME)")
                       : "the toolkit's include dirs (" + dirs + ") do not have") +
         ": install the toolkit's CCCL (its include/cccl folder), or set CUDA_HOME to a toolkit that has it";
}

}  // namespace

std::string standard_header_note(const std::string& spelled, const std::vector<fs::path>& cuda_dirs) {
  if (std::optional<std::string> cccl = cccl_header_note(spelled, cuda_dirs)) return *cccl;
  // <stdint.h> is <cstdint> to C++; <cstdint> stays itself.
  std::string cpp = spelled;
  if (spelled.size() > 2 && spelled.compare(spelled.size() - 2, 2, ".h") == 0) {
    if (!listed(kCHeaders, spelled.substr(0, spelled.size() - 2))) return {};
    cpp = "c" + spelled.substr(0, spelled.size() - 2);
  } else if (!listed(kCppHeaders, spelled) && !(spelled[0] == 'c' && listed(kCHeaders, spelled.substr(1)))) {
    return {};
  }
  const std::string what = "<" + spelled + "> is a " + (cpp == spelled ? "C++" : "C") +
                           " standard header, which NVRTC does not have";
  bool in_libcu = false;
  for (const fs::path& d : cuda_dirs) {
    std::error_code ec;
    in_libcu = in_libcu || fs::is_regular_file(d / "cuda" / "std" / cpp, ec);
  }
  const std::string libcu = "<cuda/std/" + cpp + ">";
  if (cpp == "cassert")
    return what + ": assert() is built in, so no include is needed (or include " + libcu + ")";
  if (cpp == "cmath")
    return what + ": sqrtf, expf and the other CUDA math functions are built in, so no include is needed" +
           (in_libcu ? " (or include " + libcu + ")" : "");
  if (in_libcu) return what + ": include libcu++'s " + libcu + " instead";
  return what + ", and libcu++ has no " + libcu + ": device code cannot use it";
}

std::string content_hash(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

// Relative paths are shorter and match what the user typed on the command line; paths
// outside the working directory stay absolute rather than turning into ../../..
std::string display_path(const fs::path& p) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (ec || !p.is_absolute()) return p.string();
  const fs::path rel = p.lexically_relative(cwd);
  if (rel.empty() || *rel.begin() == "..") return p.string();
  return rel.string();
}

}  // namespace warplab::rtc
