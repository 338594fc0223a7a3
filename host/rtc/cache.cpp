// cache.cpp: see cache.hpp. File format (one file per key, <dir>/<key[0:2]>/<key>.wlc):
//   "WLCACHE1"  u64 checksum of the rest (XXH3-64)  u64 json length  json  cubin bytes
// xxHash is used header-only (XXH_INLINE_ALL), so the binary needs no extra library.
#include "rtc/cache.hpp"

#define XXH_INLINE_ALL
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

#include "rtc/cache_json.hpp"
#include "rtc/compile.hpp"

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

bool read_all(const fs::path& p, std::string& out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), {});
  return true;
}

}  // namespace

Cache::Cache(fs::path dir, std::uint64_t max_bytes) : dir_(std::move(dir)), max_bytes_(max_bytes) {
  if (max_bytes_ == 0) {
    const char* mb = std::getenv("WARPLAB_CACHE_MAX_MB");
    max_bytes_ = mb && std::atoll(mb) > 0 ? static_cast<std::uint64_t>(std::atoll(mb)) << 20
                                           : kDefaultMaxBytes;
  }
}

fs::path Cache::default_dir() {
  if (const char* d = std::getenv("WARPLAB_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "warplab";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "warplab";
  return fs::temp_directory_path() / "warplab-cache";
}

fs::path Cache::entry_path(const std::string& key) const {
  return dir_ / key.substr(0, 2) / (key + ".wlc");
}

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
  fs::create_directories(p.parent_path(), ec);
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

Cache::Info Cache::info() const {
  Info i{dir_, 0, 0, max_bytes_};
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir_, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec) && it->path().extension() == ".wlc") {
      ++i.entries;
      i.bytes += it->file_size(ec);
    }
  return i;
}

std::size_t Cache::clear() {
  std::size_t n = info().entries;
  std::error_code ec;
  // Only the two-hex-digit shard folders warplab made: never anything else in dir_.
  for (auto it = fs::directory_iterator(dir_, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
    if (it->is_directory(ec) && it->path().filename().string().size() == 2) fs::remove_all(it->path(), ec);
  return n;
}

void Cache::evict() {
  struct Entry { fs::path path; fs::file_time_type when; std::uint64_t size; };
  std::vector<Entry> all;
  std::uint64_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir_, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file(ec) && it->path().extension() == ".wlc") {
      all.push_back({it->path(), it->last_write_time(ec), it->file_size(ec)});
      total += all.back().size;
    }
  if (total <= max_bytes_) return;
  std::sort(all.begin(), all.end(), [](const Entry& a, const Entry& b) { return a.when < b.when; });
  // Evict down to 80 % so the next few stores do not each rescan and evict again.
  for (const Entry& e : all) {
    if (total <= max_bytes_ / 5 * 4) break;
    if (fs::remove(e.path, ec)) total -= e.size;
  }
}

KeyBuilder::KeyBuilder() : state_(XXH3_createState()) { XXH3_128bits_reset(static_cast<XXH3_state_t*>(state_)); }
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
