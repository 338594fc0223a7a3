// lab_module_test.cpp: the Lua-free module logic of host/lab: defines checked one entry
// at a time and in plain C++ (sentences, order), the -lineinfo spellings, kernel files
// found as given / next to the calling script / missing, inline sources placed at their
// line in the calling file, kernel lookup by name (base, full, signature, entry, name
// expression) with its "no kernel" and "ambiguous" sentences, reload without a file, and
// script files checked and read (lab/script.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "lab/module_find.hpp"
#include "lab/module_reload.hpp"
#include "lab/module_spec.hpp"
#include "lab/script.hpp"
#include "lab_test_util.hpp"

namespace fs = std::filesystem;
using namespace warplab;
using test::error_of;

namespace {

class TempDir {
 public:
  TempDir() {
    std::string t = (fs::temp_directory_path() / "warplab-labmod-XXXXXX").string();
    path_ = ::mkdtemp(t.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

lab::ModuleObj module_with(std::vector<std::string> entries, const std::string& name = "m.cu") {
  lab::ModuleObj m;
  m.spec.source.name = name;
  m.result.entries = std::move(entries);
  return m;
}

}  // namespace

TEST(LabDefines, ListedEntries) {
  EXPECT_EQ(lab::listed_define(1, "BLOCK=256"), std::make_pair(std::string("BLOCK"), std::string("256")));
  EXPECT_EQ(lab::listed_define(2, "DEBUG"), std::make_pair(std::string("DEBUG"), std::string("1")));
  EXPECT_EQ(error_of([] { lab::listed_define(3, "=5"); }),
            "cuda.compile: defines[3]: a macro definition needs a name: -D NAME or -D NAME=VALUE");
  EXPECT_EQ(
      error_of([] { lab::listed_define(2, "9X=1"); }),
      "cuda.compile: defines[2]: '9X' is not a macro name: letters, digits and _, not starting with a digit");
}

TEST(LabDefines, NamedEntries) {
  EXPECT_EQ(lab::named_define("N", "4"), std::make_pair(std::string("N"), std::string("4")));
  EXPECT_EQ(lab::named_define("MAX(a,b)", "a"), std::make_pair(std::string("MAX(a,b)"), std::string("a")));
  EXPECT_EQ(
      error_of([] { lab::named_define("bad name", "1"); }),
      "cuda.compile: defines: 'bad name' is not a macro name: letters, digits and _, not starting with a "
      "digit");
}

TEST(LabDefines, NamedSortedThenListedInOrder) {
  rtc::Options o;
  o.defines.emplace_back("FIRST", "0");  // kept in front
  lab::add_defines(o, std::map<std::string, std::string>{{"ZED", "1"}, {"ALPHA", "2"}},
                   std::vector<std::string>{"B=3", "A"});
  const std::vector<std::pair<std::string, std::string>> want = {
      {"FIRST", "0"}, {"ALPHA", "2"}, {"ZED", "1"}, {"B", "3"}, {"A", "1"}};
  EXPECT_EQ(o.defines, want);
  rtc::Options bad;
  EXPECT_EQ(
      error_of([&] {
        lab::add_defines(bad, {}, std::vector<std::string>{"OK", "-x"});
      }),
      "cuda.compile: defines[2]: '-x' is not a macro name: letters, digits and _, not starting with a digit");
}

TEST(LabOptions, LineinfoSpellingsSetTheFlag) {
  rtc::Options o;
  lab::add_options(o, {"-use_fast_math", "-lineinfo", "--generate-line-info", "-G"});
  EXPECT_TRUE(o.lineinfo);
  EXPECT_EQ(o.extra, (std::vector<std::string>{"-use_fast_math", "-G"}));
  rtc::Options none;
  lab::add_options(none, {"-Xptxas", "-O3"});
  EXPECT_FALSE(none.lineinfo);
  EXPECT_EQ(none.extra, (std::vector<std::string>{"-Xptxas", "-O3"}));
}

TEST(LabOptions, RefusedOptionsNameTheCall) {
  rtc::Options o;
  try {
    lab::add_options(o, {"-lineinfo", "-dlto"});
    ADD_FAILURE() << "-dlto must be refused";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::bad_input);
    EXPECT_EQ(std::string(e.what()).rfind("cuda.compile: options: '-dlto' gives no cubin", 0), 0u)
        << e.what();
  }
  EXPECT_FALSE(o.lineinfo) << "nothing taken from a refused list";
}

TEST(LabKernelFile, FoundNextToTheCallerOrAsGiven) {
  TempDir d;
  const std::string script = d.write("scripts/run.lua", "-- script\n");
  const std::string cu = d.write("scripts/k.cu", "__global__ void k() {}\n");
  auto p = lab::locate_kernel_file("k.cu", script);
  ASSERT_TRUE(p);
  EXPECT_EQ(fs::canonical(*p), fs::canonical(cu));
  auto abs = lab::locate_kernel_file(cu, "");
  ASSERT_TRUE(abs);
  EXPECT_EQ(abs->string(), cu);
  // A folder is returned (the reader says what it is), nothing there is nullopt.
  d.write("scripts/dir.cu/x", "");
  EXPECT_TRUE(lab::locate_kernel_file("dir.cu", script));
  EXPECT_FALSE(lab::locate_kernel_file("warplab-no-such-kernel.cu", script));
}

TEST(LabKernelFile, MissingSentenceAndSpec) {
  TempDir d;
  const std::string script = d.write("run.lua", "");
  const std::string msg = lab::kernel_file_missing("nope.cu", script);
  EXPECT_EQ(
      msg.rfind(
          "cannot open kernel file 'nope.cu' (looked in the current folder, next to " + script + " and ", 0),
      0u)
      << msg;
  EXPECT_EQ(lab::kernel_file_missing("nope.cu", "")
                .rfind("cannot open kernel file 'nope.cu' (looked in the "
                       "current folder and ",
                       0),
            0u);
  lab::ModuleSpec spec;
  EXPECT_EQ(lab::spec_from_file(spec, "warplab-no-such-kernel.cu", script),
            lab::kernel_file_missing("warplab-no-such-kernel.cu", script));
  d.write("k.cu", "__global__ void k() {}\n");
  const auto why = lab::spec_from_file(spec, "k.cu", script);
  ASSERT_FALSE(why) << *why;
  EXPECT_EQ(spec.source.text, "__global__ void k() {}\n");
  EXPECT_EQ(fs::canonical(spec.path), fs::canonical(d.path() / "k.cu"));
  // Read again after a change (reload, live refresh).
  d.write("k.cu", "__global__ void k2() {}\n");
  ASSERT_EQ(lab::reread_source(spec), std::nullopt);
  EXPECT_EQ(spec.source.text, "__global__ void k2() {}\n");
}

TEST(LabInlineSource, PlacedAtItsLineInTheCallingFile) {
  TempDir d;
  const std::string lua = d.write("t.lua",
                                  "local cuda = cuda\n"                   // 1
                                  "local m = cuda.compile{source = [[\n"  // 2
                                  "__global__ void k(int* p) {\n"         // 3
                                  "  *p = 1;\n"                           // 4
                                  "}]]}\n");                              // 5
  const std::string text = "__global__ void k(int* p) {\n  *p = 1;\n}";
  EXPECT_EQ(lab::inline_first_line(lua, 2, text), 3);
  EXPECT_EQ(lab::inline_first_line(lua, 5, text), 3);  // above the call: found anywhere
  EXPECT_EQ(lab::inline_first_line(lua, 2, "__global__ void other() {}"), 0);
  EXPECT_EQ(lab::inline_first_line("", 2, text), 0);
  EXPECT_EQ(lab::inline_first_line((d.path() / "gone.lua").string(), 2, text), 0);  // a file no more
  // A calling file that is there but cannot be read is said, not read as empty.
  try {
    lab::inline_first_line(d.path().string(), 2, text);
    ADD_FAILURE() << "a folder read as a script";
  } catch (const warplab::Error& e) {
    EXPECT_EQ(e.kind(), warplab::ErrorKind::bad_input);
    EXPECT_EQ(std::string(e.what()), "cuda.compile: cannot read '" + d.path().string() +
                                         "' to place the inline source: a folder, not a file");
  }

  lab::ModuleSpec spec;
  lab::set_inline_source(spec, text, lua, 2);
  EXPECT_EQ(spec.source.name, lua);
  EXPECT_EQ(spec.source.line_offset, 2);
  EXPECT_EQ(spec.source.dir, d.path());
  lab::ModuleSpec elsewhere;
  lab::set_inline_source(elsewhere, "__global__ void built() {}", lua, 2);
  EXPECT_EQ(elsewhere.source.name, "inline.cu");
  EXPECT_EQ(elsewhere.source.line_offset, 0);
  lab::ModuleSpec named;
  named.source.name = "x.cu";
  lab::set_inline_source(named, text, lua, 2);
  EXPECT_EQ(named.source.name, "x.cu");
  EXPECT_EQ(named.source.line_offset, 0);
}

TEST(LabFindEntry, ByBaseFullSignatureOrEntry) {
  const auto m = module_with({"_Z5saxpyifPKfPf", "_Z6reduceILi256EEvPf", "plain_c"});
  EXPECT_EQ(lab::find_entry(m, "saxpy"), "_Z5saxpyifPKfPf");
  EXPECT_EQ(lab::find_entry(m, "reduce"), "_Z6reduceILi256EEvPf");
  EXPECT_EQ(lab::find_entry(m, "reduce<256>"), "_Z6reduceILi256EEvPf");
  EXPECT_EQ(lab::find_entry(m, "reduce<256>(float*)"), "_Z6reduceILi256EEvPf");
  EXPECT_EQ(lab::find_entry(m, "plain_c"), "plain_c");
  EXPECT_EQ(lab::find_entry(m, "_Z5saxpyifPKfPf"), "_Z5saxpyifPKfPf");
  auto lowered = module_with({"_Z6reduceILi64EEvPf", "_Z6reduceILi128EEvPf"});
  lowered.result.lowered = {{"reduce<64>", "_Z6reduceILi64EEvPf"}};
  EXPECT_EQ(lab::find_entry(lowered, "reduce<64>"), "_Z6reduceILi64EEvPf");
  EXPECT_EQ(lab::kernel_names(m.result), (std::vector<std::string>{"saxpy", "reduce<256>", "plain_c"}));
  EXPECT_EQ(lab::kernel_bases(m.result), (std::vector<std::string>{"saxpy", "reduce"}));
  // An extern "C" kernel whose types were read (rtc/extern_c.hpp): its name completes, and
  // its signature finds it as a C++ kernel's does.
  auto read = module_with({"_Z5saxpyifPKfPf", "plain_c"});
  read.result.extern_c = {{"plain_c", "int* p", true, "int*", ""}};
  EXPECT_EQ(lab::kernel_bases(read.result), (std::vector<std::string>{"saxpy", "plain_c"}));
  EXPECT_EQ(lab::find_entry(read, "plain_c(int*)"), "plain_c");
}

TEST(LabFindEntry, MissingAndAmbiguousSentences) {
  const auto m = module_with({"_Z4overPKfPfi", "_Z4overPdi", "_Z5saxpyifPKfPf"});
  EXPECT_EQ(error_of([&] { lab::find_entry(m, "saxpi"); }),
            "module m.cu has no kernel 'saxpi' (kernels: over, over, saxpy)");
  EXPECT_EQ(error_of([&] { lab::find_entry(m, "over"); }),
            "'over' is ambiguous in module m.cu: 2 kernels match: over(const float*, float*, int), "
            "over(double*, int) (name one of them, with its signature for overloads)");
  EXPECT_EQ(lab::find_entry(m, "over(double*, int)"), "_Z4overPdi");
  // A name with a NUL is written up to the NUL, and never finds the kernel before it.
  EXPECT_EQ(error_of([&] { lab::find_entry(m, std::string("saxpy\0x", 7)); }),
            "module m.cu has no kernel 'saxpy' (kernels: over, over, saxpy)");
}

TEST(LabReload, InlineModuleHasNoFile) {
  auto m = std::make_shared<lab::ModuleObj>(module_with({}, "inline.cu"));
  lab::ModuleRef fresh;
  int built = 0;
  const lab::Builder count = [&](lab::ModuleSpec) {
    ++built;
    return lab::ModuleRef();
  };
  EXPECT_EQ(error_of([&] { (void)lab::reload(m, count, fresh); }),
            "module inline.cu has no file to reload from");
  EXPECT_FALSE(lab::refresh(m, count, false, true));  // nothing to follow
  EXPECT_EQ(built, 0);
}

TEST(LabReload, UnreadableFileKeepsTheModule) {
  TempDir d;
  auto m = std::make_shared<lab::ModuleObj>(module_with({"k"}));
  m->spec.path = (d.path() / "gone.cu").string();
  lab::ModuleRef fresh;
  int built = 0;
  const lab::Builder count = [&](lab::ModuleSpec) {
    ++built;
    return lab::ModuleRef();
  };
  const auto why = lab::reload(m, count, fresh);
  ASSERT_TRUE(why);
  EXPECT_EQ(why->rfind("cannot read kernel source '", 0), 0u) << *why;
  EXPECT_FALSE(fresh);
  EXPECT_EQ(built, 0);
}

TEST(LabScript, ProblemsAndShebang) {
  TempDir d;
  const std::string dir = (d.path() / "sub").string();
  fs::create_directories(dir);
  EXPECT_EQ(lab::script_problem(dir), "script '" + dir + "': a folder, not a script");
  const std::string gone = (d.path() / "gone.lua").string();
  EXPECT_EQ(lab::script_problem(gone), "script '" + gone + "': not found");
  std::string text;
  EXPECT_EQ(lab::read_script(gone, text), "script '" + gone + "': not found");
  const std::string s = d.write("s.lua", "#!/usr/bin/env warplab\nprint(1)\n");
  EXPECT_EQ(lab::script_problem(s), std::nullopt);
  const auto why = lab::read_script(s, text);
  ASSERT_FALSE(why) << *why;
  EXPECT_EQ(text, "--#!/usr/bin/env warplab\nprint(1)\n");
}
