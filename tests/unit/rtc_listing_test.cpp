// rtc_listing_test.cpp: kernels' code as lines (rtc/listing.hpp): the line diff and what it
// takes for no change (renumbered registers and labels), PTX cut into entries, and SASS
// from either disassembler cleaned the same way: no addresses or encodings, branch
// targets as labels, no NOP padding. The dumps are excerpts of cuobjdump 13 and nvdisasm
// 13 output for one kernel.
#include <gtest/gtest.h>

#include <algorithm>

#include "rtc/listing.hpp"

using namespace warplab::rtc;

namespace {

// cuobjdump -sass: "/*offset*/ instruction ; /* encoding */" and a second encoding line.
const char* kCuobjdump = R"dump(
	code for sm_90
	.target	sm_90

		Function : _Z4scanPKfPfi
	.headerflags	@"EF_CUDA_SM90 EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90)"
        /*0000*/                   LDC R1, c[0x0][0x28] ;                  /* 0x00000a00ff017b82 */
                                                                           /* 0x000fe20000000800 */
        /*0010*/              @!P1 BRA 0x40 ;                              /* 0x0000000000389947 */
                                                                           /* 0x000fea0003800000 */
        /*0020*/               @P1 LDS R0, [R2] ;                          /* 0x0000000002001984 */
                                                                           /* 0x000fe20000000800 */
        /*0030*/              @!P1 BRA 0x20 ;                              /* 0xfffffffc00cc9947 */
                                                                           /* 0x000fea000383ffff */
        /*0040*/                   EXIT ;                                  /* 0x000000000000794d */
                                                                           /* 0x000fea0003800000 */
        /*0050*/                   BRA 0x50;                               /* 0xfffffffc00fc7947 */
                                                                           /* 0x000fc0000383ffff */
        /*0060*/                   NOP;                                    /* 0x0000000000007918 */
                                                                           /* 0x000fc00000000000 */
        /*0070*/                   NOP;                                    /* 0x0000000000007918 */
                                                                           /* 0x000fc00000000000 */
		..........
)dump";

// nvdisasm: no encodings, its own labels, and the data sections after the code.
const char* kNvdisasm = R"dump(//--------------------- .text._Z4scanPKfPfi       --------------------------
	.section	.text._Z4scanPKfPfi,"ax",@progbits
        .size           _Z4scanPKfPfi,(.L_x_3 - _Z4scanPKfPfi)
_Z4scanPKfPfi:
.text._Z4scanPKfPfi:
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/              @!P1 BRA `(.L_x_0) ;
.L_x_1:
        /*0020*/               @P1 LDS R0, [R2] ;
        /*0030*/              @!P1 BRA `(.L_x_1) ;
.L_x_0:
        /*0040*/                   EXIT ;
.L_x_2:
        /*0050*/                   BRA `(.L_x_2);
        /*0060*/                   NOP;
        /*0070*/                   NOP;
.L_x_3:


//--------------------- .nv.shared._Z4scanPKfPfi  --------------------------
	.section	.nv.shared._Z4scanPKfPfi,"aw",@nobits
.nv.shared._Z4scanPKfPfi:
	.zero		2048
)dump";

const Lines kClean = {"LDC R1, c[0x0][0x28]",
                      "@!P1 BRA .L2",
                      ".L1:",
                      "@P1 LDS R0, [R2]",
                      "@!P1 BRA .L1",
                      ".L2:",
                      "EXIT",
                      ".L3:",
                      "BRA .L3"};

}  // namespace

TEST(Listing, LineDiffShowsChangesWithContext) {
  const Lines a = {"a", "b", "c", "d", "e", "f"};
  const Lines b = {"a", "b", "X", "d", "e", "f"};
  EXPECT_EQ(line_diff(a, b, 1, 40), "@@ -2,3 +2,3 @@\n  b\n- c\n+ X\n  d\n");
  EXPECT_EQ(line_diff(a, a, 2, 40), "");
  const Lines c = {"a", "b", "c", "d", "e", "f", "g"};
  EXPECT_EQ(line_diff(a, c, 0, 40), "@@ -7,0 +7,1 @@\n+ g\n");
  EXPECT_NE(line_diff(Lines(10, "x"), Lines(10, "y"), 0, 3).find("and 17 more changed lines"),
            std::string::npos);
}

// A diff cut short says how many lines it left out and, when asked, how to see them; 0 shows
// every line.
TEST(Listing, LineDiffCapAndAll) {
  const Lines x(500, "x"), y(500, "y");
  const std::string cut = line_diff(x, y, 0, 40, "(--diff-lines 0 shows them all)");
  EXPECT_NE(cut.find("  ... and 960 more changed lines (--diff-lines 0 shows them all)\n"), std::string::npos)
      << cut;
  const std::string all = line_diff(x, y, 0, 0);
  EXPECT_EQ(all.find("more changed lines"), std::string::npos);
  EXPECT_EQ(static_cast<std::size_t>(std::count(all.begin(), all.end(), '\n')), 1u + 1000u);  // a hunk header
}

TEST(Listing, HunksAreSeparateAndRenumberedRegistersAreNoChange) {
  Lines a, b;
  for (int i = 0; i < 20; ++i) a.push_back("l" + std::to_string(i));
  b = a;
  b[2] = "changed early";
  b[15] = "changed late";
  const std::string d = line_diff(a, b, 1, 40);
  EXPECT_EQ(d,
            "@@ -2,3 +2,3 @@\n  l1\n- l2\n+ changed early\n  l3\n"
            "@@ -15,3 +15,3 @@\n  l14\n- l15\n+ changed late\n  l16\n");
  EXPECT_EQ(line_diff({"add.s32 %r5, %r3, 1;", "IADD3 R4, R2, 0x1, RZ ;"},
                      {"add.s32 %r9, %r1, 1;", "IADD3 R7, R0, 0x1, RZ ;"}, 2, 40),
            "");
  EXPECT_NE(line_diff({"add.s32 %r5, %r3, 1;"}, {"add.s32 %r5, %r3, 2;"}, 2, 40), "");
  EXPECT_EQ(normalize("ld.global.f32 %f12, [%rd4+8];"), "ld.global.f32 %f#, [%rd#+8];");
  EXPECT_EQ(normalize("@P0 FADD R3, R12, UR4 ;"), "@P# FADD R#, R#, UR# ;");
}

// Labels are numbered in code order, so one branch more renumbers the rest: no change either.
TEST(Listing, RenumberedLabelsAreNoChange) {
  EXPECT_EQ(normalize("@!P1 BRA .L12"), "@!P# BRA .L#");
  EXPECT_EQ(normalize("BSSY B0, .L3"), "BSSY B#, .L#");
  EXPECT_EQ(normalize("@%p1 bra $L__BB0_12;"), "@%p# bra $L__BB#;");
  EXPECT_EQ(normalize("ld.global.f32 %f1, [%rd2+0x10];"), "ld.global.f32 %f#, [%rd#+0x10];")
      << "offsets stay";
  EXPECT_TRUE(same_code({".L1:", "BRA .L1"}, {".L4:", "BRA .L4"}));
  // A PTX kernel's count of virtual registers follows from its instructions: no change of
  // its own (the instructions that need more show as changed).
  EXPECT_EQ(normalize("\t.reg .f32 \t%f<12>;"), "\t.reg .f32 \t%f<#>;");
  EXPECT_EQ(line_diff({".reg .b32 %r<5>;", "add.s32 %r4, %r3, 1;"},
                      {".reg .b32 %r<9>;", "add.s32 %r8, %r1, 1;"}, 2, 40),
            "");
  EXPECT_FALSE(same_code({".reg .b32 %r<5>;"}, {".reg .b64 %rd<5>;"}));  // another type is a change
  EXPECT_FALSE(same_code({"IADD3 R1, R2, 0x1, RZ"}, {"IADD3 R1, R2, 0x2, RZ"}));
}

TEST(Listing, PtxSplitsByEntryAndDropsComments) {
  const std::string ptx =
      "//\n// Generated by NVIDIA NVVM Compiler\n.version 9.0\n"
      ".visible .entry _Z4fillPi(\n\t.param .u64 _Z4fillPi_param_0\n)\n{\n\tmov.u32 %r1, 1;\n\tret;\n}\n"
      ".visible .entry _Z3twoPi(\n)\n{\n\t// a comment\n\tret;\n}\n";
  const auto k = ptx_kernels(ptx);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k.at("_Z4fillPi").size(), 7u);
  EXPECT_EQ(k.at("_Z4fillPi")[4], "mov.u32 %r1, 1;");
  EXPECT_EQ(k.at("_Z3twoPi"), (Lines{".visible .entry _Z3twoPi(", ")", "{", "ret;", "}"}));
}

// Both tools' output reads to the same lines: no addresses, encodings or ';', the branch
// targets as labels numbered in code order, the NOP padding left out.
TEST(Listing, SassOfEitherToolCleansTheSame) {
  const std::vector<SassCode> cu = sass_code(kCuobjdump);
  ASSERT_EQ(cu.size(), 1u);
  EXPECT_EQ(cu[0].mangled, "_Z4scanPKfPfi");
  EXPECT_EQ(cu[0].lines(), kClean);
  EXPECT_EQ(cu[0].insts.size(), 6u) << "the padding after the last BRA is left out";
  const std::vector<SassCode> nv = sass_code(kNvdisasm);
  ASSERT_EQ(nv.size(), 1u);
  EXPECT_EQ(nv[0].lines(), kClean);
  EXPECT_EQ(sass_kernels(kCuobjdump).at("_Z4scanPKfPfi"), kClean);
}

// The listing to read: offsets, the predicates in a column, labels on lines of their own,
// no encodings.
TEST(Listing, SassTextLinesUp) {
  const std::string t = sass_code(kCuobjdump).at(0).text();
  EXPECT_EQ(t,
            "  0000       LDC R1, c[0x0][0x28]\n"
            "  0010  @!P1 BRA .L2\n"
            ".L1:\n"
            "  0020   @P1 LDS R0, [R2]\n"
            "  0030  @!P1 BRA .L1\n"
            ".L2:\n"
            "  0040       EXIT\n"
            ".L3:\n"
            "  0050       BRA .L3\n");
  EXPECT_EQ(t.find("/*"), std::string::npos);
}

// An address that is no instruction of the kernel stays as printed (not a label).
TEST(Listing, AnAddressOutsideTheKernelStays) {
  const auto k = sass_code("\t\tFunction : k\n        /*0000*/  BRA 0x1000 ;\n        /*0010*/  EXIT ;\n");
  ASSERT_EQ(k.size(), 1u);
  EXPECT_EQ(k[0].lines(), (Lines{"BRA 0x1000", "EXIT"}));
  EXPECT_TRUE(k[0].labels.empty());
  // An immediate of an instruction that takes no target is never a label.
  const auto m = sass_code("\t\tFunction : m\n        /*0000*/  MOV R1, 0x10 ;\n        /*0010*/  EXIT ;\n");
  EXPECT_EQ(m.at(0).lines(), (Lines{"MOV R1, 0x10", "EXIT"}));
}

// A mangled name of 50000 characters (templates nest): read without a regex, which would
// recurse once per character and overflow the stack.
TEST(Listing, LongKernelNamesInEitherDump) {
  const std::string name = "_Z" + std::string(50000, 'a');
  const auto cu = sass_kernels("\t\tFunction : " + name + "\n        /*0000*/   EXIT ;\n");
  ASSERT_EQ(cu.count(name), 1u);
  EXPECT_EQ(cu.at(name), (Lines{"EXIT"}));
  const auto nv = sass_kernels("        .text." + name + ":\n        /*0000*/   EXIT ;\n");
  ASSERT_EQ(nv.count(name), 1u);
  EXPECT_EQ(sass_kernels("\t\tFunction :\n").size(), 0u);  // no name: no kernel
}

TEST(Listing, SeveralKernelsInOrder) {
  const auto k = sass_code(
      "\t\tFunction : _Z1bv\n        /*0000*/   EXIT ;\n\t\t..........\n"
      "\t\tFunction : _Z1av\n        /*0000*/   RET.REL.NODEC R20 0x0 ;\n");
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].mangled, "_Z1bv");
  EXPECT_EQ(k[1].mangled, "_Z1av");
  EXPECT_EQ(k[1].lines(), (Lines{"RET.REL.NODEC R20 0x0"}));
}

// What reads differently in the two tools reads the same once cleaned: a collective WARPSYNC's
// target, a RET to the kernel's own label (cuobjdump: 0x0), a jump table's note, a call.
TEST(Listing, BothToolsAgreeOnWarpsyncRetAndJumpTables) {
  const auto cu = sass_code(
      "\t\tFunction : _Z1kPi\n"
      "        /*0000*/   WARPSYNC.COLLECTIVE R6, 0x30 ;  /* 0x0 */\n"
      "        /*0010*/   BRX R2 -0x20 ;  /* 0x0 */\n"
      "        /*0020*/   CALL.REL.NOINC 0x40 ;  /* 0x0 */\n"
      "        /*0030*/   WARPSYNC 0xffffffff ;  /* 0x0 */\n"
      "        /*0040*/   RET.REL.NODEC R10 0x0 ;  /* 0x0 */\n");
  const auto nv = sass_code(
      ".text._Z1kPi:\n"
      "        /*0000*/   WARPSYNC.COLLECTIVE R6, `(.L_x_4) ;\n"
      "        /*0010*/   BRX R2 -0x20     (*\"BRANCH_TARGETS .L_x_1,.L_x_2\"*) ;\n"
      "        /*0020*/   CALL.REL.NOINC `($_Z1kPi$f) ;\n"
      ".L_x_4:\n"
      "        /*0030*/   WARPSYNC 0xffffffff ;\n"
      "$_Z1kPi$f:\n"
      "        /*0040*/   RET.REL.NODEC R10 `(_Z1kPi) ;\n");
  const Lines want = {"WARPSYNC.COLLECTIVE R6, .L1", "BRX R2 -0x20", "CALL.REL.NOINC .L2",   ".L1:",
                      "WARPSYNC 0xffffffff",         ".L2:",         "RET.REL.NODEC R10 0x0"};
  ASSERT_EQ(cu.size(), 1u);
  ASSERT_EQ(nv.size(), 1u);
  EXPECT_EQ(cu[0].lines(), want);
  EXPECT_EQ(nv[0].lines(), want);
}
