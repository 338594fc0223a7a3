// repl/complete.cpp: completion candidates from the live Lua state (complete.hpp). All of
// it, path resolution and the key listing, runs under one lua_pcall: a throwing __index
// (dev.attr rejects unknown names) or a path too long for the stack just means "no
// candidates", and every push asks for its room.
#include "app/repl/complete.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "bind/cuda.hpp"

namespace warplab::app::repl {
namespace {

constexpr const char* kKeywords[] = {"and",      "break",  "do",   "else", "elseif", "end",  "false", "for",
                                     "function", "goto",   "if",   "in",   "local",  "nil",  "not",   "or",
                                     "repeat",   "return", "then", "true", "until",  "while"};

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

class Collector {
 public:
  Collector(lua_State* L, std::string prefix, bool methods_only)
      : L_(L), prefix_(std::move(prefix)), methods_only_(methods_only) {}

  // Keys of the table at `idx` (raw), then of its __index chain. Under pcall: raises.
  void table_keys(int idx, int depth = 0) {
    idx = lua_absindex(L_, idx);
    if (depth > 8) return;  // __index chains this long are loops in practice
    luaL_checkstack(L_, 6, "completion");
    if (lua_type(L_, idx) == LUA_TTABLE) {
      lua_pushnil(L_);                  // +1 first key
      while (lua_next(L_, idx) != 0) {  // +1 value
        if (lua_type(L_, -2) == LUA_TSTRING) consider(lua_tostring(L_, -2), lua_type(L_, -1));
        lua_pop(L_, 1);  // -1
      }
    }
    meta_keys(idx, depth);
  }

  std::set<std::string> names;

 private:
  // The metatable's __index (when a table) and its __fields: a list of names, or a
  // function of the object returning one (a module listing its kernels). Objects whose
  // __index is a function can only be completed through __fields.
  void meta_keys(int idx, int depth) {
    const int top = lua_gettop(L_);
    if (!lua_getmetatable(L_, idx)) return;                                        // +1 metatable
    if (lua_getfield(L_, -1, "__index") == LUA_TTABLE) table_keys(-1, depth + 1);  // +1
    lua_pop(L_, 1);                                                                // -1
    // warplab's objects answer through an __index function and keep their methods in
    // the metatable's `methods` table.
    if (lua_getfield(L_, -1, "methods") == LUA_TTABLE) table_keys(-1, depth + 1);  // +1
    lua_pop(L_, 1);                                                                // -1
    if (!methods_only_ && lua_getfield(L_, -1, "__fields") == LUA_TFUNCTION) {     // +1
      lua_pushvalue(L_, idx);                                                      // +1 the object
      if (lua_pcall(L_, 1, 1, 0) != LUA_OK) lua_pushnil(L_);                       // -2 +1 list (+1 on error)
    }
    if (!methods_only_ && lua_type(L_, -1) == LUA_TTABLE) {
      for (lua_Integer i = 1; lua_rawgeti(L_, -1, i) == LUA_TSTRING; ++i) {  // +1
        consider(lua_tostring(L_, -1), LUA_TNIL);
        lua_pop(L_, 1);  // -1
      }
      lua_pop(L_, 1);  // -1 the non-string
    }
    lua_settop(L_, top);  // drop __fields, metatable
  }

  void consider(const std::string& name, int type) {
    if (methods_only_ && type != LUA_TFUNCTION) return;
    if (name.compare(0, prefix_.size(), prefix_) != 0 || !bind::is_identifier(name)) return;
    names.insert(name);
  }

  lua_State* L_;
  std::string prefix_;
  bool methods_only_;
};

}  // namespace

CompletionWord completion_word(std::string_view line) {
  CompletionWord w;
  size_t start = line.size();
  while (start > 0 && (ident_char(line[start - 1]) || line[start - 1] == '.' || line[start - 1] == ':'))
    --start;
  std::string_view text = line.substr(start);
  // A leading separator ("(x).y", "::label") or a number ("1.5") is not a path we resolve.
  if (!text.empty() && (text[0] == '.' || text[0] == ':')) {
    w.valid = false;
    return w;
  }
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) {
    w.valid = false;
    return w;
  }
  size_t seg = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && ident_char(text[i])) continue;
    if (i == text.size()) {
      w.partial = std::string(text.substr(seg));
      break;
    }
    if (i == seg || w.sep == ':') {
      w.valid = false;
      return w;
    }  // "a..b", "a:b.c"
    w.path.emplace_back(text.substr(seg, i - seg));
    w.sep = text[i];
    seg = i + 1;
  }
  // A string or a comment before the cursor: nothing to complete.
  if (start > 0 && (line[start - 1] == '"' || line[start - 1] == '\'')) w.valid = false;
  return w;
}

namespace {

struct Request {
  const CompletionWord* word;
  Collector* collector;
};

// Run under pcall with the request as a light userdata: t[k] for each path segment,
// starting from the globals (with metamethods, one segment at a time: a path of any
// length takes two stack slots), then the keys of what it names.
int collect(lua_State* L) {
  const auto* r = static_cast<const Request*>(lua_touserdata(L, 1));
  lua_pushglobaltable(L);  // +1 current
  for (const std::string& s : r->word->path) {
    lua_pushlstring(L, s.data(), s.size());  // +1 key
    lua_gettable(L, -2);                     // -1 +1 value (may run __index)
    lua_remove(L, -2);                       // -1 previous
  }
  r->collector->table_keys(-1);
  return 0;
}

}  // namespace

std::vector<std::string> complete(lua_State* L, std::string_view line) {
  const CompletionWord w = completion_word(line);
  if (!w.valid) return {};
  const int top = lua_gettop(L);
  Collector c(L, w.partial, w.sep == ':');
  Request r{&w, &c};
  if (!lua_checkstack(L, 4)) return {};
  lua_pushcfunction(L, collect);                    // +1
  lua_pushlightuserdata(L, &r);                     // +1
  const bool ok = lua_pcall(L, 1, 0, 0) == LUA_OK;  // -2 (+1 message)
  lua_settop(L, top);
  if (!ok) return {};  // names found before the error are not a reliable answer
  if (w.path.empty())
    for (const char* k : kKeywords)
      if (std::string_view(k).substr(0, w.partial.size()) == w.partial) c.names.insert(k);
  return {c.names.begin(), c.names.end()};
}

std::string common_prefix(const std::vector<std::string>& words) {
  if (words.empty()) return {};
  std::string p = words.front();
  for (const auto& w : words) {
    size_t i = 0;
    while (i < p.size() && i < w.size() && p[i] == w[i]) ++i;
    p.resize(i);
  }
  return p;
}

}  // namespace warplab::app::repl
