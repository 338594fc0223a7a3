// cli/lines.cpp: the --lines options (lines.hpp).
#include "app/cli/lines.hpp"

#include "lab/lines.hpp"

namespace warplab::app {

std::vector<std::string> LineArgs::words() const {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= set.size()) {
    std::size_t comma = set.find(',', at);
    if (comma == std::string::npos) comma = set.size();
    const std::string w = set.substr(at, comma - at);
    const auto b = w.find_first_not_of(" \t"), e = w.find_last_not_of(" \t");
    if (b != std::string::npos) out.push_back(w.substr(b, e - b + 1));
    at = comma + 1;
  }
  return out;
}

CLI::Option* add_line_options(CLI::App* sub, LineArgs& a, bool sass) {
  // A flag with an optional value (--lines, --lines=shared,global): a flag never takes the
  // next word, which is the script's.
  CLI::Option* lines =
      sub->add_flag("--lines{counts}", a.set,
                    std::string("after the script, each kernel's source lines with what the GPU did on each: "
                                "--lines=SET[,SET] picks the columns: ") +
                        lab::kLineSets)
          ->type_name("[=SET,...]");
  if (sass)
    sub->add_flag("--sass", a.sass, "with --lines, each line's SASS instructions under it")->needs(lines);
  return lines;
}

}  // namespace warplab::app
