// cache.hpp: the on-disk compile cache. The key hashes exactly what NVRTC compiles: the
// main source and every header's bytes (warplab resolves includes itself), the options,
// the architecture, the NVRTC version and the cache format version; never the PTX (it
// carries a random value). The value is the whole successful CompileResult plus CUBIN.
// Entries are written by the one writer (sys/write.hpp: temp file + rename), carry their
// key and a checksum (a corrupt entry, or one filed under another key's name, is deleted
// and recompiled), and the folder is kept under a size bound, least recently used first.
// The folder is used only when it is the user's own and others cannot write it
// (sys/own_folder.hpp; it is made 0700), and no symbolic link inside it is followed. It is
// marked as warplab's with a file named WARPLAB_CACHE (written with the first entry);
// clear and eviction touch only files whose names prove they are entries
// (<2 hex>/<32 hex>.wlc), and clear refuses a folder that is not provably a warplab cache.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace warplab::rtc {

struct CompileResult;

class Cache {
 public:
  static constexpr std::uint64_t kDefaultMaxBytes = 512ull << 20;
  static constexpr const char* kMarker = "WARPLAB_CACHE";
  // `dir` is created (0700) on first store. max_bytes 0: the default (or
  // WARPLAB_CACHE_MAX_MB, a whole number of MiB from 1 to 2^40; anything else is the
  // default and a warning()). A folder that is not the user's own is a warning() and
  // never used: every load misses, every store is skipped.
  explicit Cache(std::filesystem::path dir, std::uint64_t max_bytes = 0);
  // $WARPLAB_CACHE_DIR, else $XDG_CACHE_HOME/warplab, else ~/.cache/warplab, else (no
  // HOME) warplab-cache-<uid> in the temporary folder (sys/temp.hpp: $TMPDIR or /tmp);
  // "" when there is none (a Cache of "" warns and caches nothing). Never throws.
  static std::filesystem::path default_dir();

  // The stored result for `key`, or nullopt (missing, a link, unreadable, or corrupt:
  // removed). `key` is KeyBuilder::hex(); anything else is a miss.
  std::optional<CompileResult> load(const std::string& key);
  // Stores a successful result; failures to write are ignored (the cache is an
  // optimization, never a reason for a compile to fail).
  void store(const std::string& key, const CompileResult& r);

  struct Info {
    std::filesystem::path dir;
    std::size_t entries = 0;
    std::uint64_t bytes = 0;
    std::uint64_t max_bytes = 0;
  };
  Info info() const;
  struct Cleared {
    std::size_t removed = 0;  // entries removed
    std::size_t failed = 0;   // entries that could not be removed (read-only folder, ...)
    std::size_t foreign = 0;  // files and folders that are not warplab's, left alone
  };
  // Removes every entry. Throws rtc::Error (one sentence) when `dir` exists but is not a
  // warplab cache (no marker file and something in it that warplab did not write), or is
  // not the user's own folder.
  Cleared clear();
  // One line when the cache cannot work as configured (the folder is a file or another
  // user's, a bad WARPLAB_CACHE_MAX_MB, an unusable TMPDIR); empty otherwise. Callers
  // print it once.
  const std::string& warning() const { return warning_; }

  const std::filesystem::path& dir() const { return dir_; }
  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }
  std::uint64_t corrupt() const { return corrupt_; }

 private:
  void evict();

  std::filesystem::path dir_;
  std::uint64_t max_bytes_;
  std::string warning_;
  std::uint64_t hits_ = 0, misses_ = 0, corrupt_ = 0;
};

// 128-bit hex digest of a sequence of byte strings (each length-prefixed, so ("ab","c")
// and ("a","bc") differ).
class KeyBuilder {
 public:
  KeyBuilder();
  ~KeyBuilder();
  KeyBuilder(const KeyBuilder&) = delete;
  KeyBuilder& operator=(const KeyBuilder&) = delete;
  KeyBuilder& add(std::string_view bytes);
  std::string hex() const;

 private:
  void* state_;
};

}  // namespace warplab::rtc
