// elf_fuzz.cpp: libFuzzer harness for the CUBIN reader (rtc::read_cubin: section
// headers, the symbol table, .nv.info attribute records). Malformed input throws
// rtc::Error; nothing is read out of bounds (ASan checks), and the resources it reports
// merge with a ptxas report without throwing.
#include "fuzz_util.hpp"
#include "rtc/elf.hpp"
#include "rtc/error.hpp"
#include "rtc/resources.hpp"

using namespace warplab;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<char> elf(reinterpret_cast<const char*>(data),
                              reinterpret_cast<const char*>(data) + size);
  fuzz::expect_only<rtc::Error>("rtc::read_cubin", [&] {
    const std::vector<rtc::ElfKernel> ks = rtc::read_cubin(elf);
    std::vector<std::string> entries;
    for (const rtc::ElfKernel& k : ks) entries.push_back(k.name);
    entries.push_back("_Z7missingv");
    std::vector<std::string> notes;
    (void)rtc::merge_resources(entries, ks, {}, notes);
    if (!ks.empty()) (void)rtc::find_kernel(ks, ks.front().name);
  });
  return 0;
}
