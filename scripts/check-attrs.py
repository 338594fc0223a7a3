#!/usr/bin/env python3
# check-attrs.py: checks `warplab attrs --json` against an independent CUDA client on the
# GPU machine. Every attribute warplab reports is queried again through cuda-python's
# cuDeviceGetAttribute (enum value from cuda-python's own CUdevice_attribute); name and
# total memory are compared with cuda-python and, when importable, torch.
# Usage: scripts/check-attrs.py [path/to/warplab (default build/warplab)] [device index]
# Prints "attrs: N matched, M mismatched, K only in warplab, L only in cuda-python"; exits
# 1 on any mismatch, 2 when it cannot run (no cuda-python, warplab failed).
import json
import subprocess
import sys

PREFIX = "CU_DEVICE_ATTRIBUTE_"


def load_driver():
    try:
        from cuda.bindings import driver  # cuda-python >= 12.6
    except ImportError:
        try:
            from cuda import cuda as driver  # older cuda-python
        except ImportError:
            sys.exit("check-attrs: cuda-python is not installed (pip install cuda-python)")
    return driver


def check(driver, result, what):
    """cuda-python returns (CUresult, values...); raise on a failed call."""
    err, *rest = result
    if err != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError("%s failed: %s" % (what, err))
    return rest[0] if len(rest) == 1 else rest


def enum_values(driver):
    """name (lower case, no prefix) -> enum value, as cuda-python knows them; an alias
    (a second name for one value) maps to the same value."""
    enum = driver.CUdevice_attribute
    # __members__ includes aliases (dir() of an IntEnum does not); fall back to dir().
    keys = list(getattr(enum, "__members__", {})) or dir(enum)
    out = {}
    for key in keys:
        if key.startswith(PREFIX) and key != PREFIX + "MAX":
            out[key[len(PREFIX):].lower()] = int(getattr(enum, key))
    return out


def main():
    warplab = sys.argv[1] if len(sys.argv) > 1 else "build/warplab"
    ordinal = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    run = subprocess.run([warplab, "attrs", "--device", str(ordinal), "--json"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("check-attrs: %s attrs failed (exit %d): %s" %
                 (warplab, run.returncode, run.stderr.strip()))
    profile = json.loads(run.stdout)
    ours = profile["attributes"]

    driver = load_driver()
    check(driver, driver.cuInit(0), "cuInit")
    dev = check(driver, driver.cuDeviceGet(ordinal), "cuDeviceGet")
    values = enum_values(driver)

    # Query by enum value; an attribute this driver does not know answers INVALID_VALUE.
    theirs = {}
    for name, value in sorted(values.items()):
        err, v = driver.cuDeviceGetAttribute(driver.CUdevice_attribute(value), dev)
        if err == driver.CUresult.CUDA_SUCCESS:
            theirs[name] = v
    matched, mismatched, only_ours, only_theirs = 0, [], [], []
    for name, v in sorted(ours.items()):
        if name not in theirs:
            only_ours.append(name)
        elif theirs[name] == v:
            matched += 1
        else:
            mismatched.append("%s: warplab %d, cuda-python %d" % (name, v, theirs[name]))
    # Aliases share a value with a name warplab reports; they are not missing.
    reported = {values[n] for n in ours if n in values}
    seen = set()
    for name in sorted(theirs):
        if name not in ours and values[name] not in reported and values[name] not in seen:
            only_theirs.append(name)
            seen.add(values[name])

    identity = []
    name = check(driver, driver.cuDeviceGetName(256, dev), "cuDeviceGetName")
    name = name.split(b"\0", 1)[0].decode()
    mem = check(driver, driver.cuDeviceTotalMem(dev), "cuDeviceTotalMem")
    identity.append(("name", profile["name"], name, "cuda-python"))
    identity.append(("total_memory", profile["total_memory"], int(mem), "cuda-python"))
    try:
        import torch
        if torch.cuda.is_available():
            p = torch.cuda.get_device_properties(ordinal)
            identity.append(("name", profile["name"], p.name, "torch"))
            identity.append(("total_memory", profile["total_memory"], int(p.total_memory), "torch"))
            identity.append(("compute_capability", profile["compute_capability"],
                             "%d.%d" % (p.major, p.minor), "torch"))
            identity.append(("multiprocessor_count", ours.get("multiprocessor_count"),
                             p.multi_processor_count, "torch"))
    except ImportError:
        print("check-attrs: torch not importable; identity checked with cuda-python only")

    bad_identity = [i for i in identity if i[1] != i[2]]
    for field, a, b, who in identity:
        print("%-22s warplab %-28s %-11s %s %s" % (field, a, who, b, "ok" if a == b else "MISMATCH"))
    for line in mismatched:
        print("mismatch: " + line)
    for n in only_ours:
        print("only in warplab: " + n)
    for n in only_theirs:
        print("only in cuda-python: %s = %d" % (n, theirs[n]))
    print("attrs: %d matched, %d mismatched, %d only in warplab, %d only in cuda-python"
          % (matched, len(mismatched), len(only_ours), len(only_theirs)))
    print("identity: %d of %d fields agree" % (len(identity) - len(bad_identity), len(identity)))
    # "Only in" one client is reported, not failed: bindings and header may differ in age.
    return 1 if mismatched or bad_identity else 0


if __name__ == "__main__":
    sys.exit(main())
