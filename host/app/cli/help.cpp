// cli/help.cpp: the footer of each subcommand's --help: two or three example command
// lines, the global options (read from the app when help is printed, so the list is the
// definition's), then the subcommand's notes. Depends on command.hpp (CLI11) only.
#include <algorithm>
#include <sstream>

#include "app/cli/command.hpp"

namespace warplab::app {
namespace {

// "-q,--quiet" or "--profile PROFILE", as CLI11's own option lines read.
std::string option_label(const CLI::Option& o) {
  std::string names;
  for (const std::string& s : o.get_snames()) names += (names.empty() ? "-" : ",-") + s;
  for (const std::string& l : o.get_lnames()) names += (names.empty() ? "--" : ",--") + l;
  if (o.get_expected_max() != 0 && !o.get_type_name().empty()) names += " " + o.get_type_name();
  return names;
}

// The options `warplab --help` lists under its own name, less --help and --version.
std::vector<const CLI::Option*> shown_globals(const CLI::App& app) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* o : app.get_options()) {
    if (o->get_group().empty() || o->get_positional()) continue;  // hidden
    const std::string n = o->get_name();
    if (n == "--help" || n == "--version" || n == "-h,--help") continue;
    out.push_back(o);
  }
  return out;
}

}  // namespace

std::string global_options_text(const CLI::App& app, const CLI::App* sub) {
  const std::vector<const CLI::Option*> opts = shown_globals(app);
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

void set_help(CLI::App* sub, std::vector<std::string> examples, std::string more) {
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

}  // namespace warplab::app
