// instructions.cpp: instruction kinds from SASS opcodes and PTX instructions, the SASS
// lines of a disassembly ("/*0260*/  @!P0 LDS R5, [R5] ;"), and a PTX entry's instructions
// under their .loc directives.
#include "rtc/instructions.hpp"

#include <sstream>

#include "rtc/ptx.hpp"

namespace warplab::rtc {
namespace {

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// The opcode of an instruction's text, its predicate ("@!P0 ", "@%p1 ") skipped.
std::string_view opcode_of(std::string_view text) {
  text = trim(text);
  if (!text.empty() && text[0] == '@') {
    const auto sp = text.find_first_of(" \t");
    text = sp == std::string_view::npos ? std::string_view{} : trim(text.substr(sp));
  }
  const auto end = text.find_first_of(" \t;");
  return end == std::string_view::npos ? text : text.substr(0, end);
}

}  // namespace

const char* inst_kind_name(InstKind k) {
  switch (k) {
    case InstKind::shared_load:
      return "shared load";
    case InstKind::shared_store:
      return "shared store";
    case InstKind::global_load:
      return "global load";
    case InstKind::global_store:
      return "global store";
    case InstKind::local_load:
      return "local load";
    case InstKind::local_store:
      return "local store";
    case InstKind::generic_load:
      return "load";
    case InstKind::generic_store:
      return "store";
    case InstKind::atomic:
      return "atomic";
    case InstKind::shared_atomic:
      return "shared atomic";
    case InstKind::global_atomic:
      return "global atomic";
    case InstKind::branch:
      return "branch";
    case InstKind::barrier:
      return "barrier";
    case InstKind::fence:
      return "fence";
    case InstKind::shuffle:
      return "shuffle";
    case InstKind::async_copy:
      return "async copy";
    case InstKind::tma:
      return "tma";
    case InstKind::texture:
      return "texture";
    case InstKind::other:
      break;
  }
  return "";
}

InstKind sass_kind(std::string_view op) {
  const std::string_view base = op.substr(0, op.find('.'));
  if (base == "LDS" || base == "LDSM") return InstKind::shared_load;
  if (base == "STS" || base == "STSM") return InstKind::shared_store;
  if (base == "LDG") return InstKind::global_load;
  if (base == "STG") return InstKind::global_store;
  if (base == "LDL") return InstKind::local_load;
  if (base == "STL") return InstKind::local_store;
  if (base == "LD") return InstKind::generic_load;
  if (base == "ST") return InstKind::generic_store;
  if (base == "ATOMS" || base == "REDAS") return InstKind::shared_atomic;
  if (base == "ATOMG" || base == "REDG") return InstKind::global_atomic;
  if (base == "ATOM" || base == "RED") return InstKind::atomic;
  if (base == "BRA" || base == "BRX" || base == "BRXU" || base == "JMP" || base == "JMX" || base == "JMXU" ||
      base == "CALL" || base == "RET")
    return InstKind::branch;
  if (base == "BAR") return InstKind::barrier;
  if (base == "MEMBAR" || base == "FENCE") return InstKind::fence;
  if (base == "SHFL") return InstKind::shuffle;
  if (base == "LDGSTS") return InstKind::async_copy;
  if (base.starts_with("UTMA") || base.starts_with("UBLK")) return InstKind::tma;
  if (base == "TEX" || base == "TLD" || base == "TLD4" || base == "TXQ" || base == "TXD" || base == "SULD" ||
      base == "SUST")
    return InstKind::texture;
  return InstKind::other;
}

InstKind ptx_kind(std::string_view text) {
  const std::string_view op = opcode_of(text);
  if (op.starts_with("ld.shared") || op.starts_with("ldmatrix")) return InstKind::shared_load;
  if (op.starts_with("st.shared") || op.starts_with("stmatrix")) return InstKind::shared_store;
  if (op.starts_with("ld.global")) return InstKind::global_load;
  if (op.starts_with("st.global")) return InstKind::global_store;
  if (op.starts_with("ld.local")) return InstKind::local_load;
  if (op.starts_with("st.local")) return InstKind::local_store;
  if (op.starts_with("ld.param") || op.starts_with("ld.const") || op.starts_with("st.param"))
    return InstKind::other;
  if (op == "ld" || op.starts_with("ld.")) return InstKind::generic_load;
  if (op == "st" || op.starts_with("st.")) return InstKind::generic_store;
  if (op.starts_with("atom.shared") || op.starts_with("red.shared")) return InstKind::shared_atomic;
  if (op.starts_with("atom.global") || op.starts_with("red.global")) return InstKind::global_atomic;
  if (op.starts_with("atom") || op.starts_with("red")) return InstKind::atomic;
  if (op.starts_with("bra") || op.starts_with("brx") || op.starts_with("call") || op.starts_with("ret"))
    return InstKind::branch;
  if (op.starts_with("bar.sync") || op.starts_with("barrier.sync") || op.starts_with("bar.red") ||
      op.starts_with("barrier.red") || op.starts_with("bar.arrive") || op.starts_with("barrier.arrive") ||
      op == "bar" || op == "barrier")
    return InstKind::barrier;
  if (op.starts_with("membar") || op.starts_with("fence")) return InstKind::fence;
  if (op.starts_with("shfl")) return InstKind::shuffle;
  if (op.starts_with("cp.async.bulk")) return InstKind::tma;
  if (op.starts_with("cp.async")) return InstKind::async_copy;
  if (op.starts_with("tex") || op.starts_with("tld4") || op.starts_with("suld") || op.starts_with("sust"))
    return InstKind::texture;
  return InstKind::other;
}

std::vector<SassInst> sass_instructions(const std::string& dump) {
  std::vector<SassInst> out;
  std::stringstream ss(dump);
  for (std::string line; std::getline(ss, line);) {
    // "        /*0260*/                   LDS R5, [R5] ;   /* 0x... */" (cuobjdump adds the
    // encoding; its second encoding line has no offset and is skipped).
    const auto open = line.find("/*");
    if (open == std::string::npos) continue;
    const auto close = line.find("*/", open + 2);
    if (close == std::string::npos || close == open + 2) continue;
    const std::string hex = line.substr(open + 2, close - open - 2);
    if (hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos || hex.size() > 8) continue;
    std::string_view rest(line);
    rest = rest.substr(close + 2);
    const auto semi = rest.find(';');
    if (semi == std::string_view::npos) continue;
    const std::string_view text = trim(rest.substr(0, semi));
    if (text.empty()) continue;
    SassInst i;
    i.offset = static_cast<std::uint32_t>(std::stoul(hex, nullptr, 16));
    i.text = std::string(text);
    i.kind = sass_kind(opcode_of(text));
    out.push_back(std::move(i));
  }
  return out;
}

PtxLines ptx_lines(const std::string& ptx, const std::string& name) {
  PtxLines out;
  // .file directives sit at the end of the module: read them all first.
  std::stringstream all(ptx);
  for (std::string line; std::getline(all, line);) {
    const std::string_view t = trim(line);
    if (!t.starts_with(".file")) continue;
    std::istringstream in{std::string(t.substr(5))};
    int n = 0;
    in >> n;
    std::string rest;
    std::getline(in, rest);
    const auto q1 = rest.find('"'), q2 = rest.find('"', q1 == std::string::npos ? 0 : q1 + 1);
    if (q1 != std::string::npos && q2 != std::string::npos) out.files[n] = rest.substr(q1 + 1, q2 - q1 - 1);
  }
  const std::optional<PtxEntry> e = ptx_entry(ptx, name);
  if (!e) return out;
  std::stringstream body(ptx.substr(e->begin, e->end - e->begin));
  int file = 0;
  unsigned at = 0;
  bool in_body = false;
  for (std::string line; std::getline(body, line);) {
    const std::string_view t = trim(line);
    if (!in_body) {
      in_body = t == "{";
      continue;
    }
    if (t.empty() || t.starts_with("//") || t == "{" || t == "}") continue;
    if (t.starts_with(".loc")) {  // .loc FILE LINE COLUMN[, function_name ..., inlined_at ...]
      std::istringstream in{std::string(t.substr(4))};
      long f = 0, l = 0;
      if (in >> f >> l && f >= 0 && l >= 0) file = static_cast<int>(f), at = static_cast<unsigned>(l);
      continue;
    }
    if (t[0] == '.' || t.back() == ':') continue;  // declarations (.reg, .shared), labels
    PtxInst i;
    i.file = file;
    i.line = at;
    i.text = std::string(t);
    i.kind = ptx_kind(t);
    out.insts.push_back(std::move(i));
  }
  return out;
}

}  // namespace warplab::rtc
