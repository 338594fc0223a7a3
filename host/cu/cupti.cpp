// cupti.cpp: finds libcupti with dlopen (WARPLAB_CUPTI_DIR, else the soname, else the
// toolkit folders of this machine), loads the libnvperf libraries beside it, resolves every
// entry point with dlsym, and turns CUPTI result codes into sentences. No path of the build
// machine is used: the binary is carried to machines that keep CUDA elsewhere.
#include "cu/cupti.hpp"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

#include "sys/shown.hpp"

namespace warplab::cu {
namespace fs = std::filesystem;
namespace {

constexpr const char* kSoname = "libcupti.so.13";
constexpr const char* kNames[] = {kSoname, "libcupti.so"};

struct Loaded {
  CuptiApi api;
  bool ok = false;
  std::string why;
};

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return !p.empty() && fs::is_directory(p, ec);
}

// The folder of the libnvrtc this process loaded (warplab links it), found among the loaded
// objects without linking anything: dl_iterate_phdr walks them.
fs::path nvrtc_dir() {
  fs::path found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        const std::string name = info->dlpi_name ? info->dlpi_name : "";
        if (name.find("libnvrtc.so") == std::string::npos) return 0;
        std::error_code ec;
        const fs::path real = fs::canonical(name, ec);
        *static_cast<fs::path*>(out) = ec ? fs::path(name).parent_path() : real.parent_path();
        return 1;
      },
      &found);
  return found;
}

// The toolkit roots worth looking into, most specific first.
std::vector<fs::path> toolkit_roots() {
  std::vector<fs::path> roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(var); v && *v) roots.emplace_back(v);
  if (const fs::path d = nvrtc_dir(); !d.empty()) {
    // <root>/lib64/libnvrtc.so.13, or <root>/targets/<arch>/lib/libnvrtc.so.13.
    const fs::path up = d.parent_path();
    roots.push_back(up.parent_path().filename() == "targets" ? up.parent_path().parent_path() : up);
  }
  roots.emplace_back("/usr/local/cuda");
  std::vector<fs::path> versioned;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/local", ec))
    if (e.path().filename().string().rfind("cuda-", 0) == 0) versioned.push_back(e.path());
  // cuda-13.1 before cuda-13.0 before cuda-12.8: by version, not by spelling.
  std::sort(versioned.begin(), versioned.end(), [](const fs::path& a, const fs::path& b) {
    auto key = [](const fs::path& p) {
      const std::string v = p.filename().string().substr(5);
      const auto dot = v.find('.');
      return std::pair(std::atoi(v.c_str()), dot == std::string::npos ? 0 : std::atoi(v.c_str() + dot + 1));
    };
    return key(a) > key(b);
  });
  roots.insert(roots.end(), versioned.begin(), versioned.end());
  return roots;
}

// dlopen opens the path and reads it: a FIFO there waits for a writer forever (a run with
// --counters hung), and a device reads whatever it gives. Only a regular file (a link to
// one too) is handed to the loader; anything else is said.
bool loadable(const fs::path& path, std::string* error) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || fs::is_regular_file(st)) return true;  // missing or unreadable: dlopen says why
  if (error)
    *error = path.string() + ": not a regular file (" +
             (fs::is_fifo(st)        ? "a FIFO"
              : fs::is_directory(st) ? "a folder"
                                     : "a device or socket") +
             ")";
  return false;
}

void* open_in(const fs::path& dir, std::string* error) {
  for (const char* name : kNames) {
    std::error_code ec;
    if (!fs::exists(dir / name, ec)) continue;
    if (!loadable(dir / name, error)) continue;
    if (void* h = dlopen((dir / name).c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
    const char* e = dlerror();
    *error = (dir / name).string() + ": " + (e ? e : "dlopen failed");
  }
  return nullptr;
}

// libcupti loads libnvperf_host.so (and _target) by soname when it first needs them. When
// CUPTI came from a folder the loader does not search, that lookup would fail; loading the
// ones beside it first makes the soname lookup find them (glibc matches loaded sonames).
std::string preload_nvperf(const std::string& library) {
  // Beside it only when its folder is known: never a file of the current folder.
  const fs::path dir = fs::path(library).parent_path();
  for (const char* name : {"libnvperf_host.so", "libnvperf_target.so"}) {
    std::error_code ec;
    const bool beside = !dir.empty() && fs::exists(dir / name, ec);
    // One beside CUPTI that is no regular file would be opened by CUPTI's own lookup.
    if (std::string why; beside && !loadable(dir / name, &why))
      return "the CUPTI library " + sys::shown(library) + " was found but " + sys::shown(why);
    if (beside && dlopen((dir / name).c_str(), RTLD_NOW | RTLD_LOCAL)) continue;
    if (dlopen(name, RTLD_NOW | RTLD_LOCAL)) continue;
    if (std::string(name) == "libnvperf_host.so")
      return "the CUPTI library " + sys::shown(library) +
             " was found but libnvperf_host.so, which it needs, is neither beside it nor on the loader's "
             "path";
  }
  return "";
}

// The file the loader opened for `lib`, as the loader names it (an absolute path unless
// found by a relative one); never empty, so every sentence about it names a file: the
// path of an entry point (dladdr) would be unknown for a library that lacks them.
std::string library_path(void* lib) {
  link_map* map = nullptr;
  if (dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name) return map->l_name;
  return kSoname;  // what was asked of the loader
}

std::string listed(const std::vector<fs::path>& dirs) {
  if (dirs.empty()) return "no CUDA toolkit folder exists here";
  std::string out;
  for (std::size_t i = 0; i < dirs.size() && i < 4; ++i) out += (i ? ", " : "") + dirs[i].string();
  if (dirs.size() > 4) out += " and " + std::to_string(dirs.size() - 4) + " more";
  return out;
}

Loaded load(const std::string& only_dir) {
  Loaded out;
  void* lib = nullptr;
  std::string error;
  if (!only_dir.empty()) {
    lib = open_in(only_dir, &error);
    if (!lib) {
      out.why = "no CUPTI library: WARPLAB_CUPTI_DIR is '" + sys::shown(only_dir) + "' and " +
                (error.empty() ? "holds no " + std::string(kSoname) : "loading it failed (" + error + ")");
      return out;
    }
  } else {
    lib = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
    const std::vector<fs::path> dirs = lib ? std::vector<fs::path>{} : cupti_search_dirs();
    for (std::size_t i = 0; !lib && i < dirs.size(); ++i) lib = open_in(dirs[i], &error);
    if (!lib) {
      out.why =
          std::string("no CUPTI library: ") + kSoname +
          " (NVIDIA's profiling library, part of the CUDA toolkit) is not on the loader's path nor in " +
          listed(dirs) + (error.empty() ? "" : " (" + error + ")") +
          "; set WARPLAB_CUPTI_DIR to the folder that holds it";
      return out;
    }
  }
#define WARPLAB_CUPTI_RESOLVE(name) \
  out.api.name = reinterpret_cast<decltype(out.api.name)>(dlsym(lib, #name));
  WARPLAB_CUPTI_API(WARPLAB_CUPTI_RESOLVE)
#undef WARPLAB_CUPTI_RESOLVE
  out.api.library = library_path(lib);
  // Every entry point but the optional one must be there.
  const char* missing = nullptr;
#define WARPLAB_CUPTI_REQUIRE(name)                                                             \
  if (!missing && !out.api.name && std::string(#name) != "cuptiProfilerGetCounterAvailability") \
    missing = #name;
  WARPLAB_CUPTI_API(WARPLAB_CUPTI_REQUIRE)
#undef WARPLAB_CUPTI_REQUIRE
  if (missing) {
    out.why = "the CUPTI library " + sys::shown(out.api.library) + " cannot count: it has no " + missing +
              " (it is older than CUDA 13's, or no CUPTI at all; set WARPLAB_CUPTI_DIR to the folder of CUDA "
              "13's libcupti.so.13)";
    return out;
  }
  out.api.version = 0;
  out.api.cuptiGetVersion(&out.api.version);
  out.why = preload_nvperf(out.api.library);
  out.ok = out.why.empty();
  return out;
}

const Loaded& loaded() {
  static std::mutex mu;
  static std::map<std::string, Loaded> by_dir;  // WARPLAB_CUPTI_DIR -> what it gave
  const char* v = std::getenv("WARPLAB_CUPTI_DIR");
  const std::string dir = v ? v : "";
  std::lock_guard<std::mutex> lock(mu);
  auto it = by_dir.find(dir);
  if (it == by_dir.end()) it = by_dir.emplace(dir, load(dir)).first;
  return it->second;
}

ErrorKind kind_of_result(CUptiResult r) {
  return (r == CUPTI_ERROR_INVALID_METRIC_NAME || r == CUPTI_ERROR_INVALID_CHIP_NAME) ? ErrorKind::bad_input
                                                                                      : ErrorKind::profiler;
}

// What a user can do about the codes that have a remedy outside warplab.
std::string remedy(CUptiResult r) {
  switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      return ": the NVIDIA driver lets only administrators read the GPU's performance counters; load it with "
             "the option NVreg_RestrictProfilingToAdminUsers=0 to allow every user";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return ": another NVIDIA tool (Nsight Compute, Nsight Systems, compute-sanitizer, cuda-gdb) already "
             "profiles this process";
    default:
      return "";
  }
}

std::string compose(CUptiResult r, const std::string& call, const std::string& object) {
  std::string msg = call;
  if (!object.empty()) msg += " (" + object + ")";
  return msg + " failed: " + cupti_result_text(r) + remedy(r);
}

}  // namespace

std::vector<fs::path> cupti_search_dirs() {
  std::vector<fs::path> out;
  auto add = [&](const fs::path& p) {
    if (!is_dir(p)) return;
    std::error_code ec;
    const fs::path c = fs::canonical(p, ec);
    if (std::find(out.begin(), out.end(), ec ? p : c) == out.end()) out.push_back(ec ? p : c);
  };
  if (const fs::path d = nvrtc_dir(); !d.empty()) add(d);
  for (const fs::path& root : toolkit_roots()) {
    add(root / "lib64");
    std::error_code ec;
    if (is_dir(root / "targets"))
      for (const auto& t : fs::directory_iterator(root / "targets", ec)) add(t.path() / "lib");
    add(root / "extras/CUPTI/lib64");
    add(root / "lib");
  }
  return out;
}

const CuptiApi& cupti() {
  const Loaded& l = loaded();
  if (!l.ok) throw CuptiError(l.why, ErrorKind::no_gpu);
  return l.api;
}

std::optional<std::string> cupti_unavailable() {
  const Loaded& l = loaded();
  if (l.ok) return std::nullopt;
  return l.why;
}

std::string cupti_result_text(CUptiResult r) {
  const Loaded& l = loaded();
  const char* s = nullptr;
  if (l.ok && l.api.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s && *s) return s;
  return "CUptiResult " + std::to_string(static_cast<int>(r));
}

CuptiError::CuptiError(CUptiResult result, std::string call, const std::string& object)
    : Error(compose(result, call, object), kind_of_result(result)), result_(result) {}

CuptiError::CuptiError(const std::string& message, ErrorKind kind) : Error(message, kind) {}

}  // namespace warplab::cu
