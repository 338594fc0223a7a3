// pretty.cpp: the value printer of the REPL and of warplab.show (cuda.hpp). Tables are
// walked with lua_next; keys are collected into a scratch table so they can be sorted
// without keeping Lua values in C++.
#include "bind/cuda.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string_view>
#include <vector>

namespace warplab::bind {
namespace {

constexpr std::array<std::string_view, 22> kReserved = {
    "and", "break", "do",  "else", "elseif", "end",    "false",  "for",  "function", "goto",  "if",
    "in",  "local", "nil", "not",  "or",     "repeat", "return", "then", "true",     "until", "while"};

// Above this many entries keys are shown in iteration order, unsorted (sorting a
// million keys to show 24 of them is not worth the wait).
constexpr int kSortLimit = 1000;

class Printer {
 public:
  Printer(lua_State* L, const PrettyOptions& o) : L_(L), o_(o) {}

  std::string value(int idx, int depth) {
    idx = lua_absindex(L_, idx);
    switch (lua_type(L_, idx)) {
      case LUA_TSTRING:
        return depth == 0 ? std::string(lua_tostring(L_, idx)) : cut(quote(lua_tostring(L_, idx)));
      case LUA_TTABLE:
        if (luaL_getmetafield(L_, idx, "__tostring") == LUA_TNIL) return table(idx, depth);
        lua_pop(L_, 1);  // -1 the metafield: an object that prints itself
        return tostring(idx);
      default:
        return tostring(idx);
    }
  }

 private:
  std::string tostring(int idx) {
    size_t n = 0;
    const char* s = luaL_tolstring(L_, idx, &n);  // +1
    std::string out(s, n);
    lua_pop(L_, 1);  // -1
    return out;
  }

  std::string cut(std::string s) const {
    if (s.size() <= o_.max_string) return s;
    const size_t n = s.size();
    s.resize(o_.max_string);
    return s + "...\" (" + std::to_string(n) + " bytes)";
  }

  std::string key(int idx) {
    if (lua_type(L_, idx) == LUA_TSTRING) {
      const std::string k = lua_tostring(L_, idx);
      if (is_identifier(k)) return k;
    }
    return "[" + value(idx, 1) + "]";
  }

  // What orders the keys: strings first (alphabetically), then numbers, then the rest.
  struct SortKey {
    int cls;
    double num;
    std::string str;
    lua_Integer slot;  // where the key sits in the scratch table
    bool operator<(const SortKey& o) const {
      if (cls != o.cls) return cls < o.cls;
      if (num != o.num) return num < o.num;
      return str < o.str;
    }
  };
  SortKey sort_key(int idx, lua_Integer slot, bool sorted) {
    if (!sorted) return {0, 0, {}, slot};
    if (lua_type(L_, idx) == LUA_TSTRING) return {0, 0, lua_tostring(L_, idx), slot};
    if (lua_type(L_, idx) == LUA_TNUMBER) return {1, lua_tonumber(L_, idx), {}, slot};
    return {2, 0, tostring(idx), slot};
  }

  std::string table(int t, int depth) {
    const void* id = lua_topointer(L_, t);
    if (seen_.count(id)) return "<cycle>";
    if (depth >= o_.max_depth) return "{...}";
    seen_.insert(id);
    luaL_checkstack(L_, 8, "table too deep to print");

    // The sequence part 1..n first, in order.
    std::vector<std::string> items;
    lua_Integer n = 0;
    while (lua_rawgeti(L_, t, n + 1) != LUA_TNIL) {  // +1
      if (static_cast<int>(items.size()) < o_.max_items) items.push_back(value(-1, depth + 1));
      lua_pop(L_, 1);  // -1
      ++n;
    }
    lua_pop(L_, 1);  // -1 the nil

    // Then every other key, collected into a scratch table to sort them.
    lua_newtable(L_);  // +1 scratch
    const int scratch = lua_gettop(L_);
    std::vector<SortKey> order;
    int total = 0;
    lua_pushnil(L_);                // +1 first key
    while (lua_next(L_, t) != 0) {  // +1 value
      lua_pop(L_, 1);               // -1
      if (lua_isinteger(L_, -1) && lua_tointeger(L_, -1) >= 1 && lua_tointeger(L_, -1) <= n) continue;
      ++total;
      if (total <= kSortLimit || static_cast<int>(order.size()) < o_.max_items) {
        const auto slot = static_cast<lua_Integer>(order.size()) + 1;
        order.push_back(sort_key(-1, slot, total <= kSortLimit));
        lua_pushvalue(L_, -1);           // +1 key copy
        lua_rawseti(L_, scratch, slot);  // -1
      }
    }
    if (total <= kSortLimit) std::sort(order.begin(), order.end());
    const int shown = std::min<int>(static_cast<int>(order.size()),
                                    std::max(0, o_.max_items - static_cast<int>(items.size())));
    for (int i = 0; i < shown; ++i) {
      lua_rawgeti(L_, scratch, order[i].slot);  // +1 key
      lua_pushvalue(L_, -1);                    // +1
      lua_rawget(L_, t);                        // -1 +1 value
      items.push_back(key(-2) + " = " + value(-1, depth + 1));
      lua_pop(L_, 2);  // -2
    }
    lua_pop(L_, 1);  // -1 scratch
    seen_.erase(id);

    const long long hidden = n + total - static_cast<long long>(items.size());
    const size_t seq = static_cast<size_t>(std::min<lua_Integer>(n, o_.max_items));
    if (hidden > 0) items.push_back("... (" + std::to_string(hidden) + " more)");
    return layout(items, seq, depth);
  }

  // One line when it fits; else the sequence items (the first `seq`) packed into lines
  // of the line width, and each keyed item on a line of its own.
  std::string layout(const std::vector<std::string>& items, size_t seq, int depth) const {
    if (items.empty()) return "{}";
    std::string one = "{";
    for (size_t i = 0; i < items.size(); ++i) one += (i ? ", " : "") + items[i];
    one += "}";
    if (one.size() + 2 * depth <= o_.line_width && one.find('\n') == std::string::npos) return one;
    const std::string pad(2 * (depth + 1), ' ');
    std::string out = "{\n", line;
    for (size_t i = 0; i < items.size(); ++i) {
      const bool packable = i < seq && items[i].find('\n') == std::string::npos;
      if (!line.empty() && (!packable || pad.size() + line.size() + items[i].size() + 2 > o_.line_width)) {
        out += pad + line + "\n";
        line.clear();
      }
      if (packable) {
        line += (line.empty() ? "" : " ") + items[i] + ",";
      } else {
        out += pad + items[i] + ",\n";
      }
    }
    if (!line.empty()) out += pad + line + "\n";
    return out + std::string(2 * depth, ' ') + "}";
  }

  lua_State* L_;
  const PrettyOptions& o_;
  std::set<const void*> seen_;  // tables on the current path, to cut cycles
};

}  // namespace

std::string pretty(lua_State* L, int idx, const PrettyOptions& opts) {
  Printer p(L, opts);
  return p.value(idx, 0);
}

std::string pretty_values(lua_State* L, int first, int last, const PrettyOptions& opts) {
  std::string out;
  for (int i = first; i <= last; ++i) out += (i > first ? "\t" : "") + pretty(L, i, opts);
  return out;
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (const unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 32 || c == 127)
          out += "\\" + std::to_string(c);
        else
          out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (const char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return std::find(kReserved.begin(), kReserved.end(), s) == kReserved.end();
}

}  // namespace warplab::bind
