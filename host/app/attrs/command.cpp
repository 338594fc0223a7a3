// attrs/command.cpp: `warplab attrs [PATTERN ...] [--device N|all] [--profile P]
// [--json|--csv] [--diff A B] [-o FILE]`: every device attribute, grouped, with units and meaning; the
// profile JSON a later `--profile FILE` reads back; or two devices/profiles compared (exit 1
// when they differ, as diff).
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>

#include "app/attrs/render.hpp"
#include "app/cli/command.hpp"
#include "cu/driver.hpp"
#include "cu/profile.hpp"
#include "sys/output.hpp"
#include "sys/write.hpp"

namespace warplab::app {
namespace {

// What CLI11 fills in. Kept as strings where the CLI accepts more than one shape
// (--device N|all), so the check lives in one validator and the meaning in targets().
struct AttrsOptions {
  std::vector<std::string> patterns;
  std::string device;   // "" (not given), "N" or "all"
  std::string profile;  // "" (not given)
  bool json = false, csv = false, no_color = false;
  std::vector<std::string> diff;  // exactly two operands when given
  std::string output;             // -o FILE: a new file instead of stdout ("": stdout)
  bool output_given = false;      // -o "" is an error, not "no -o"
};

// A plain non-negative decimal that fits an int: "0", "12"; not "-1", "1e3" or "".
bool is_index(const std::string& s) {
  return !s.empty() && s.size() < 9 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Live GPUs only: a hint names what works without one.
void require_driver(const std::string& what) {
  const auto why = cu::driver_unavailable();
  if (!why) return;
  const std::string dflt = cu::default_profile_name();
  throw Error(ErrorKind::no_gpu, *why + " (" + what + " needs a GPU; use --profile " +
                                     (dflt.empty() ? "FILE" : dflt) + " to work from a captured device)");
}

// A --diff operand: a device index, else a profile name or file.
cu::DeviceSnapshot resolve_operand(const std::string& s) {
  if (!is_index(s)) return cu::load_profile(s);
  require_driver("device " + s);
  return cu::snapshot_device(std::stoi(s));
}

// The snapshots to show: every live GPU, or the one device or profile the options and
// globals select. Without a GPU it falls back to the default profile with the one-line
// note, as every command does, unless a live device was asked for by index (exit 3).
std::vector<cu::DeviceSnapshot> targets(const AttrsOptions& o, const Globals& g) {
  if (o.device == "all") {
    require_driver("--device all");
    std::vector<cu::DeviceSnapshot> out;
    const int n = cu::device_count();
    if (n == 0) throw Error(ErrorKind::no_gpu, "no CUDA device: the driver found no GPU");
    for (int i = 0; i < n; ++i) out.push_back(cu::snapshot_device(i));
    return out;
  }
  // The subcommand's own --device/--profile win over the global ones (and over
  // WARPLAB_PROFILE): an explicit `attrs --device 1` means the live GPU.
  Globals local = g;
  if (!o.device.empty()) {
    local.opts.device = std::stoi(o.device);
    local.opts.profile.clear();
  }
  if (!o.profile.empty()) local.opts.profile = o.profile;
  return {select_target(local, /*fallback=*/o.device.empty())};
}

// What attrs prints, into `out` (stdout, or the -o file's text). Its exit status.
int render(const AttrsOptions& o, const Globals& g, std::ostream& out) {
  // Colour is for people at a terminal: never into a pipe or file, and never when the
  // user or NO_COLOR (read in main) said no.
  const bool color = o.output.empty() && !o.no_color && g.opts.color && isatty(STDOUT_FILENO) &&
                     std::string_view(std::getenv("TERM") ? std::getenv("TERM") : "") != "dumb";
  if (!o.diff.empty()) {
    // Patterns restrict the diff too: `attrs --diff 0 h100 shared` compares shared memory.
    const std::vector<cu::DeviceSnapshot> two = {resolve_operand(o.diff[0]), resolve_operand(o.diff[1])};
    const std::vector<std::string> names = select_attributes(two, o.patterns);
    const bool differ =
        o.json ? print_diff_json(out, two[0], two[1], names) : print_diff(out, two[0], two[1], names, color);
    return differ ? kFailed : kOk;
  }
  std::vector<cu::DeviceSnapshot> snaps = targets(o, g);
  const std::vector<std::string> names = select_attributes(snaps, o.patterns);
  const bool all = o.device == "all";
  if (o.json) {
    // Keep only the selected attributes. With a pattern the result is a listing, not a
    // profile: --profile refuses it when loaded (cu/profile_read.cpp: a partial listing).
    for (cu::DeviceSnapshot& s : snaps)
      std::erase_if(s.attributes, [&](const auto& kv) {
        return std::find(names.begin(), names.end(), kv.first) == names.end();
      });
    out << (all ? cu::profile_text(snaps) : cu::profile_text(snaps.front()));
  } else if (o.csv) {
    print_csv(out, snaps, names, all);
  } else {
    for (size_t i = 0; i < snaps.size(); ++i) {
      if (i) out << "\n";
      print_text(out, snaps[i], names, color, g.opts.quiet);
    }
  }
  return kOk;
}

// -o FILE: the output written whole through the one writer, into a new file only (a
// captured profile is never lost to a second run): an existing FILE, a link, a folder or a
// failed write (a full disk: the reason is said) is exit 4, as any file named that fails.
constexpr const char* kNewFileOnly = " (attrs -o writes a new file: remove it or pick another name)";

int write_output(const AttrsOptions& o, const std::string& text, int rc) {
  const sys::WriteResult w = sys::write_file(o.output, text, sys::Replace::never);
  if (w.status == sys::WriteResult::Status::exists)
    throw Error(ErrorKind::bad_input, "-o: " + w.message + kNewFileOnly);
  if (!w) throw Error(ErrorKind::bad_input, "-o: " + w.message);
  return rc;
}

// -o FILE, checked before anything is read (sys/output.hpp): a new file only, never a
// profile file the command reads, a folder, a folder that is not there or a link.
void check_output(const AttrsOptions& o, const Globals& g) {
  std::vector<sys::NamedInput> inputs;
  for (const std::string& p : {g.opts.profile, o.profile})
    if (!p.empty() && !cu::find_embedded_profile(p)) inputs.push_back({p, "the profile"});
  for (const std::string& d : o.diff)
    if (!is_index(d) && !cu::find_embedded_profile(d)) inputs.push_back({d, "a profile of --diff"});
  if (const auto why = sys::output_refusal(o.output, sys::Replace::never, inputs))
    throw Error(ErrorKind::bad_input, "-o: " + *why + (why->ends_with("already exists") ? kNewFileOnly : ""));
}

int run_attrs(const AttrsOptions& o, const Globals& g) {
  if (o.output_given && o.output.empty()) throw Error(ErrorKind::usage, "-o needs a file name: -o FILE");
  if (!o.output.empty()) check_output(o, g);
  std::ostringstream file;
  std::ostream& out = o.output.empty() ? std::cout : static_cast<std::ostream&>(file);
  const int rc = render(o, g, out);
  return o.output.empty() ? rc : write_output(o, file.str(), rc);
}

}  // namespace

void add_attrs_command(CLI::App& app, const Globals& g, Commands& out) {
  // The options outlive this function: CLI11 writes into them during parse() and the
  // Command's run() reads them after, so they are shared with the closure.
  auto o = std::make_shared<AttrsOptions>();
  auto* sub = app.add_subcommand(
      "attrs", "device attributes: all of them, grouped, or those matching globs/substrings");
  sub->add_option("patterns", o->patterns,
                  "globs matched against names ('*shared*'), or case-insensitive substrings "
                  "of names, units and meanings (warp, bytes)")
      ->type_name("ATTR");
  sub->add_option("--device", o->device, "a device index, or 'all' (overrides the global --device)")
      // Validated here so a bad value is a usage error (exit 2) with CLI11's message.
      ->check([](const std::string& s) {
        return s == "all" || is_index(s) ? std::string()
                                         : "must be a device index (0, 1, ...) or 'all', not '" + s + "'";
      })
      ->type_name("N|all");
  auto* profile =
      sub->add_option("--profile", o->profile, profile_help("read a device profile instead of a GPU"))
          ->check(profile_name())
          ->type_name("PROFILE");
  auto* json = sub->add_flag("--json", o->json,
                             "print the profile JSON (--device all: an array); with --diff, the "
                             "differences as JSON");
  auto* csv = sub->add_flag("--csv", o->csv, "print name,value,unit,group,meaning");
  json->excludes(csv);
  sub->add_flag("--no-color", o->no_color, "no ANSI colours");
  sub->add_option_function<std::string>(
         "-o,--output",
         [o](const std::string& v) {
           o->output = v;
           o->output_given = true;
         },
         "write the output to this new file instead of stdout (an existing file is refused)")
      ->type_name("FILE");
  auto* diff = sub->add_option("--diff", o->diff,
                               "compare two devices or profiles: each a device index or a profile name/file")
                   ->expected(2)
                   ->allow_extra_args(false)  // a third word is a PATTERN, not a third operand
                   ->type_name("PROFILE");
  // Combinations with no sensible meaning are refused before anything runs.
  diff->excludes(csv)->excludes(profile);
  sub->get_option("--device")->excludes(diff);
  sub->get_option("--device")->excludes(profile);
  set_help(sub,
           {"warplab attrs shared warp", "warplab attrs --profile h100 --json > h100.json",
            "warplab attrs --diff 0 h100 --json   # exit 1 when they differ"},
           "Exit status: 0; 1 --diff found differences; 2 bad options; 3 --device N|all or a "
           "--diff device index without that GPU; 4 bad profile or a pattern matching nothing.\n");
  out.push_back({sub, [o, &g] { return run_attrs(*o, g); }});
}

}  // namespace warplab::app
