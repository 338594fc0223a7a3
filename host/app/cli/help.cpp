// cli/help.cpp: the help every command shows: CLI11's option lines without its artefacts
// (a validator's name after the value, "--device N:N"; "Excludes: --json" after the
// names, said as "(not with --json)" after the description), the footer of each subcommand's
// --help (examples, the global options read from the app when help is printed, notes), the
// short help of a bare `warplab`, `warplab help [COMMAND]`, and "unknown command 'attr';
// did you mean 'attrs'?".
#include <algorithm>
#include <cctype>
#include <iostream>
#include <map>
#include <sstream>

#include "app/cli/command.hpp"
#include "sys/shown.hpp"
#include "sys/text.hpp"

namespace warplab::app {
namespace {

// What set_help was given, per subcommand: the man page reads it back (help_notes).
std::map<const CLI::App*, HelpNotes>& notes_by_app() {
  static std::map<const CLI::App*, HelpNotes> notes;
  return notes;
}

// "-q,--quiet" or "--profile PROFILE", as CLI11's own option lines read.
std::string option_label(const CLI::Option& o) {
  std::string names;
  for (const std::string& s : o.get_snames()) names += (names.empty() ? "-" : ",-") + s;
  for (const std::string& l : o.get_lnames()) names += (names.empty() ? "--" : ",--") + l;
  if (const std::string v = value_name(o); o.get_expected_max() != 0 && !v.empty()) names += " " + v;
  return names;
}

// CLI11's option line, with the value's name as given to type_name() alone: CLI11 appends
// each validator's description after a colon ("N:N", "info|clear:{info,clear}").
class Formatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* opt) const override {
    std::string out = CLI::Formatter::make_option_opts(opt);
    const std::string full = opt->get_type_name(), plain = value_name(*opt);
    if (full != plain && out.rfind(" " + full, 0) == 0) out = " " + plain + out.substr(full.size() + 1);
    // CLI11's " Excludes: --ptx --sass" (last on the line): said in the description instead.
    if (const auto at = out.find(" Excludes:"); at != std::string::npos) out.erase(at);
    return out;
  }
  // The description, then "(not with --ptx, --sass)" for options that exclude others.
  std::string make_option_desc(const CLI::Option* opt) const override {
    std::string out = CLI::Formatter::make_option_desc(opt);
    std::vector<std::string> names;
    for (const CLI::Option* o : opt->get_excludes()) names.push_back(o->get_name());
    if (!names.empty()) out += " (not with " + sys::join(names, ", ") + ")";
    return out;
  }
};

}  // namespace

std::string value_name(const CLI::Option& o) {
  const std::string t = o.get_type_name();
  return t.substr(0, t.find(':'));
}

std::shared_ptr<CLI::FormatterBase> help_formatter() { return std::make_shared<Formatter>(); }

std::string global_options_text(const CLI::App& app, const CLI::App* sub) {
  const std::vector<const CLI::Option*> opts = listed_options(app);
  std::size_t width = 0;
  for (const CLI::Option* o : opts) width = std::max(width, option_label(*o).size());
  std::ostringstream out;
  for (const CLI::Option* o : opts) {
    const std::string label = option_label(*o);
    // After this subcommand an option of its own with the same name takes the word.
    bool shadowed = false;
    for (const std::string& l : o->get_lnames())
      shadowed = shadowed || (sub && sub->get_option_no_throw("--" + l) != nullptr);
    out << "  " << label << std::string(width - label.size() + 2, ' ') << o->get_description()
        << (shadowed ? " (before the subcommand only: after it, the option above)" : "") << "\n";
  }
  return out.str();
}

std::vector<const CLI::Option*> listed_options(const CLI::App& app) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_group().empty() || o->get_positional()) continue;  // hidden
    const std::vector<std::string>& l = o->get_lnames();
    if (std::find(l.begin(), l.end(), "help") != l.end() ||
        std::find(l.begin(), l.end(), "version") != l.end())
      continue;
    out.push_back(o);
  }
  return out;
}

void set_help(CLI::App* sub, std::vector<std::string> examples, std::string more) {
  notes_by_app()[sub] = {examples, more};
  // Read when help is printed: by then the app holds every global option.
  sub->footer([sub, examples = std::move(examples), more = std::move(more)] {
    std::string out = "Examples:\n";
    for (const std::string& e : examples) out += "  " + e + "\n";
    const CLI::App* app = sub->get_parent();
    while (app && app->get_parent()) app = app->get_parent();
    if (app) out += "\nGlobal options (before or after the subcommand):\n" + global_options_text(*app, sub);
    if (!more.empty()) out += "\n" + more;
    while (!out.empty() && out.back() == '\n') out.pop_back();  // CLI11 ends the help itself
    return out;
  });
}

HelpNotes help_notes(const CLI::App* sub) {
  const auto it = notes_by_app().find(sub);
  return it == notes_by_app().end() ? HelpNotes{} : it->second;
}

std::vector<const CLI::App*> listed_commands(const CLI::App& app) {
  std::vector<const CLI::App*> out;
  for (const CLI::App* sub : app.get_subcommands({}))
    if (!sub->get_group().empty()) out.push_back(sub);
  return out;
}

std::string short_help(const CLI::App& app) {
  std::ostringstream out;
  out << app.get_description() << "\n\nUsage: warplab [GLOBAL OPTIONS] COMMAND [ARGS]\n\nCommands:\n";
  const std::vector<const CLI::App*> subs = listed_commands(app);
  std::size_t width = 0;
  for (const CLI::App* s : subs) width = std::max(width, s->get_name().size());
  for (const CLI::App* s : subs)
    out << "  " << s->get_name() << std::string(width - s->get_name().size() + 2, ' ') << s->get_description()
        << "\n";
  out << "\nStart here: warplab run tour.lua (warplab list names every example; run one by\n"
         "that name, e.g. warplab run warps/ids.lua).\n"
         "warplab help COMMAND shows a command's options and examples; warplab --help the global\n"
         "options, the environment and where files go.\n";
  return out.str();
}

std::string unknown_command(const CLI::App& app, const std::string& word) {
  std::string msg = "unknown command '" + sys::shown(word) + "'";
  // A script given without `run`: say how to run it.
  if (word.size() > 4 && word.ends_with(".lua")) return msg + "; did you mean 'warplab run " + word + "'?";
  std::string best;
  std::size_t best_d = 3;  // at most 2 edits
  for (const CLI::App* s : listed_commands(app)) {
    const std::string& n = s->get_name();
    std::size_t d = sys::edit_distance(word, n);
    if (word.size() >= 2 && n.rfind(word, 0) == 0) d = std::min<std::size_t>(d, 1);  // a prefix
    if (d < best_d && d < std::max<std::size_t>(n.size(), 2)) best = n, best_d = d;
  }
  if (!best.empty()) return msg + "; did you mean '" + best + "'?";
  std::string names;
  for (const CLI::App* s : listed_commands(app)) names += (names.empty() ? "" : ", ") + s->get_name();
  return msg + " (commands: " + names + ")";
}

std::string unknown_option(const CLI::App& app, const std::string& word) {
  const std::string name = word.substr(0, word.find('='));
  std::string msg = "unknown option '" + sys::shown(name) + "'";
  std::string best;
  std::size_t best_d = 3;  // at most 2 edits
  for (const CLI::Option* o : app.get_options())
    for (const std::string& n : o->get_lnames())
      if (const std::size_t d = sys::edit_distance(name, "--" + n); d < best_d) best = "--" + n, best_d = d;
  if (!best.empty()) return msg + "; did you mean '" + best + "'?";
  return msg + " (`warplab --help` lists the global options; a command's own go after it)";
}

std::string unknown_option_after(const CLI::App& app, const CLI::App& sub,
                                 const std::vector<std::string>& words) {
  auto takes = [](const CLI::App& a, const std::string& name) {
    for (const CLI::Option* o : a.get_options()) {
      if (name.rfind("--", 0) == 0 && o->check_lname(name.substr(2))) return true;
      if (name.size() == 2 && name[0] == '-' && o->check_sname(name.substr(1))) return true;
    }
    return false;
  };
  for (const std::string& w : words) {
    if (w.size() < 2 || w[0] != '-' || std::isdigit(static_cast<unsigned char>(w[1])) || w[1] == '.')
      continue;
    // "--name=value", "-Dvalue": the name alone; a short option with its value glued on is taken.
    const std::string name = w.rfind("--", 0) == 0 ? w.substr(0, w.find('=')) : w.substr(0, 2);
    if (takes(sub, name) || takes(app, name)) continue;
    const std::string cmd = sub.get_name();
    std::string msg = cmd + ": unknown option '" + sys::shown(name) + "'";
    std::string best;
    std::size_t best_d = 3;  // at most 2 edits
    for (const CLI::App* a : {&sub, &app})
      for (const CLI::Option* o : a->get_options())
        for (const std::string& n : o->get_lnames())
          if (const std::size_t d = sys::edit_distance(name, "--" + n); d < best_d)
            best = "--" + n, best_d = d;
    if (best.empty() && name.size() == 2) {  // `-p`: the one long option of the command it starts
      std::vector<std::string> starts;
      for (const CLI::Option* o : sub.get_options())
        for (const std::string& n : o->get_lnames())
          if (n[0] == name[1]) starts.push_back("--" + n);
      if (starts.size() == 1) best = starts[0];
    }
    if (!best.empty()) return msg + "; did you mean '" + best + "'?";
    return msg + " (`warplab " + cmd + " --help` lists its options)";
  }
  return "";
}

// The first word that is not a global option or its value: the command; or an option
// that no global option is (returned as it is, starting with '-'), since what follows it
// would otherwise be taken for the command ("unknown command 'h100'" for `--prøfile h100`).
std::string command_word(const CLI::App& app, const std::vector<std::string>& words) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (w.empty() || w[0] != '-') return w;
    if (w.size() < 2) continue;
    const CLI::Option* o = app.get_option_no_throw(w.substr(0, w.find('=')));
    if (!o) return w;
    // A global option that takes a value: the next word is that value (--profile x).
    if (w.find('=') == std::string::npos && o->get_expected_max() != 0) ++i;
  }
  return {};
}

void add_help_command(CLI::App& app, Commands& out) {
  auto name = std::make_shared<std::string>();
  auto* sub = app.add_subcommand("help", "show the help of a command, or of warplab");
  sub->add_option("command", *name,
                  "the command, or `environment` for every variable warplab reads (default: warplab itself)")
      ->type_name("TOPIC");
  set_help(sub, {"warplab help run", "warplab help attrs", "warplab help environment"});
  out.push_back(
      {sub, [name, &app] {
         if (*name == kEnvironmentTopic) {
           std::cout << environment_text(true);
           return kOk;
         }
         // Through the formatter: app.help() would show the parsed `help` itself.
         if (name->empty()) {
           std::cout << app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal);
           return kOk;
         }
         for (const CLI::App* cmd : app.get_subcommands({}))
           if (cmd->get_name() == *name) {
             std::cout << cmd->help(app.get_name());
             return kOk;
           }
         // `help env`, `help enviroment`: the topic, before the nearest command.
         const std::string topic(kEnvironmentTopic);
         if ((name->size() >= 3 && topic.rfind(*name, 0) == 0) || sys::edit_distance(*name, topic) <= 2)
           throw Error(ErrorKind::usage, "no command or help topic '" + sys::shown(*name) +
                                             "'; did you mean 'environment' (every variable warplab reads)?");
         throw Error(ErrorKind::usage, unknown_command(app, *name));
       }});
}

}  // namespace warplab::app
