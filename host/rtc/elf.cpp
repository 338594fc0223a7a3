// elf.cpp: see elf.hpp. A small, bounds-checked ELF64 little-endian reader: section
// headers, the symbol table, and the .nv.info attribute records (1 byte format, 1 byte
// attribute, then 2 bytes of value or, for EIFMT_SVAL, a 2-byte length and that many bytes).
#include "rtc/elf.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>

#include "rtc/error.hpp"

namespace warplab::rtc {
namespace {

constexpr std::uint8_t kFmtSval = 0x04;  // size + bytes; the others carry 2 bytes inline
constexpr std::uint8_t kMaxThreads = 0x05, kReqntid = 0x10, kFrameSize = 0x11, kMinStack = 0x12,
                       kMaxRegCount = 0x1b, kMaxStack = 0x23, kRegCount = 0x2f, kNumBarriers = 0x4c;
// sm_90 and newer place 1 KiB of system-reserved shared memory (the device attribute
// RESERVED_SHARED_MEMORY_PER_BLOCK) at the start of each kernel's .nv.shared section and
// mark the module with .nv.shared.reserved.0; ptxas and the driver report the user's part.
constexpr long kReservedShared = 1024;

struct Section {
  std::string name;
  std::uint32_t type = 0, link = 0, info = 0;
  std::uint64_t offset = 0, size = 0;
};

class Reader {
 public:
  explicit Reader(const std::vector<char>& b) : b_(b) {}
  template <class T>
  T at(std::uint64_t off) const {
    if (off > b_.size() || sizeof(T) > b_.size() - off) fail("a field lies past the end of the file");
    T v;
    std::memcpy(&v, b_.data() + off, sizeof(T));
    return v;
  }
  std::string cstr(std::uint64_t off, std::uint64_t end) const {
    if (off >= end || end > b_.size()) fail("a name lies outside its string table");
    const char* p = b_.data() + off;
    const void* nul = std::memchr(p, '\0', end - off);
    if (!nul) fail("a name in the string table is not terminated");
    return std::string(p, static_cast<const char*>(nul));
  }
  void check_range(std::uint64_t off, std::uint64_t size) const {
    if (off > b_.size() || size > b_.size() - off) fail("a section lies past the end of the file");
  }
  [[noreturn]] static void fail(const std::string& why) { throw Error("unreadable CUBIN: " + why); }

 private:
  const std::vector<char>& b_;
};

std::vector<Section> sections(const Reader& r, std::size_t file_size) {
  if (file_size < 64 || r.at<std::uint32_t>(0) != 0x464c457f) Reader::fail("not an ELF file");
  if (r.at<std::uint8_t>(4) != 2 || r.at<std::uint8_t>(5) != 1)
    Reader::fail("not a 64-bit little-endian ELF file");
  const auto shoff = r.at<std::uint64_t>(0x28);
  const auto shentsize = r.at<std::uint16_t>(0x3a), shnum = r.at<std::uint16_t>(0x3c),
             shstrndx = r.at<std::uint16_t>(0x3e);
  if (shentsize < 64) Reader::fail("section headers are too small");
  if (shstrndx >= shnum) Reader::fail("the section name table index is out of range");
  std::vector<Section> out(shnum);
  for (std::uint16_t i = 0; i < shnum; ++i) {
    const std::uint64_t h = shoff + std::uint64_t{i} * shentsize;
    Section& s = out[i];
    s.type = r.at<std::uint32_t>(h + 4);
    s.offset = r.at<std::uint64_t>(h + 24);
    s.size = r.at<std::uint64_t>(h + 32);
    s.link = r.at<std::uint32_t>(h + 40);
    s.info = r.at<std::uint32_t>(h + 44);
    if (s.type != 8) r.check_range(s.offset, s.size);  // SHT_NOBITS occupies no bytes
    s.name = std::to_string(r.at<std::uint32_t>(h));   // resolved below
  }
  const Section& names = out[shstrndx];
  for (Section& s : out) s.name = r.cstr(names.offset + std::stoull(s.name), names.offset + names.size);
  return out;
}

// Symbol names by index, from the (one) SHT_SYMTAB.
std::vector<std::string> symbols(const Reader& r, const std::vector<Section>& secs) {
  for (const Section& s : secs) {
    if (s.type != 2) continue;
    if (s.link >= secs.size()) Reader::fail("the symbol table's string table is out of range");
    const Section& str = secs[s.link];
    std::vector<std::string> out;
    for (std::uint64_t off = 0; off + 24 <= s.size; off += 24) {
      const auto name = r.at<std::uint32_t>(s.offset + off);
      out.push_back(name ? r.cstr(str.offset + name, str.offset + str.size) : std::string());
    }
    return out;
  }
  return {};
}

struct Attr {
  std::uint8_t id = 0;
  std::vector<std::uint32_t> words;  // SVAL payload as 32-bit words
  std::uint32_t value = 0;           // inline 2-byte value (BVAL, HVAL)
};

std::vector<Attr> attributes(const Reader& r, const Section& s) {
  std::vector<Attr> out;
  std::uint64_t p = s.offset;
  const std::uint64_t end = s.offset + s.size;
  while (p + 4 <= end) {
    Attr a;
    const auto fmt = r.at<std::uint8_t>(p);
    a.id = r.at<std::uint8_t>(p + 1);
    if (fmt == kFmtSval) {
      const auto len = r.at<std::uint16_t>(p + 2);
      if (p + 4 + len > end) Reader::fail("an attribute in " + s.name + " runs past its section");
      for (std::uint16_t w = 0; w + 4 <= len; w += 4) a.words.push_back(r.at<std::uint32_t>(p + 4 + w));
      p += 4 + len;
    } else if (fmt >= 1 && fmt <= 3) {
      a.value = fmt == 2 ? r.at<std::uint8_t>(p + 2) : r.at<std::uint16_t>(p + 2);
      p += 4;
    } else {
      Reader::fail("unknown attribute format " + std::to_string(fmt) + " in " + s.name);
    }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace

std::vector<ElfKernel> read_cubin(const std::vector<char>& elf) {
  const Reader r(elf);
  const std::vector<Section> secs = sections(r, elf.size());
  const std::vector<std::string> syms = symbols(r, secs);
  std::map<std::string, ElfKernel> by_name;
  std::vector<std::string> order;
  bool reserved = false;
  long module_const = 0;
  for (const Section& s : secs) {
    reserved = reserved || s.name == ".nv.shared.reserved.0";
    if (!s.name.starts_with(".nv.info.")) continue;
    ElfKernel& k = by_name[s.name.substr(9)];
    k.name = s.name.substr(9);
    order.push_back(k.name);
    for (const Attr& a : attributes(r, s)) {
      if (a.id == kNumBarriers)
        k.barriers = static_cast<int>(a.value);
      else if (a.id == kMaxRegCount)
        k.max_registers = static_cast<int>(a.value);
      else if ((a.id == kMaxThreads || a.id == kReqntid) && a.words.size() >= 3)
        std::copy_n(a.words.begin(), 3, (a.id == kMaxThreads ? k.max_threads : k.reqntid).begin());
    }
  }
  // Per-function records in the module-wide .nv.info: {symbol index, value}.
  for (const Section& s : secs) {
    if (s.name != ".nv.info") continue;
    for (const Attr& a : attributes(r, s)) {
      if (a.words.size() < 2 || a.words[0] >= syms.size()) continue;
      const auto it = by_name.find(syms[a.words[0]]);
      if (it == by_name.end()) continue;  // a device function: its numbers fold into callers
      ElfKernel& k = it->second;
      const long v = static_cast<long>(a.words[1]);
      if (a.id == kRegCount)
        k.registers = static_cast<int>(v);
      else if (a.id == kFrameSize)
        k.frame_bytes = v;
      if (a.id == kFrameSize || a.id == kMinStack || a.id == kMaxStack)
        k.stack_bytes = std::max(k.stack_bytes, v);
    }
  }
  for (const Section& s : secs) {
    if (s.name.starts_with(".text.")) {
      const auto it = by_name.find(s.name.substr(6));
      if (it != by_name.end()) it->second.code_bytes = static_cast<unsigned long>(s.size);
    } else if (s.name.starts_with(".nv.shared.") && s.name != ".nv.shared.reserved.0") {
      const auto it = by_name.find(s.name.substr(11));
      if (it == by_name.end()) continue;
      const long size = static_cast<long>(s.size);
      it->second.shared_bytes = reserved && size >= kReservedShared ? size - kReservedShared : size;
    } else if (s.name.starts_with(".nv.constant") && !s.name.starts_with(".nv.constant0")) {
      const std::size_t dot = s.name.find('.', 12);
      if (dot == std::string::npos) {
        // Module-wide banks: 3 holds the __constant__ variables, which the driver counts
        // for every kernel (CONST_SIZE_BYTES); 4 and others are the compiler's own tables
        // (addresses of globals), which it does not (both measured on an H100).
        if (s.name == ".nv.constant3") module_const += static_cast<long>(s.size);
        continue;
      }
      const auto it = by_name.find(s.name.substr(dot + 1));
      if (it != by_name.end()) it->second.kernel_const_bytes += static_cast<long>(s.size);
    }
  }
  // The driver's CONST_SIZE_BYTES is the user's constant memory: bank 3 alone. A kernel's own
  // banks (a switch's jump table in bank 2) are not in it (measured on an H200).
  for (auto& [name, k] : by_name) k.const_bytes = module_const;
  std::vector<ElfKernel> out;
  for (const std::string& n : order) out.push_back(by_name[n]);
  return out;
}

const ElfKernel* find_kernel(const std::vector<ElfKernel>& ks, const std::string& name) {
  for (const ElfKernel& k : ks)
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace warplab::rtc
