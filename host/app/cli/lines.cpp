// cli/lines.cpp: the --lines options (lines.hpp).
#include "app/cli/lines.hpp"

#include "lab/lines.hpp"
#include "sys/text.hpp"

namespace warplab::app {

std::vector<std::string> LineArgs::words() const {
  std::vector<std::string> out;
  for (const std::string& piece : sys::split(set, ','))
    if (std::string w = sys::trim(piece); !w.empty()) out.push_back(std::move(w));
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
