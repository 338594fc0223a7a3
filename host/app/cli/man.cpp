// cli/man.cpp: the hidden `warplab man`: the manual page (roff, man(7) macros) written from
// the CLI11 definition itself, as the completion scripts are, so it cannot drift: every
// listed command with its arguments, options, examples and notes, the global options, the
// environment table (environment.cpp) and the exit codes. The build writes it and installs
// it as share/man/man1/warplab.1.gz (cmake/completions.cmake).
#include <iostream>

#include "app/cli/command.hpp"

namespace warplab::app {
namespace {

// Text for a roff line: backslashes written \e, hyphens \- (so they stay ASCII and copy as
// typed), and a line that would start with . or ' (a request) protected with \&.
std::string roff(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

// "\fB\-p\fR, \fB\-\-param\fR \fIKEY=VALUE\fR"
std::string option_head(const CLI::Option& o) {
  std::string out;
  for (const std::string& s : o.get_snames())
    out += (out.empty() ? "" : ", ") + ("\\fB" + roff("-" + s) + "\\fR");
  for (const std::string& l : o.get_lnames())
    out += (out.empty() ? "" : ", ") + ("\\fB" + roff("--" + l) + "\\fR");
  if (const std::string v = value_name(o); o.get_expected_max() != 0 && !v.empty()) {
    out += " \\fI" + roff(v) + "\\fR";
    if (o.get_expected_min() == 2) out += " \\fI" + roff(v) + "\\fR";
  }
  return out;
}

void options(std::ostream& out, const std::vector<const CLI::Option*>& opts) {
  for (const CLI::Option* o : opts)
    out << ".TP\n" << option_head(*o) << "\n" << roff(o->get_description()) << "\n";
}

// A paragraph of plain text: one roff line per source line, blank lines as paragraph breaks.
void text(std::ostream& out, const std::string& s) {
  std::size_t start = 0;
  while (start < s.size()) {
    std::size_t end = s.find('\n', start);
    if (end == std::string::npos) end = s.size();
    const std::string line = s.substr(start, end - start);
    out << (line.empty() ? ".PP" : roff(line)) << "\n";
    start = end + 1;
  }
}

void command(std::ostream& out, const CLI::App& sub) {
  std::string synopsis = "warplab " + sub.get_name();
  std::vector<const CLI::Option*> own;
  for (const CLI::Option* o : sub.get_options()) {
    if (o->get_positional()) {
      const std::string v = value_name(*o);
      synopsis += " " + (o->get_required() ? v : "[" + v + (o->get_expected_max() > 1 ? " ...]" : "]"));
    } else if (!o->get_group().empty() && o->get_lnames() != std::vector<std::string>{"help"}) {
      own.push_back(o);
    }
  }
  if (!own.empty()) synopsis.insert(("warplab " + sub.get_name()).size(), " [OPTIONS]");
  out << ".SS \"" << roff(synopsis) << "\"\n" << roff(sub.get_description()) << ".\n";
  for (const CLI::Option* o : sub.get_options())
    if (o->get_positional())
      out << ".TP\n\\fI" << roff(value_name(*o)) << "\\fR\n" << roff(o->get_description()) << "\n";
  options(out, own);
  const HelpNotes notes = help_notes(&sub);
  if (!notes.examples.empty()) {
    out << ".PP\nExamples:\n.RS\n.nf\n";
    for (const std::string& e : notes.examples) out << roff(e) << "\n";
    out << ".fi\n.RE\n";
  }
  if (!notes.more.empty()) {
    out << ".PP\n";
    text(out, notes.more);
  }
}

// The codes of exit_codes.hpp, as docs/exit-codes.md words them (tests/cli/man.sh
// checks that the two list the same codes).
struct Code {
  int code;
  const char* meaning;
};
constexpr Code kCodes[] = {
    {kOk, "success, also offline on a profile"},
    {kFailed,
     "a script raised an error or a check failed; attrs --diff or compile --diff found differences; the "
     "disassembler failed"},
    {kUsage, "bad command line (an unknown command or option, a missing or bad value)"},
    {kNoDevice, "a GPU was needed and there is none, or a value the profile does not know"},
    {kBadInput,
     "unreadable or malformed input (a file, a profile, a pattern, a -p value), or a file that must not or "
     "cannot be written"},
    {kCompileError, "NVRTC rejected the source (in run: a script raised its diagnostics)"},
    {kCudaError, "a CUDA driver call failed"},
    {kTimeout, "the kernel watchdog (--timeout) fired"},
    {kNoSanitizer,
     "a CUDA tool warplab runs was not found (compute-sanitizer; nvdisasm, which cuobjdump needs for SASS)"},
    {kSanitizerFindings, "run --sanitize: compute-sanitizer reported errors"},
    {kInternal, "an internal error in warplab (a bug)"},
};

}  // namespace

void write_man_page(std::ostream& out, const CLI::App& app) {
  out << ".\\\" warplab.1: written by `warplab man` from warplab's command-line definition.\n"
      << ".TH WARPLAB 1 \"\" \"warplab " << WARPLAB_VERSION << "\" \"User Commands\"\n"
      << ".nh\n.ad l\n"  // no hyphenation, no justification: option names copy as typed
      << ".SH NAME\nwarplab \\- " << roff(app.get_description().substr(app.get_description().find(": ") + 2))
      << "\n.SH SYNOPSIS\n.B warplab\n[\\fIGLOBAL OPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR] "
         "[\\fB\\-\\-\\fR \\fISCRIPT ARGS\\fR]\n.br\n.B warplab help\n[\\fICOMMAND\\fR]\n"
      << ".SH DESCRIPTION\n"
      << "warplab compiles CUDA kernels at run time with NVRTC, drives the GPU through the CUDA driver API "
         "and runs Lua 5.4 experiment scripts that launch kernels, check what the GPU did and print it. "
         "Without a GPU it works from a device profile: it compiles, reports resource use and predicts "
         "occupancy, and says in one line that it does.\n.PP\n"
      << "Global options work before or after the command. After the script of \\fBrun\\fR and "
         "\\fBwatch\\fR, words that are not warplab's options go to the script; \\fB\\-\\-\\fR hands "
         "everything after it to the script. \\fBwarplab\\fR alone prints a short help and exits 0.\n"
      << ".SH COMMANDS\n";
  for (const CLI::App* sub : listed_commands(app)) command(out, *sub);
  out << ".SH GLOBAL OPTIONS\n";
  options(out, listed_options(app));
  out << ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nprint the help (of the command, after one)\n"
      << ".TP\n\\fB\\-V\\fR, \\fB\\-\\-version\\fR\nprint warplab's, NVRTC's and the driver's versions\n";
  out << ".SH ENVIRONMENT\n";
  for (const EnvVar& v : environment()) out << ".TP\n.B " << roff(v.name) << "\n" << roff(v.meaning) << "\n";
  out << ".SH FILES\n";
  for (const EnvVar& f : files()) out << ".TP\n" << roff(f.name) << "\n" << roff(f.meaning) << "\n";
  out << ".SH EXIT STATUS\n";
  for (const Code& c : kCodes) out << ".TP\n.B " << c.code << "\n" << roff(c.meaning) << "\n";
  out << ".SH SEE ALSO\n"
      << "\\fBwarplab completion bash|zsh\\fR writes a shell completion script. The full documentation: "
         "README.md and docs/ (cli.md, lua\\-api.md, exit\\-codes.md) in /usr/share/doc/warplab or the "
         "source tree.\n";
}

void add_man_command(CLI::App& app, Commands& out) {
  auto* sub = app.add_subcommand("man", "print warplab's manual page (roff)");
  sub->group("");  // hidden: the build writes share/man/man1/warplab.1.gz with it
  set_help(sub, {"warplab man > warplab.1 && man -l warplab.1", "warplab man | groff -man -Tutf8 | less"});
  out.push_back({sub, [&app] {
                   write_man_page(std::cout, app);
                   return kOk;
                 }});
}

}  // namespace warplab::app
