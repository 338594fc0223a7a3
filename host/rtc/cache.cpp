// cache.cpp: see cache.hpp. File format (one file per key, <dir>/<key[0:2]>/<key>.wlc):
//   "WLCACHE2"  u64 checksum of the rest (XXH3-64)  key (32 hex)  u64 json length  json  cubin
// Every step inside the folder is relative to descriptors (openat with O_NOFOLLOW, the one
// writer sys::write_file_at), so no symbolic link in the cache is ever followed.
// xxHash is used header-only (XXH_INLINE_ALL), so the binary needs no extra library.
#include "rtc/cache.hpp"

#define XXH_INLINE_ALL
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <vector>

#include "rtc/cache_json.hpp"
#include "rtc/compile.hpp"
#include "rtc/error.hpp"
#include "sys/own_folder.hpp"
#include "sys/temp.hpp"
#include "sys/text.hpp"
#include "sys/write.hpp"

namespace fs = std::filesystem;

namespace warplab::rtc {
namespace {

constexpr char kMagic[8] = {'W', 'L', 'C', 'A', 'C', 'H', 'E', '2'};
constexpr std::size_t kKeyBytes = 32;                   // KeyBuilder::hex()
constexpr std::size_t kHeader = 8 + 8 + kKeyBytes + 8;  // magic, checksum, key, json length
// Entries are a few MiB at most; anything bigger is not one of ours.
constexpr std::uintmax_t kMaxEntryBytes = 1ull << 30;

void put_u64(std::string& s, std::uint64_t v) { s.append(reinterpret_cast<const char*>(&v), 8); }
std::uint64_t get_u64(const std::string& s, std::size_t at) {
  std::uint64_t v;
  std::memcpy(&v, s.data() + at, 8);
  return v;
}

bool is_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}
// A key names a file: anything but 32 lowercase hex digits ("../x") is refused.
bool valid_key(const std::string& key) { return key.size() == kKeyBytes && is_hex(key); }

// Opens and reads the entry `name` in the shard folder, never through a link (O_NOFOLLOW),
// never blocking on a FIFO (O_NONBLOCK); the descriptor stays open for the touch.
sys::Fd read_entry(int shard_fd, const std::string& name, std::string& out) {
  sys::Fd fd(::openat(shard_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<std::uintmax_t>(st.st_size) > kMaxEntryBytes)
    return {};
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::read(fd.get(), out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  return fd;
}

// "ab" shard folders hold "ab<30 more hex>.wlc" entries (and "<entry>.tmp.<...>" while
// sys::write_file_at writes one, or after a crash).
bool is_shard(const fs::path& p) {
  const std::string n = p.filename().string();
  return n.size() == 2 && is_hex(n);
}
bool is_entry_name(const std::string& shard, const std::string& n) {
  if (n.size() < kKeyBytes + 4 || n.compare(0, 2, shard) != 0 ||
      !is_hex(std::string_view(n).substr(0, kKeyBytes)))
    return false;
  const std::string entry = n.substr(0, kKeyBytes) + ".wlc";
  return n == entry || n.rfind(entry + ".tmp.", 0) == 0;
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

// Where the cache goes, and the sentence to print when that is not where the user would look.
struct Location {
  fs::path dir;
  std::string note;
};
Location default_location() {
  if (const char* d = std::getenv("WARPLAB_CACHE_DIR"); d && *d) return {d, {}};
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return {fs::path(x) / "warplab", {}};
  if (const char* h = std::getenv("HOME"); h && *h) return {fs::path(h) / ".cache" / "warplab", {}};
  // No home: a folder of this user's own in the temporary folder, named per user so that
  // another user's folder of the same name never stands in the way.
  const sys::TempRoot t = sys::temp_root();
  if (t.dir.empty()) return {{}, "HOME is not set and " + t.note + ": compiling without the cache"};
  return {fs::path(t.dir) / ("warplab-cache-" + std::to_string(::geteuid())),
          t.note.empty() ? std::string() : t.note + " for the compile cache"};
}

}  // namespace

Cache::Cache(fs::path dir, std::uint64_t max_bytes) : dir_(std::move(dir)), max_bytes_(max_bytes) {
  std::vector<std::string> warnings;
  if (max_bytes_ == 0) {
    max_bytes_ = kDefaultMaxBytes;
    if (const char* mb = std::getenv("WARPLAB_CACHE_MAX_MB"); mb && *mb) {
      char* end = nullptr;
      errno = 0;
      const unsigned long long v = std::strtoull(mb, &end, 10);
      if (errno == 0 && *end == '\0' && mb[0] != '-' && v >= 1 && v <= (1ull << 40))
        max_bytes_ = static_cast<std::uint64_t>(v) << 20;
      else
        warnings.push_back("WARPLAB_CACHE_MAX_MB='" + std::string(mb) +
                           "' is not a whole number of MiB from 1 to 1099511627776; using 512");
    }
  }
  if (const Location d = default_location(); d.dir == dir_ && !d.note.empty())
    warnings.push_back(d.note);
  else if (dir_.empty())
    warnings.push_back("no folder for the compile cache: compiling without the cache");
  // Said once here; load and store check again on every use and quietly miss.
  const std::string shown = "the cache folder " + dir_.string();
  const sys::OwnFolder f = sys::open_own_folder(dir_.string(), false);
  using S = sys::OwnFolder::Status;
  if (f.status == S::not_dir) warnings.push_back(shown + " is not a folder: compiling without the cache");
  if (f.status == S::foreign) warnings.push_back(shown + " " + f.problem + ": compiling without the cache");
  if (f.status == S::shared)
    warnings.push_back(shown + " " + f.problem + ": compiling without the cache (chmod go-w " +
                       dir_.string() + " makes it usable)");
  warning_ = sys::join(warnings, "; ");
}

fs::path Cache::default_dir() { return default_location().dir; }

std::optional<CompileResult> Cache::load(const std::string& key) {
  ++misses_;  // until it is a hit
  if (!valid_key(key)) return std::nullopt;
  const sys::OwnFolder f = sys::open_own_folder(dir_.string(), false);
  if (f.status != sys::OwnFolder::Status::ok) return std::nullopt;
  const sys::Fd shard(
      ::openat(f.fd.get(), key.substr(0, 2).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!shard) return std::nullopt;
  const std::string name = key + ".wlc";
  std::string bytes;
  const sys::Fd entry = read_entry(shard.get(), name, bytes);
  if (!entry) return std::nullopt;  // missing, a link, not a file: a miss, left alone
  // Anything off (short, wrong magic, checksum, another key's entry, JSON) is a corrupt
  // entry: drop it.
  auto corrupt = [&]() -> std::optional<CompileResult> {
    ++corrupt_;
    ::unlinkat(shard.get(), name.c_str(), 0);
    return std::nullopt;
  };
  if (bytes.size() < kHeader || std::memcmp(bytes.data(), kMagic, 8) != 0) return corrupt();
  if (XXH3_64bits(bytes.data() + 16, bytes.size() - 16) != get_u64(bytes, 8)) return corrupt();
  if (bytes.compare(16, kKeyBytes, key) != 0) return corrupt();  // filed under a name not its own
  const std::uint64_t json_len = get_u64(bytes, 16 + kKeyBytes);
  if (json_len > bytes.size() - kHeader) return corrupt();
  CompileResult r;
  try {
    from_cache_json(nlohmann::json::parse(bytes.substr(kHeader, json_len)), r);
  } catch (const std::exception&) {
    return corrupt();
  }
  r.cubin.assign(bytes.begin() + static_cast<long>(kHeader + json_len), bytes.end());
  if (!plausible(r)) return corrupt();
  ::futimens(entry.get(), nullptr);  // touched: eviction removes the least recently used first
  --misses_;
  ++hits_;
  return r;
}

void Cache::store(const std::string& key, const CompileResult& r) {
  if (!r.ok || !valid_key(key)) return;
  const std::string json = to_cache_json(r).dump();
  std::string rest = key;
  put_u64(rest, json.size());
  rest += json;
  rest.append(r.cubin.data(), r.cubin.size());
  std::string file(kMagic, 8);
  put_u64(file, XXH3_64bits(rest.data(), rest.size()));
  file += rest;

  // The folder is made 0700 when missing, and used only when it is this user's alone.
  const sys::OwnFolder f = sys::open_own_folder(dir_.string(), true);
  if (f.status != sys::OwnFolder::Status::ok) return;  // warning() said so
  struct stat st {};
  if (::fstatat(f.fd.get(), kMarker, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
    (void)sys::write_file_at(f.fd.get(), kMarker,
                             "This folder is warplab's compile cache; `warplab cache clear` empties it.\n",
                             {sys::Replace::never, sys::Sync::none, 0600}, kMarker);
  const std::string shard_name = key.substr(0, 2);
  if (::mkdirat(f.fd.get(), shard_name.c_str(), 0700) != 0 && errno != EEXIST) return;
  const sys::Fd shard(
      ::openat(f.fd.get(), shard_name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!shard) return;
  // Whatever is at the entry's name and is not a file (a link, a FIFO) goes: the writer
  // replaces files only, and a link there is never followed.
  const std::string name = key + ".wlc";
  if (::fstatat(shard.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode) &&
      !S_ISDIR(st.st_mode))
    ::unlinkat(shard.get(), name.c_str(), 0);
  // A reader sees the old entry, nothing, or the whole new one (temp file + rename). The
  // checksum catches a torn entry after a crash, so no fsync.
  if (sys::write_file_at(shard.get(), name, file, {sys::Replace::allowed, sys::Sync::none, 0600}, name))
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
    if (p.filename() == Cache::kMarker && it->is_regular_file(ec) && !it->is_symlink(ec)) continue;
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
  const sys::OwnFolder f = sys::open_own_folder(dir_.string(), false);
  switch (f.status) {
    case sys::OwnFolder::Status::missing:
    case sys::OwnFolder::Status::failed:  // a loop of links, no permission: nothing it could clear
      return c;
    case sys::OwnFolder::Status::not_dir:
      throw Error("cannot clear " + dir_.string() + ": it is not a folder");
    case sys::OwnFolder::Status::foreign:
    case sys::OwnFolder::Status::shared:
      throw Error("refusing to clear " + dir_.string() + ": it " + f.problem +
                  "; warplab uses a cache folder only when it is the user's alone");
    case sys::OwnFolder::Status::ok:
      break;
  }
  std::error_code ec;
  // Without the marker, only a folder holding nothing but entries is provably ours.
  const bool marked = fs::symlink_status(dir_ / kMarker, ec).type() == fs::file_type::regular;
  if (!marked && for_each_owned(dir_, [](const fs::path&) {}) > 0)
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
