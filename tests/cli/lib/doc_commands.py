#!/usr/bin/env python3
"""doc_commands.py: the command lines and Lua examples of README.md and docs/*.md, run
against the binary with the exit status the docs give them (docs/ARCHITECTURE.md, "Docs
that run", says how a page marks them).

What is run:
  - every command line of a ```sh block, and every `$ ` line of a plain ``` block (a
    transcript: the lines below it, up to the next `$ `, are its output);
  - every inline `warplab ...` span that is a whole command: three words or more, no
    placeholder (a word in capitals, `[`, `|`, `...`);
  - every ```lua block, as a script run by warplab.
A `<!-- check: ITEM; ITEM -->` comment on the line before a block (or on the same line as
an inline span) says how:
  gpu             only on a GPU (the _gpu test, run by scripts/gpu-check)
  skip REASON     not run here (REASON says what runs it instead)
  exit N[|M]      the status it must end with (default 0)
  output          its output (stdout, then stderr without the no-GPU note) is the transcript's
  stop N          sent Ctrl-C after N seconds (watch, repl); then the status as above
  says TEXT       its output contains TEXT
  file NAME       (a fenced block of any language) not run: its text is written to NAME in
                  the scratch folder, for the commands after it (a tutorial's kernel and script)
An item prefixed with `offline` applies to the offline run only (`offline exit 1`).
`scripts/run ARGS` and `build/warplab ARGS` stand for the binary under test; `scripts/test`
is never run (it is the suite that runs this). The commands run in a scratch folder that
links the checkout's folders and holds the files the docs name: x.lua, sweep.lua,
bench.lua and faulty.lua (each prints its arguments), tour.lua, k.cu, and
synthetic_profile.json with faster.json (its clock_rate 1.8 GHz).

Usage: doc_commands.py offline|gpu|list BINARY ROOT
"""
import difflib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field

CHECK = re.compile(r"<!--\s*check:\s*(.*?)\s*-->")
PLACEHOLDER = re.compile(r"\[|\\\||\.\.\.|…|\b[A-Z]{2,}|=[A-Z]\b")


@dataclass
class Item:
    where: str      # file:line
    kind: str       # "sh" or "lua"
    text: str       # the command line, or the Lua chunk
    marks: list = field(default_factory=list)
    output: list = None  # the transcript's lines, when it shows any


def parse_marks(text):
    return [m.strip() for m in text.split(";") if m.strip()] if text else []


def extract(path, rel):
    lines = open(path, encoding="utf-8").read().split("\n")
    items, i = [], 0
    while i < len(lines):
        fence = re.match(r"^```(\w*)\s*$", lines[i])
        if not fence:
            items += inline(lines, i, rel)
            i += 1
            continue
        lang, start = fence.group(1), i
        prev = lines[i - 1] if i > 0 else ""
        marks = parse_marks(CHECK.search(prev).group(1)) if CHECK.search(prev) else []
        i += 1
        body = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append(lines[i])
            i += 1
        i += 1
        items += block(lang, body, start, rel, marks)
    return items


def block(lang, body, start, rel, marks):
    where = lambda k: f"{rel}:{start + 2 + k}"
    if any(m.split()[0] == "file" for m in marks):
        return [Item(where(0), "file", "\n".join(body) + "\n", marks)]
    if lang == "lua":
        return [Item(where(0), "lua", "\n".join(body), marks)]
    out = []
    if lang in ("sh", "bash"):  # a script: each line that is not a comment
        for k, line in enumerate(body):
            if line.strip() and not line.lstrip().startswith("#"):
                out.append(Item(where(k), "sh", line, marks))
    elif lang == "":  # a transcript: `$ ` lines and the output under them
        for k, line in enumerate(body):
            if line.startswith("$ "):
                out.append(Item(where(k), "sh", line[2:], marks, []))
            elif out:
                out[-1].output.append(line)
    return out


def inline(lines, i, rel):
    # A code span may wrap onto the next line; it starts on this one.
    if lines[i].startswith("#"):  # a heading names a command, it does not run one
        return []
    joined = lines[i] + ("\n" + lines[i + 1] if i + 1 < len(lines) else "")
    marks = parse_marks(CHECK.search(lines[i]).group(1)) if CHECK.search(lines[i]) else []
    out = []
    for m in re.finditer(r"`((?:build/)?warplab [^`]+)`", joined):
        if m.start() >= len(lines[i]):
            break
        cmd = " ".join(m.group(1).split())
        if len(cmd.split()) >= 3 and not PLACEHOLDER.search(cmd):
            out.append(Item(f"{rel}:{i + 1}", "sh", cmd, marks))
    return out


def all_items(root):
    files = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
    items = []
    for rel in files:
        items += extract(os.path.join(root, rel), rel)
    return items


KNOWN = {"gpu", "skip", "exit", "output", "stop", "says", "file"}


def marks_for(item, mode):
    """The marks that apply in this mode, with `offline` prefixes resolved."""
    out = []
    for m in item.marks:
        if m.startswith("offline "):
            if mode == "offline":
                out = [x for x in out if x.split()[0] != m.split()[1]]  # overrides the plain one
                out.append(m[len("offline "):])
        elif not any(x.split()[0] == m.split()[0] for x in out):
            out.append(m)
    return out


def sandbox(root, binary):
    """A folder holding the checkout's folders and the files the docs name, and a bin/
    where `warplab` is the binary under test."""
    d = tempfile.mkdtemp(prefix="warplab-docs.")
    for sub in ("examples", "kernels_src", "tests", "lua", "bench", "profiles", "docs"):
        os.symlink(os.path.join(root, sub), os.path.join(d, sub))
    os.mkdir(os.path.join(d, "bin"))
    os.symlink(os.path.abspath(binary), os.path.join(d, "bin", "warplab"))
    script = "for i = 1, select('#', ...) do print(i, (select(i, ...))) end\n"
    for name in ("x.lua", "sweep.lua", "bench.lua", "faulty.lua"):
        open(os.path.join(d, name), "w").write(script)
    os.symlink(os.path.join(root, "examples", "tour.lua"), os.path.join(d, "tour.lua"))
    open(os.path.join(d, "k.cu"), "w").write("__global__ void k(int* p) { p[threadIdx.x] = 1; }\n")
    fix = os.path.join(root, "tests", "data", "profiles", "synthetic_profile.json")
    shutil.copy(fix, os.path.join(d, "synthetic_profile.json"))
    text = open(fix).read().replace('"clock_rate": 1500000', '"clock_rate": 1800000')
    open(os.path.join(d, "faster.json"), "w").write(text)
    os.mkdir(os.path.join(d, "home"))
    return d


def command_line(item, d):
    cmd = re.sub(r"^(scripts/run|build/warplab)\b", "warplab", item.text.strip())
    # scripts/run SCRIPT.lua is `run SCRIPT.lua`
    cmd = re.sub(r"^warplab (\S+\.lua)\b", r"warplab run \1", cmd)
    if item.kind == "lua":
        path = os.path.join(d, "block.lua")
        open(path, "w").write(item.text + "\n")
        cmd = "warplab run block.lua"
    return cmd


def run(item, mode, d):
    marks = marks_for(item, mode)
    words = {m.split()[0]: m.split(None, 1)[1] if " " in m else "" for m in marks}
    unknown = [w for w in words if w not in KNOWN]
    if unknown:
        return "fail", f"unknown check mark '{unknown[0]}' (known: {', '.join(sorted(KNOWN))})"
    if item.kind == "file":  # written in both modes: the commands below it need it
        name = words["file"].strip()
        if not re.fullmatch(r"[\w.-]+", name) or name.startswith("."):
            return "fail", f"file {name!r}: a plain file name, no folders"
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(item.text)
        return "ok", f"wrote {name}"
    if "skip" in words:
        return "skip", words["skip"]
    if re.match(r"^scripts/test\b", item.text.strip()):
        return "skip", "scripts/test runs this test"
    if "gpu" in words and mode == "offline":
        return "skip", "GPU only"
    # .ci/run's sanitizer stage: CUPTI cannot load under AddressSanitizer (its libcupti opens
    # libnvperf_host with RTLD_DEEPBIND); step 1 ran these commands.
    if os.environ.get("WARPLAB_TEST_NO_CUPTI") and any(w in item.text for w in ("--counters", "--lines", "cuda.lines")):
        return "skip", "needs CUPTI, which a sanitizer build cannot load"
    if "gpu" not in words and mode == "gpu" and item.kind != "lua":  # Lua blocks run in both
        return "skip", "runs offline"
    cmd = command_line(item, d)
    env = dict(os.environ, PATH=os.path.join(d, "bin") + ":" + os.environ["PATH"], HOME=os.path.join(d, "home"),
               NO_COLOR="1", WARPLAB_CACHE_DIR=os.path.join(d, "cache"))
    env.pop("WARPLAB_PROFILE", None)
    if mode == "offline":
        env["WARPLAB_NO_DRIVER"] = "1"
    stop = float(words["stop"]) if "stop" in words else None
    p = subprocess.Popen(["bash", "-c", cmd], cwd=d, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = p.communicate(timeout=stop if stop else 300)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGINT if stop else signal.SIGKILL)
        out, err = p.communicate()
        if not stop:
            return "fail", f"still running after 300 s: {cmd}"
    want = [int(x) for x in words.get("exit", "0").split("|")]
    problems = []
    if p.returncode not in want:
        problems.append(f"exit {p.returncode}, the docs say {words.get('exit', '0')}")
    both = out + "".join(l for l in err.splitlines(True) if not l.startswith("warplab: no GPU ("))
    if "says" in words and words["says"].strip('"') not in out + err:
        problems.append(f"the output lacks {words['says']}")
    if "output" in words and item.output:  # a command with no lines under it shows none
        shown = "\n".join(item.output).rstrip()
        if "\n".join(l.rstrip() for l in both.rstrip().split("\n")) != shown:
            diff = difflib.unified_diff(shown.split("\n"), both.rstrip().split("\n"), "docs", "binary", lineterm="")
            problems.append("the output differs from the transcript:\n      " + "\n      ".join(list(diff)[:20]))
    if problems:
        tail = "\n      ".join((out + err).rstrip().split("\n")[-8:])
        return "fail", f"{cmd}: " + "; ".join(problems) + f"\n      {tail}"
    return "ok", cmd


def main():
    mode, binary, root = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    items = all_items(root)
    if mode == "list":
        for it in items:
            print(f"{it.where}\t{it.kind}\t{'; '.join(it.marks)}\t{it.text.splitlines()[0]}")
        return 0
    d = sandbox(root, binary)
    counts = {"ok": 0, "fail": 0, "skip": 0}
    try:
        for it in items:
            status, what = run(it, mode, d)
            counts[status] += 1
            if status != "skip" or os.environ.get("VERBOSE"):
                print(f"{status:5} {it.where}: {what}", flush=True)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print(f"{counts['ok']} passed, {counts['fail']} failed, {counts['skip']} not run here")
    return 1 if counts["fail"] or counts["ok"] == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
