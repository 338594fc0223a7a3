// listing.cpp: kernels' code as lines (listing.hpp). The diff is the textbook
// longest-common-subsequence table over lines, plenty for kernels (3000 lines a side at
// most); the SASS is cut into kernels by sass.hpp and read into instructions by
// instructions.hpp, here only cleaned.
#include "rtc/listing.hpp"

#include <algorithm>
#include <cstdio>
#include <regex>
#include <set>
#include <sstream>

#include "rtc/ptx.hpp"
#include "rtc/sass.hpp"
#include "sys/text.hpp"

namespace warplab::rtc {

bool same_code(const Lines& a, const Lines& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const std::string& x, const std::string& y) {
    return x == y || normalize(x) == normalize(y);
  });
}

std::string normalize(const std::string& line) {
  // PTX virtual registers (%r12, %rd3, %f7, %p1, %rs2, ...) and labels ($L__BB0_3), SASS
  // registers (R12, UR4, P0, UP1, the convergence barrier B0) and the listing's labels
  // (.L3): renumbering alone is not a change; nor is the count of virtual registers a PTX
  // kernel declares (".reg .f32 %f<12>;"), which follows from the instructions.
  static const std::regex ptx_reg(R"((%[a-z]+)\d+)");
  static const std::regex ptx_reg_count(R"((%[a-z]+)<\d+>)");
  static const std::regex ptx_label(R"(\$L__BB\d+_\d+)");
  static const std::regex sass_reg(R"(\b(U?[RPB])\d+\b)");
  static const std::regex sass_label(R"(\.L\d+\b)");
  std::string s = std::regex_replace(line, ptx_reg, "$1#");
  s = std::regex_replace(s, ptx_reg_count, "$1<#>");
  s = std::regex_replace(s, ptx_label, "$$L__BB#");
  s = std::regex_replace(s, sass_reg, "$1#");
  return std::regex_replace(s, sass_label, ".L#");
}

std::string line_diff(const Lines& a, const Lines& b, int context, int max_lines, const std::string& more) {
  const std::size_t n = a.size(), m = b.size();
  if (n > 3000 || m > 3000)
    return "  (" + std::to_string(n) + " -> " + std::to_string(m) + " lines: too large to diff)\n";
  if (max_lines <= 0) max_lines = static_cast<int>(n + m) * 2 + 1;  // 0: every line
  Lines na, nb;
  for (const auto& l : a) na.push_back(normalize(l));
  for (const auto& l : b) nb.push_back(normalize(l));
  // lcs[i][j]: length of the common subsequence of na[i..] and nb[j..].
  std::vector<std::vector<unsigned short>> lcs(n + 1, std::vector<unsigned short>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = na[i] == nb[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  struct Op {
    char tag;
    const std::string* line;
    std::size_t ai, bi;  // 0-based line numbers in a and b at this op
  };
  std::vector<Op> ops;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && na[i] == nb[j])
      ops.push_back({' ', &b[j], i, j}), ++i, ++j;
    else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]))
      ops.push_back({'-', &a[i], i, j}), ++i;
    else
      ops.push_back({'+', &b[j], i, j}), ++j;  // deletions print before insertions
  }
  // Hunks: changed lines with `context` lines around them, each under "@@ -a,n +b,m @@".
  std::vector<bool> keep(ops.size(), false);
  for (std::size_t k = 0; k < ops.size(); ++k)
    if (ops[k].tag != ' ')
      for (long d = -context; d <= context; ++d) {
        const long x = static_cast<long>(k) + d;
        if (x >= 0 && x < static_cast<long>(ops.size())) keep[static_cast<std::size_t>(x)] = true;
      }
  std::string out;
  int shown = 0, hidden = 0;
  for (std::size_t k = 0; k < ops.size();) {
    if (!keep[k]) {
      ++k;
      continue;
    }
    std::size_t end = k;
    while (end < ops.size() && keep[end]) ++end;
    std::size_t na_lines = 0, nb_lines = 0;
    for (std::size_t x = k; x < end; ++x) {
      na_lines += ops[x].tag != '+';
      nb_lines += ops[x].tag != '-';
    }
    if (shown < max_lines)
      out += "@@ -" + std::to_string(ops[k].ai + 1) + "," + std::to_string(na_lines) + " +" +
             std::to_string(ops[k].bi + 1) + "," + std::to_string(nb_lines) + " @@\n";
    for (; k < end; ++k) {
      if (shown >= max_lines) {
        hidden += ops[k].tag != ' ';
        continue;
      }
      out += std::string(1, ops[k].tag) + " " + *ops[k].line + "\n";
      ++shown;
    }
  }
  if (hidden)
    out += "  ... and " + std::to_string(hidden) + " more changed lines" + (more.empty() ? "" : " " + more) +
           "\n";
  return out;
}

std::map<std::string, Lines> ptx_kernels(const std::string& ptx) {
  // The entries and their extent come from the one PTX reader (rtc/ptx.hpp).
  std::map<std::string, Lines> out;
  for (const PtxEntry& e : ptx_entry_list(ptx)) {
    std::stringstream ss(ptx.substr(e.begin, e.end - e.begin));
    Lines& body = out[e.name];
    for (std::string line; std::getline(ss, line);) {
      const std::string t = sys::trim(line, " \t\r");
      if (!t.empty() && t.rfind("//", 0) != 0) body.push_back(t);
    }
  }
  return out;
}

namespace {

// The opcodes whose last operand is a code address (cuobjdump prints it as 0x..., nvdisasm
// as `(label)): branches, calls, the convergence points of Volta and newer, and a collective
// WARPSYNC's fallback. (A plain WARPSYNC's operand is a mask, RET's an offset from a register.)
bool takes_target(const std::string& text) {
  std::string op = text;
  if (!op.empty() && op[0] == '@') op = op.substr(std::min(op.size(), op.find(' ') + 1));  // the predicate
  op = op.substr(0, op.find(' '));
  if (op.rfind("WARPSYNC.COLLECTIVE", 0) == 0) return true;
  op = op.substr(0, op.find('.'));
  static const std::set<std::string> ops = {"BRA", "BRX", "JMP",  "JMX",  "CALL", "BSSY",
                                            "SSY", "PBK", "PCNT", "PRET", "BRK",  "CAL"};
  return ops.count(op) > 0;
}

// The name a line of nvdisasm's defines as a label ("  .L_x_3:", "$_Z1kPf$__internal_f:"), or "".
std::string label_line(const std::string& line) {
  const std::string t = sys::trim(line, " \t\r");
  if (t.size() < 2 || t.back() != ':' || t.find_first_of(" \t") != std::string::npos) return "";
  if (t.rfind(".text.", 0) == 0 || t.rfind("/*", 0) == 0) return "";
  return t.substr(0, t.size() - 1);
}

// nvdisasm's words as cuobjdump prints them: "`(label)" as the address it marks ("0x220"),
// without its "(*"BRANCH_TARGETS ..."*)" notes.
void as_cuobjdump(std::string& text, const std::map<std::string, std::uint32_t>& named) {
  for (std::size_t c = text.find("(*"); c != std::string::npos; c = text.find("(*")) {
    const std::size_t e = text.find("*)", c + 2);
    text.erase(c, e == std::string::npos ? std::string::npos : e + 2 - c);
  }
  for (std::size_t t = text.find("`("); t != std::string::npos; t = text.find("`(", t + 1)) {
    const std::size_t e = text.find(')', t + 2);
    if (e == std::string::npos) break;
    const auto it = named.find(text.substr(t + 2, e - t - 2));
    if (it == named.end()) continue;
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%x", it->second);
    text.replace(t, e + 1 - t, hex);
  }
  text = sys::trim(text, " \t");
}

SassCode clean(const std::string& mangled, const std::string& section) {
  SassCode k;
  k.mangled = mangled;
  std::map<std::string, std::uint32_t> named = {{mangled, 0}};  // nvdisasm's labels -> their offsets
  std::vector<std::string> pending;
  std::stringstream ss(section);
  for (std::string line; std::getline(ss, line);) {
    if (std::string l = label_line(line); !l.empty()) {
      pending.push_back(std::move(l));
      continue;
    }
    std::vector<SassInst> one = sass_instructions(line);
    if (one.empty()) continue;
    for (std::string& l : pending) named.emplace(l, one[0].offset);
    pending.clear();
    k.insts.push_back(std::move(one[0]));
  }
  for (SassInst& i : k.insts) as_cuobjdump(i.text, named);
  // The padding: NOPs after the last instruction that does something.
  while (!k.insts.empty() && (k.insts.back().text == "NOP" || k.insts.back().text.rfind("NOP ", 0) == 0))
    k.insts.pop_back();
  std::set<std::uint32_t> offsets;
  for (const SassInst& i : k.insts) offsets.insert(i.offset);
  // Each branch target, "BRA 0x220": its offset, and where in the text it is.
  struct Target {
    std::size_t inst, at;
    std::uint32_t offset;
  };
  std::vector<Target> targets;
  for (std::size_t x = 0; x < k.insts.size(); ++x) {
    const std::string& t = k.insts[x].text;
    if (!takes_target(t)) continue;
    const std::size_t hex = t.rfind(" 0x");  // the last operand, an address
    if (hex == std::string::npos ||
        t.find_first_not_of("0123456789abcdefABCDEF", hex + 3) != std::string::npos || t.size() - hex > 3 + 8)
      continue;
    const auto offset = static_cast<std::uint32_t>(std::stoul(t.substr(hex + 3), nullptr, 16));
    if (offsets.count(offset)) targets.push_back({x, hex + 1, offset});
  }
  for (const Target& t : targets) k.labels[t.offset];
  int n = 0;
  for (auto& [offset, name] : k.labels) name = ".L" + std::to_string(++n);
  for (const Target& t : targets)
    k.insts[t.inst].text.replace(t.at, std::string::npos, k.labels.at(t.offset));
  return k;
}

}  // namespace

Lines SassCode::lines() const {
  Lines out;
  for (const SassInst& i : insts) {
    if (auto l = labels.find(i.offset); l != labels.end()) out.push_back(l->second + ":");
    out.push_back(i.text);
  }
  return out;
}

std::string SassCode::text() const {
  // The predicate in a column of its own, so the opcodes line up as the tools print them.
  const auto predicate = [](const std::string& t) {
    return !t.empty() && t[0] == '@' ? t.substr(0, t.find(' ')) : std::string();
  };
  std::size_t pw = 0, ow = 4;
  for (const SassInst& i : insts) {
    pw = std::max(pw, predicate(i.text).size());
    char hex[16];
    ow = std::max(ow, static_cast<std::size_t>(std::snprintf(hex, sizeof hex, "%x", i.offset)));
  }
  std::string out;
  for (const SassInst& i : insts) {
    if (auto l = labels.find(i.offset); l != labels.end()) out += l->second + ":\n";
    char off[32];
    std::snprintf(off, sizeof off, "  %0*x  ", static_cast<int>(ow), i.offset);
    const std::string p = predicate(i.text);
    const std::string rest = p.empty() ? i.text : i.text.substr(std::min(i.text.size(), p.size() + 1));
    out += off + std::string(pw - p.size(), ' ') + p + (pw ? " " : "") + rest + "\n";
  }
  return out;
}

std::vector<SassCode> sass_code(const std::string& dump) {
  std::vector<SassCode> out;
  for (const auto& [name, section] : sass_sections(dump)) out.push_back(clean(name, section));
  return out;
}

std::map<std::string, Lines> sass_kernels(const std::string& dump) {
  std::map<std::string, Lines> out;
  for (const SassCode& k : sass_code(dump)) out[k.mangled] = k.lines();
  return out;
}

}  // namespace warplab::rtc
