// cache_fuzz.cpp: libFuzzer harness for the compile cache's entry reader (rtc::Cache::load
// on a file in a scratch cache folder, which parses with rtc::from_cache_json) and for
// what a hit feeds: diagnostics formatting, the PTX and CUBIN readers, demangling.
// Input: bytes up to the first NUL are the entry's JSON, the rest its CUBIN; the harness
// writes a well-formed file around them (magic, XXH3 checksum, key, length) so the fuzzer
// reaches the JSON, except when the first byte is 'W': then the bytes are the whole file.
// A bad entry is a miss, never an exception; a hit passed the plausibility checks.
#define XXH_INLINE_ALL
#include <unistd.h>
#include <xxhash.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "fuzz_util.hpp"
#include "rtc/cache.hpp"
#include "rtc/compile.hpp"

using namespace warplab;
namespace fs = std::filesystem;

namespace {

const std::string kKey = "0123456789abcdef0123456789abcdef";

const fs::path& scratch() {
  static const fs::path dir = [] {
    std::string t = (fs::temp_directory_path() / "warplab-cache-fuzz-XXXXXX").string();
    if (!mkdtemp(t.data())) fuzz::finding("mkdtemp failed");
    return fs::path(t);
  }();
  return dir;
}

std::string entry_file(const std::string& in) {
  if (!in.empty() && in[0] == 'W') return in;
  const std::size_t nul = in.find('\0');
  const std::string json = in.substr(0, nul);
  const std::string cubin = nul == std::string::npos ? "" : in.substr(nul + 1);
  std::string payload = kKey + std::string(8, '\0');
  const std::uint64_t len = json.size();
  std::memcpy(payload.data() + kKey.size(), &len, 8);
  payload += json + cubin;
  const std::uint64_t sum = XXH3_64bits(payload.data(), payload.size());
  std::string file = "WLCACHE2";
  file.append(reinterpret_cast<const char*>(&sum), 8);
  return file + payload;
}

void use(const rtc::CompileResult& r) {
  (void)rtc::format_diagnostics(r, 0, false);
  (void)rtc::ptx_entries(r.ptx);
  for (const std::string& e : r.entries) {
    (void)rtc::demangle(e);
    (void)r.resources(e);
    (void)r.lowered_name(e);
  }
  try {
    (void)rtc::read_cubin(r.cubin);
  } catch (const rtc::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fs::path shard = scratch() / kKey.substr(0, 2);
  fs::create_directories(shard);
  const fs::path p = shard / (kKey + ".wlc");
  {
    const std::string file = entry_file(fuzz::text(data, size));
    std::ofstream(p, std::ios::binary | std::ios::trunc).write(file.data(), static_cast<long>(file.size()));
  }
  rtc::Cache cache(scratch());
  fuzz::expect_only<fuzz::Never>("rtc::Cache::load", [&] {
    if (const auto hit = cache.load(kKey)) use(*hit);
  });
  return 0;
}
