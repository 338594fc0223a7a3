// cli/completion.cpp: the hidden `warplab completion bash|zsh`: a script written from the
// CLI11 definition itself, so it never lags behind the program. A value completes by its
// option's type name: PROFILE, ARCH, TOOL (cli/sanitize.hpp), ATTR (cu/attributes.hpp),
// SCRIPT.lua (files, and the shipped examples by their `warplab list` names), FILE.cu
// (files), DIR, FILE, COMMAND (the commands), TOPIC (`help`'s: the commands and
// `environment`), WORD and SET[,SET] (counter sets and short names: `counters`,
// `--counters`), KEY=VALUE (the parameters the script declares, from `warplab run SCRIPT
// --params`), and literal lists such as "info|clear".
#include <algorithm>
#include <cctype>
#include <iostream>
#include <regex>
#include <sstream>

#include "app/cli/command.hpp"
#include "app/cli/sanitize.hpp"
#include "cu/attributes.hpp"
#include "cu/profile.hpp"
#include "lab/counters.hpp"
#include "sys/text.hpp"

namespace warplab::app {
namespace {

struct Opt {
  std::vector<std::string> names;  // "-q", "--quiet"
  std::string type;                // the value's type name; "" for a flag
  std::string help;
  int values = 0;       // values per use: 0 (flag), 1, 2 (--diff A B)
  bool repeat = false;  // may be given more than once (-p, -D, --kernel)
};
struct Cmd {
  std::string name, help;
  std::vector<Opt> opts;   // its own, then the globals it does not shadow
  std::size_t own = 0;     // how many of `opts` are its own
  std::string positional;  // the first positional's type name ("" when none)
};

Opt describe(const CLI::Option& o) {
  Opt out;
  for (const std::string& s : o.get_snames()) out.names.push_back("-" + s);
  for (const std::string& l : o.get_lnames()) out.names.push_back("--" + l);
  out.help = o.get_description();
  if (o.get_expected_max() != 0) {  // 0: a flag
    out.type = value_name(o);
    out.values = o.get_expected_min() == 2 ? 2 : 1;
    out.repeat = out.values == 1 && o.get_expected_max() > 1;
  }
  return out;
}

// The listed commands, for COMMAND and TOPIC values (`warplab help <TAB>`).
std::vector<std::string> command_names;

std::vector<Cmd> model(const CLI::App& app) {
  std::vector<Opt> globals;
  for (const CLI::Option* o : listed_options(app)) globals.push_back(describe(*o));
  std::vector<Cmd> out{{"", app.get_description(), globals, 0, "COMMAND"}};
  command_names.clear();
  for (const CLI::App* sub : listed_commands(app)) {  // not the hidden completion and man
    command_names.push_back(sub->get_name());
    Cmd c{sub->get_name(), sub->get_description(), {}, 0, ""};
    std::vector<std::string> own;
    for (const CLI::Option* o : sub->get_options()) {
      if (o->get_positional()) {
        if (c.positional.empty()) c.positional = value_name(*o);
      } else if (!o->get_group().empty() && o->get_lnames() != std::vector<std::string>{"help"}) {
        c.opts.push_back(describe(*o));
        own.insert(own.end(), c.opts.back().names.begin(), c.opts.back().names.end());
      }
    }
    c.own = c.opts.size();
    for (const Opt& g : globals)  // a subcommand's own option of that name wins after it
      if (std::find(own.begin(), own.end(), g.names.back()) == own.end()) c.opts.push_back(g);
    out.push_back(std::move(c));
  }
  return out;
}

// The words a value kind stands for, when it is a closed list.
std::vector<std::string> words_for(const std::string& type) {
  std::vector<std::string> out;
  if (type == "PROFILE")
    for (const cu::EmbeddedProfile& p : cu::embedded_profiles()) out.emplace_back(p.name);
  else if (type == "ARCH")
    out = arch_choices();
  else if (type == "TOOL")
    out = sanitize::tools();
  else if (type == "ATTR")
    for (const cu::AttributeInfo& a : cu::attribute_table()) out.emplace_back(a.name);
  else if (type == "COMMAND")
    out = command_names;
  else if (type == "TOPIC") {  // `warplab help <TAB>`: the commands and the environment
    out = command_names;
    out.emplace_back(kEnvironmentTopic);
  } else if (type == "WORD" || type == "SET[,SET]") {  // `counters WORD`, `--counters SET`: the names
    if (type != "WORD") out.emplace_back("list");
    for (const lab::CounterSet& s : lab::counter_sets()) out.emplace_back(s.name);
    for (const lab::CounterSet& s : lab::counter_sets())
      for (const lab::CounterDef& d : s.metrics)
        if (std::find(out.begin(), out.end(), d.name) == out.end()) out.emplace_back(d.name);
  } else if (type == "SCRIPT.lua")  // the examples by name (`run warps/ids.lua`), besides files
    out = example_names();
  else if (type.find('|') != std::string::npos) {
    std::istringstream in(type);
    for (std::string w; std::getline(in, w, '|');)
      if (!w.empty() && std::islower(static_cast<unsigned char>(w[0]))) out.push_back(w);
  }
  return out;
}

// Files a value kind stands for: ".lua", ".cu", ".json", "/" (folders), "*" (any), "".
std::string files_for(const std::string& type) {
  if (type == "PROFILE") return ".json";
  if (type == "DIR") return "/";
  if (type == "FILE" || type == "ARGS") return "*";
  static const std::regex ext(R"re(^[A-Z]+(\.[a-z]+)$)re");  // SCRIPT.lua, FILE.cu
  std::smatch m;
  return std::regex_match(type, m, ext) ? m[1].str() : std::string();
}

// One bash statement filling COMPREPLY for a value kind.
std::string bash_values(const std::string& type) {
  if (type == "KEY=VALUE") return "_warplab_params; ";
  std::string s;
  if (const auto w = words_for(type); !w.empty())
    s += "COMPREPLY+=($(compgen -W \"" + sys::join(w, " ") + "\" -- \"$cur\")); ";
  if (const std::string f = files_for(type); !f.empty()) s += "_warplab_files '" + f + "'; ";
  return s.empty() ? ": ; " : s;
}

void write_bash(std::ostream& out, const std::vector<Cmd>& cmds) {
  out << "# bash completion for warplab, generated by `warplab completion bash` from its\n"
         "# command-line definition. Install: warplab completion bash > "
         "~/.local/share/bash-completion/completions/warplab\n"
         "_warplab_files() {  # $1: an extension, / for folders, * for any file\n"
         "  local IFS=$'\\n'\n"
         "  compopt -o filenames 2>/dev/null\n"
         "  case $1 in\n"
         "    /) COMPREPLY+=($(compgen -d -- \"$cur\")) ;;\n"
         "    \\*) COMPREPLY+=($(compgen -f -- \"$cur\")) ;;\n"
         "    *) COMPREPLY+=($(compgen -d -- \"$cur\") $(compgen -f -X \"!*$1\" -- \"$cur\")) ;;\n"
         "  esac\n"
         "}\n"
         "_warplab_params() {  # the parameters $script declares (warplab run SCRIPT --params), as NAME=\n"
         "  [ -n \"$script\" ] || return\n"
         "  local IFS=$'\\n' s=${script/#\\~/$HOME}\n"
         "  compopt -o nospace 2>/dev/null\n"
         "  COMPREPLY+=($(compgen -W \"$(WARPLAB_NO_DRIVER=1 \"${COMP_WORDS[0]}\" run \"$s\" --params -q "
         "2>/dev/null | awk '{print $1 \"=\"}')\" -- \"$cur\"))\n"
         "}\n"
         "_warplab() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} sub= script= i w\n"
         "  local dashdash=\n"
         "  COMPREPLY=()\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    w=${COMP_WORDS[i]}\n"
         "    case $w in\n"
         "      --) [ -n \"$sub\" ] && dashdash=1 ;;\n"
         "      -*)\n"
         "        case $sub/$w in\n";
  // Words after an option that takes values are those values: not the subcommand, not the
  // script. A subcommand's own option first (attrs --diff takes two; watch --diff none).
  std::vector<std::string> global_takes;
  for (const Opt& o : cmds[0].opts)
    if (o.values) global_takes.insert(global_takes.end(), o.names.begin(), o.names.end());
  for (std::size_t i = 1; i < cmds.size(); ++i)
    for (std::size_t k = 0; k < cmds[i].own; ++k) {
      const Opt& o = cmds[i].opts[k];
      const bool shadows = std::any_of(o.names.begin(), o.names.end(), [&](const std::string& n) {
        return std::find(global_takes.begin(), global_takes.end(), n) != global_takes.end();
      });
      if (o.values || shadows)
        out << "          " << cmds[i].name << "/" << sys::join(o.names, "|" + cmds[i].name + "/") << ") "
            << (o.values ? "((i += " + std::to_string(o.values) + "))" : ":") << " ;;\n";
    }
  if (!global_takes.empty()) out << "          */" << sys::join(global_takes, "|*/") << ") ((i++)) ;;\n";
  std::vector<std::string> subs;
  for (std::size_t i = 1; i < cmds.size(); ++i) subs.push_back(cmds[i].name);
  out << "        esac ;;\n"
         "      *)\n"
         "        if [ -z \"$sub\" ]; then\n"
         "          case \" "
      << sys::join(subs, " ")
      << " \" in *\" $w \"*) sub=$w ;; esac\n"
         "        elif [ -z \"$script\" ]; then script=$w; fi ;;\n"
         "    esac\n"
         "  done\n"
         "  [ -n \"$dashdash\" ] && { _warplab_files '*'; return; }\n"
         "  case $sub/$prev in\n";
  // The value of the option just typed: a subcommand's own options before the globals.
  for (std::size_t i = 1; i < cmds.size(); ++i)
    for (std::size_t k = 0; k < cmds[i].own; ++k)
      if (const Opt& o = cmds[i].opts[k]; o.values)
        out << "    " << cmds[i].name << "/" << sys::join(o.names, "|" + cmds[i].name + "/") << ") "
            << bash_values(o.type) << "return ;;\n";
  for (const Opt& o : cmds[0].opts)
    if (o.values)
      out << "    */" << sys::join(o.names, "|*/") << ") " << bash_values(o.type) << "return ;;\n";
  out << "  esac\n"
         "  case $sub in\n";
  for (const Cmd& c : cmds) {
    std::vector<std::string> names;
    for (const Opt& o : c.opts) names.insert(names.end(), o.names.begin(), o.names.end());
    names.insert(names.end(), {"-h", "--help"});
    out << "    " << (c.name.empty() ? "\"\"" : c.name) << ")\n"
        << "      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W \"" << sys::join(names, " ")
        << "\" -- \"$cur\")); return; fi\n"
        << "      "
        << (c.name.empty() ? "COMPREPLY=($(compgen -W \"" + sys::join(subs, " ") + "\" -- \"$cur\"))"
                           : bash_values(c.positional))
        << " ;;\n";
  }
  out << "  esac\n"
         "}\n"
         "complete -F _warplab warplab\n";
}

// Text inside a zsh single-quoted spec: quotes closed and reopened, and the characters
// _arguments gives a meaning to inside [...] escaped; `colon` also escapes ':' (for the
// message part of a spec and the names of _describe, where it separates fields).
std::string zsh_text(const std::string& s, bool colon = false) {
  std::string out;
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else if (c == '[' || c == ']' || c == '\\' || (colon && c == ':'))
      out += std::string("\\") + c;
    else
      out += c;
  }
  return out;
}

std::string zsh_action(const std::string& type) {
  if (type == "KEY=VALUE") return "_warplab_params";
  std::string alts;
  if (const auto w = words_for(type); !w.empty()) alts += "compadd -- " + sys::join(w, " ") + "; ";
  const std::string f = files_for(type);
  if (f == "/")
    alts += "_files -/";
  else if (f == "*")
    alts += "_files";
  else if (!f.empty())
    alts += "_files -g \"*" + f + "\"";
  return alts.empty() ? " " : "{" + alts + "}";
}

std::string zsh_spec(const Opt& o) {
  std::string value;
  for (int i = 0; i < o.values; ++i) value += ":" + zsh_text(o.type, true) + ":" + zsh_action(o.type);
  const std::string desc = "[" + zsh_text(o.help) + "]" + value;
  if (o.names.size() == 1) return "'" + std::string(o.repeat ? "*" : "") + o.names[0] + desc + "'";
  return "'" + std::string(o.repeat ? "*" : "(" + sys::join(o.names, " ") + ")") + "'{" +
         sys::join(o.names, ",") + "}'" + desc + "'";
}

void write_zsh(std::ostream& out, const std::vector<Cmd>& cmds) {
  out << "#compdef warplab\n"
         "# zsh completion for warplab, generated by `warplab completion zsh` from its\n"
         "# command-line definition. Install: warplab completion zsh > ~/.zfunc/_warplab\n"
         "# (with fpath=(~/.zfunc $fpath) before compinit in ~/.zshrc).\n"
         "_warplab_params() {  # the parameters the script declares (warplab run SCRIPT --params)\n"
         "  local s=${line[1]} ; [[ -n $s ]] || return 1\n"
         "  local -a names\n"
         "  names=(${(f)\"$(WARPLAB_NO_DRIVER=1 $_warplab_cmd run ${~s} --params -q 2>/dev/null |"
         " awk '{print $1 \"=\"}')\"})\n"
         "  compadd -S '' -- $names\n"
         "}\n"
         "_warplab() {\n"
         "  local curcontext=$curcontext state line ret=1 _warplab_cmd=$words[1]\n"
         "  local -a specs\n"
         "  specs=(";
  const std::string help = "'(- *)'{-h,--help}'[print the help]'";
  out << "\n    " << help;
  for (const Opt& o : cmds[0].opts) out << "\n    " << zsh_spec(o);
  out << ")\n"
         "  _arguments -C -A '-*' $specs '1: :->command' '*:: :->args' && ret=0\n"
         "  case $state in\n"
         "    command)\n"
         "      local -a cmds\n"
         "      cmds=(";
  for (std::size_t i = 1; i < cmds.size(); ++i)
    out << "\n        '" << cmds[i].name << ":" << zsh_text(cmds[i].help) << "'";
  out << ")\n"
         "      _describe -t commands 'warplab command' cmds && ret=0 ;;\n"
         "    args)\n"
         "      curcontext=${curcontext%:*:*}:warplab-$line[1]:\n"
         "      case $line[1] in\n";
  for (std::size_t i = 1; i < cmds.size(); ++i) {
    const Cmd& c = cmds[i];
    out << "        " << c.name << ")\n          _arguments \\\n            " << help;
    for (const Opt& o : c.opts) out << " \\\n            " << zsh_spec(o);
    if (!c.positional.empty())
      out << " \\\n            '*:" << zsh_text(c.positional, true) << ":" << zsh_action(c.positional) << "'";
    out << " && ret=0 ;;\n";
  }
  out << "      esac ;;\n"
         "  esac\n"
         "  return ret\n"
         "}\n"
         "_warplab \"$@\"\n";
}

}  // namespace

void add_completion_command(CLI::App& app, Commands& out) {
  auto shell = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("completion", "print a bash or zsh completion script");
  sub->group("");  // hidden from the list of subcommands; `warplab --help` mentions it
  sub->add_option("shell", *shell, "bash or zsh")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh"}))
      ->type_name("bash|zsh");
  set_help(sub, {"warplab completion bash > ~/.local/share/bash-completion/completions/warplab",
                 "warplab completion zsh > ~/.zfunc/_warplab", "source <(warplab completion bash)"});
  out.push_back({sub, [shell, &app] {
                   const std::vector<Cmd> cmds = model(app);
                   if (*shell == "bash")
                     write_bash(std::cout, cmds);
                   else
                     write_zsh(std::cout, cmds);
                   return kOk;
                 }});
}

}  // namespace warplab::app
