// cache.cpp: see cache.hpp. File format (one file per key, <dir>/<key[0:2]>/<key>.wlc):
//   "WLCACHE1"  u64 checksum of the rest (XXH3-64)  u64 json length  json  cubin bytes
// xxHash is used header-only (XXH_INLINE_ALL), so the binary needs no extra library.
#include "rtc/cache.hpp"

#define XXH_INLINE_ALL
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "rtc/cache_json.hpp"
#include "rtc/compile.hpp"
#include "rtc/error.hpp"

namespace fs = std::filesystem;

namespace warplab::rtc {
namespace {

constexpr char kMagic[8] = {'W', 'L', 'C', 'A', 'C', 'H', 'E', '1'};

void put_u64(std::string& s, std::uint64_t v) { s.append(reinterpret_cast<const char*>(&v), 8); }
std::uint64_t get_u64(const std::string& s, std::size_t at) {
  std::uint64_t v;
  std::memcpy(&v, s.data() + at, 8);
  return v;
}

// Entries are a few MiB at most; anything bigger is not one of ours.
constexpr std::uintmax_t kMaxEntryBytes = 1ull << 30;

bool read_all(const fs::path& p, std::string& out) {
  std::error_code ec;
  if (!fs::is_regular_file(p, ec)) return false;  // missing, or a folder where an entry goes
  const std::uintmax_t size = fs::file_size(p, ec);
  if (ec || size > kMaxEntryBytes) return false;
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  out.resize(size);
  in.read(out.data(), static_cast<std::streamsize>(size));
  out.resize(static_cast<std::size_t>(in.gcount()));
  return true;
}

bool is_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// "ab" shard folders hold "ab<30 more hex>.wlc" entries (and ".tmp.<pid>.<n>" while written).
bool is_shard(const fs::path& p) {
  const std::string n = p.filename().string();
  return n.size() == 2 && is_hex(n);
}
bool is_entry_name(const std::string& shard, const std::string& n) {
  if (n.size() < 36 || n.compare(0, 2, shard) != 0 || !is_hex(std::string_view(n).substr(0, 32)))
    return false;
  const std::string rest = n.substr(32);
  return rest == ".wlc" || rest.rfind(".wlc.tmp.", 0) == 0;
}

// A stored result that cannot be right is treated as a miss, checksum or not.
bool plausible(const CompileResult& r) {
  if (!r.ok || r.arch.rfind("sm_", 0) != 0 || r.cubin.empty()) return false;
  if (r.kernels.size() != r.entries.size()) return false;
  for (const KernelResources& k : r.kernels) {
    if (!k.complete() || *k.registers < 0 || *k.registers > 255 || *k.barriers < 0 || *k.barriers > 16)
      return false;
    if (*k.shared_bytes < 0 || *k.const_bytes < 0 || *k.stack_bytes < 0 || *k.spill_store_bytes < 0 ||
        *k.spill_load_bytes < 0)
      return false;
  }
  return true;
}

}  // namespace

Cache::Cache(fs::path dir, std::uint64_t max_bytes) : dir_(std::move(dir)), max_bytes_(max_bytes) {
  if (max_bytes_ == 0) {
    max_bytes_ = kDefaultMaxBytes;
    if (const char* mb = std::getenv("WARPLAB_CACHE_MAX_MB"); mb && *mb) {
      char* end = nullptr;
      errno = 0;
      const unsigned long long v = std::strtoull(mb, &end, 10);
      if (errno == 0 && *end == '\0' && mb[0] != '-' && v >= 1 && v <= (1ull << 40))
        max_bytes_ = static_cast<std::uint64_t>(v) << 20;
      else
        warning_ = "WARPLAB_CACHE_MAX_MB='" + std::string(mb) +
                   "' is not a whole number of MiB from 1 to 1099511627776; using 512";
    }
  }
  std::error_code ec;
  if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec))
    warning_ = "the cache folder " + dir_.string() + " is not a folder: compiling without the cache";
}

fs::path Cache::default_dir() {
  if (const char* d = std::getenv("WARPLAB_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "warplab";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "warplab";
  return fs::temp_directory_path() / "warplab-cache";
}

fs::path Cache::entry_path(const std::string& key) const { return dir_ / key.substr(0, 2) / (key + ".wlc"); }

std::optional<CompileResult> Cache::load(const std::string& key) {
  const fs::path p = entry_path(key);
  std::string bytes;
  if (!read_all(p, bytes)) {
    ++misses_;
    return std::nullopt;
  }
  // Anything off (short, wrong magic, checksum, JSON) is a corrupt entry: drop it.
  auto corrupt = [&]() -> std::optional<CompileResult> {
    ++corrupt_;
    ++misses_;
    std::error_code ec;
    fs::remove(p, ec);
    return std::nullopt;
  };
  if (bytes.size() < 24 || std::memcmp(bytes.data(), kMagic, 8) != 0) return corrupt();
  if (XXH3_64bits(bytes.data() + 16, bytes.size() - 16) != get_u64(bytes, 8)) return corrupt();
  const std::uint64_t json_len = get_u64(bytes, 16);
  if (json_len > bytes.size() - 24) return corrupt();
  CompileResult r;
  try {
    from_cache_json(nlohmann::json::parse(bytes.substr(24, json_len)), r);
  } catch (const std::exception&) {
    return corrupt();
  }
  r.cubin.assign(bytes.begin() + 24 + static_cast<long>(json_len), bytes.end());
  if (!plausible(r)) return corrupt();
  // Touch it: eviction removes the least recently used entries first.
  std::error_code ec;
  fs::last_write_time(p, fs::file_time_type::clock::now(), ec);
  ++hits_;
  return r;
}

void Cache::store(const std::string& key, const CompileResult& r) {
  if (!r.ok) return;
  std::string payload;
  put_u64(payload, 0);  // json length, patched below
  const std::string json = to_cache_json(r).dump();
  payload += json;
  payload.append(r.cubin.data(), r.cubin.size());
  const std::uint64_t len = json.size();
  std::memcpy(payload.data(), &len, 8);
  std::string file(kMagic, 8);
  put_u64(file, XXH3_64bits(payload.data(), payload.size()));
  file += payload;

  const fs::path p = entry_path(key);
  std::error_code ec;
  if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec)) return;  // warning() says so
  const bool fresh = !fs::exists(dir_, ec);
  fs::create_directories(p.parent_path(), ec);
  if (fresh || !fs::exists(dir_ / kMarker, ec))
    std::ofstream(dir_ / kMarker)
        << "This folder is warplab's compile cache; `warplab cache clear` empties it.\n";
  // A unique temp name per writer; rename() is atomic, so a reader sees the old entry,
  // nothing, or the whole new one, never half of it.
  static std::atomic<unsigned> seq{0};
  const fs::path tmp = p.string() + ".tmp." + std::to_string(getpid()) + "." + std::to_string(seq++);
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out.write(file.data(), static_cast<std::streamsize>(file.size()))) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, p, ec);
  if (ec) fs::remove(tmp, ec);
  evict();
}

namespace {

// Calls f(path) for every file warplab wrote (entries, temp files); counts the rest.
template <class F>
std::size_t for_each_owned(const fs::path& dir, F f) {
  std::size_t foreign = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.filename() == Cache::kMarker && it->is_regular_file(ec)) continue;
    if (!is_shard(p) || it->is_symlink(ec) || !it->is_directory(ec)) {
      ++foreign;
      continue;
    }
    const std::string shard = p.filename().string();
    for (auto e = fs::directory_iterator(p, ec); !ec && e != fs::directory_iterator(); e.increment(ec)) {
      if (is_entry_name(shard, e->path().filename().string()) && e->is_regular_file(ec) && !e->is_symlink(ec))
        f(e->path());
      else
        ++foreign;
    }
  }
  return foreign;
}

}  // namespace

Cache::Info Cache::info() const {
  Info i{dir_, 0, 0, max_bytes_};
  std::error_code ec;
  for_each_owned(dir_, [&](const fs::path& p) {
    if (p.extension() != ".wlc") return;
    ++i.entries;
    i.bytes += fs::file_size(p, ec);
  });
  return i;
}

Cache::Cleared Cache::clear() {
  Cleared c;
  std::error_code ec;
  if (!fs::exists(dir_, ec)) return c;
  if (!fs::is_directory(dir_, ec)) throw Error("cannot clear " + dir_.string() + ": it is not a folder");
  // Without the marker, only a folder holding nothing but entries is provably ours.
  if (!fs::is_regular_file(dir_ / kMarker, ec) && for_each_owned(dir_, [](const fs::path&) {}) > 0)
    throw Error("refusing to clear " + dir_.string() + ": it is not a warplab cache (no " + kMarker +
                " file, and it holds files warplab did not write)");
  c.foreign = for_each_owned(dir_, [&](const fs::path& p) {
    const bool entry = p.extension() == ".wlc";
    if (fs::remove(p, ec) && !ec)
      c.removed += entry;
    else
      c.failed += entry;
  });
  // Empty shard folders go too; a folder something foreign sits in stays.
  for (auto it = fs::directory_iterator(dir_, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::error_code rm;
    if (is_shard(it->path()) && it->is_directory(rm) && !it->is_symlink(rm) && fs::is_empty(it->path(), rm))
      fs::remove(it->path(), rm);
  }
  return c;
}

void Cache::evict() {
  struct Entry {
    fs::path path;
    fs::file_time_type when;
    std::uint64_t size;
  };
  std::vector<Entry> all;
  std::uint64_t total = 0;
  std::error_code ec;
  for_each_owned(dir_, [&](const fs::path& p) {
    if (p.extension() != ".wlc") return;
    all.push_back({p, fs::last_write_time(p, ec), fs::file_size(p, ec)});
    total += all.back().size;
  });
  if (total <= max_bytes_) return;
  std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) { return a.when < b.when; });
  // Evict down to 80 % so the next few stores do not each rescan and evict again.
  for (const Entry& e : all) {
    if (total <= max_bytes_ / 5 * 4) break;
    if (fs::remove(e.path, ec)) total -= e.size;
  }
}

KeyBuilder::KeyBuilder() : state_(XXH3_createState()) {
  XXH3_128bits_reset(static_cast<XXH3_state_t*>(state_));
}
KeyBuilder::~KeyBuilder() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }

KeyBuilder& KeyBuilder::add(std::string_view bytes) {
  const std::uint64_t n = bytes.size();
  XXH3_128bits_update(static_cast<XXH3_state_t*>(state_), &n, sizeof n);
  XXH3_128bits_update(static_cast<XXH3_state_t*>(state_), bytes.data(), bytes.size());
  return *this;
}

std::string KeyBuilder::hex() const {
  const XXH128_hash_t h = XXH3_128bits_digest(static_cast<XXH3_state_t*>(state_));
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return buf;
}

}  // namespace warplab::rtc
