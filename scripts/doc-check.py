#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make doc-check: the map in DESIGN.md names only what exists.

DESIGN.md names, in backticks:

  `path/file.c:function`   a function defined in that file.  Kernel files:
                           as the 7.3 series leaves them, read from the
                           patches in patches/{nosuid,network,userns,tsync}
                           (a "+++ b/path" file, the function defined on an
                           added or context line, or named in a hunk
                           header, and not removed by a later patch).
                           Unchanged upstream code is listed in UPSTREAM
                           below, and checked in build/7.3/linux when that
                           tree exists.  Files of this repository (tools/,
                           selftests/, ...) are read directly.
  `suite: pat, pat`        kselftests: suite is a directory of selftests/;
                           each pattern matches a test name as the
                           kselftest harness prints it (global.test,
                           fixture.test, fixture.variant.test), with * and
                           {a,b} groups, against TEST(), TEST_F() and
                           FIXTURE_VARIANT_ADD() in that directory;
                           "fixture.variant" stands for its tests.
  `selftests/...`, `scripts/...`, `bench/...` (and the other top-level
                           directories of this repository): the file exists.

and anywhere in the text, nosuid/0013 (network/NNNN, userns/NNNN): a patch
of that layer and number exists.  It also checks that DESIGN.md and
README.md fit their budgets.  Prints every name that does not exist and
exits 1; needs no kernel tree and no build.
"""

import fnmatch
import glob
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMITS = {"DESIGN.md": 51200, "README.md": 12288}
LAYERS = ("nosuid", "network", "userns", "tsync")
TREE = os.path.join(TOP, "build", "7.3", "linux")

# Upstream functions DESIGN.md names that the series does not show: each is
# looked up in build/7.3/linux when it exists.
UPSTREAM = {
    "fs/exec.c:bprm_fill_uid",
    "fs/exec.c:check_unsafe_exec",
    "kernel/ptrace.c:__ptrace_may_access",
    "fs/proc/base.c:comm_write",
}

# Top-level directories of this repository whose paths are checked.
REPO_DIRS = ("selftests", "scripts", "tools", "initramfs", "bench", "config",
             "series", "debian-system", "man", "patches")

FUNC_REF = re.compile(r"`([\w.+/-]+\.[ch]):(\w+)`")
TEST_REF = re.compile(r"`([a-z][a-z0-9_]*): ([^`]+)`")
PATH_REF = re.compile(r"`((?:%s)/[^`\s:]*)`" % "|".join(REPO_DIRS))
PATCH_REF = re.compile(r"(?<![\w/.])(%s)/(\d{4})\b" % "|".join(LAYERS))
# A definition starts in column 0: "static int name(", "name(" after a
# return type on the line before; the identifier before the first "(".
DEF_LINE = re.compile(r"^[A-Za-z_#][^(;=]*?\b(\w+)\s*\(")


def definition(line):
    """The name a column-0 line defines, or None."""
    if line.rstrip().endswith(";"):
        return None
    m = DEF_LINE.match(line)
    if not m or m.group(1) in ("if", "for", "while", "switch", "return"):
        return None
    return m.group(1)


def patch_functions():
    """{path: {function: present}} as the 7.3 series leaves each file."""
    files = {}
    patches = []
    for layer in LAYERS:
        patches += sorted(glob.glob(os.path.join(TOP, "patches", layer,
                                                 "*.patch")))
    for patch in patches:
        cur = None
        prev = ""
        with open(patch, errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("+++ ") and prev.startswith("--- "):
                    path = line[4:]
                    cur = files.setdefault(path[2:], {}) \
                        if path.startswith("b/") else None
                elif line.startswith("diff --git "):
                    cur = None
                elif cur is not None and line.startswith("@@"):
                    m = re.match(r"@@ [^@]* @@ (.*)", line)
                    name = m and definition(m.group(1))
                    if name:
                        cur[name] = True
                elif cur is not None and line[:1] in ("+", "-", " "):
                    name = definition(line[1:])
                    if name:
                        cur[name] = line[0] != "-"
                prev = line
    return files


def tree_defines(path, func):
    """Is func defined in build/7.3/linux/path?  None without the tree."""
    if not os.path.isdir(TREE):
        return None
    return file_defines(os.path.join(TREE, path), func)


def file_defines(path, func):
    try:
        with open(path, errors="replace") as f:
            return any(definition(line) == func for line in f)
    except OSError:
        return False


def test_names():
    """{suite: set of kselftest names} from selftests/*/*.[ch]."""
    suites = {}
    for d in sorted(glob.glob(os.path.join(TOP, "selftests", "*", ""))):
        tests, variants = [], {}
        for src in sorted(glob.glob(d + "*.[ch]")):
            with open(src, errors="replace") as f:
                text = f.read()
            for m in re.finditer(r"^\s*TEST(?:_SIGNAL)?\(\s*(\w+)", text,
                                 re.M):
                tests.append(("global", m.group(1)))
            for m in re.finditer(r"^\s*TEST_F(?:_TIMEOUT|_FORK)?\(\s*(\w+)\s*,"
                                 r"\s*(\w+)", text, re.M):
                tests.append((m.group(1), m.group(2)))
            for m in re.finditer(r"^\s*FIXTURE_VARIANT_ADD\(\s*(\w+)\s*,"
                                 r"\s*(\w+)", text, re.M):
                variants.setdefault(m.group(1), []).append(m.group(2))
        names = set()
        for fixture, test in tests:
            for v in variants.get(fixture, [None]):
                names.add(".".join(x for x in (fixture, v, test) if x))
        suites[os.path.basename(os.path.dirname(d))] = names
    return suites


def split_patterns(text):
    """Split "a.{b,c}.d, e.*" on the commas outside braces."""
    out, depth, cur = [], 0, ""
    for c in text:
        depth += (c == "{") - (c == "}")
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    out.append(cur.strip())
    return [p for p in out if p]


def expand(pattern):
    """{a,b} groups into plain fnmatch patterns."""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    return [x for alt in m.group(1).split(",")
            for x in expand(pattern[:m.start()] + alt + pattern[m.end():])]


def main():
    errors = []
    counts = {"file:function": 0, "tests": 0, "paths": 0, "patches": 0}
    for name, limit in LIMITS.items():
        size = os.path.getsize(os.path.join(TOP, name))
        if size > limit:
            errors.append("%s: %d bytes, more than %d" % (name, size, limit))
    with open(os.path.join(TOP, "DESIGN.md")) as f:
        lines = f.read().split("\n")
    funcs = patch_functions()
    suites = test_names()
    for no, line in enumerate(lines, 1):
        where = "DESIGN.md:%d" % no
        for path, func in FUNC_REF.findall(line):
            counts["file:function"] += 1
            ref = "%s:%s" % (path, func)
            state = funcs.get(path, {}).get(func)
            if state is True:
                continue
            if state is False and ref not in UPSTREAM:
                errors.append("%s: %s: removed by the series" % (where, ref))
            elif path.split("/")[0] in REPO_DIRS and \
                    os.path.exists(os.path.join(TOP, path)):
                if not file_defines(os.path.join(TOP, path), func):
                    errors.append("%s: %s: no such function" % (where, ref))
            elif ref in UPSTREAM:
                if tree_defines(path, func) is False:
                    errors.append("%s: %s: not in build/7.3/linux"
                                  % (where, ref))
            else:
                errors.append("%s: %s: not defined in the 7.3 patches "
                              "(if it is unchanged upstream code, add it to "
                              "UPSTREAM in scripts/doc-check.py)"
                              % (where, ref))
        for suite, pats in TEST_REF.findall(line):
            if suite not in suites:
                errors.append("%s: `%s: %s`: no selftests/%s"
                              % (where, suite, pats, suite))
                continue
            for pat in split_patterns(pats):
                counts["tests"] += 1
                if not all(fnmatch.filter(suites[suite], p) or
                           fnmatch.filter(suites[suite], p + ".*")
                           for p in expand(pat)):
                    errors.append("%s: %s: %s: no such test"
                                  % (where, suite, pat))
        for path in PATH_REF.findall(line):
            counts["paths"] += 1
            full = os.path.join(TOP, path)
            if any(c in path for c in "{$<"):
                continue
            if not (glob.glob(full) if "*" in path else os.path.exists(full)):
                errors.append("%s: %s: no such file" % (where, path))
        for layer, num in PATCH_REF.findall(line):
            counts["patches"] += 1
            if not glob.glob(os.path.join(TOP, "patches", layer,
                                          num + "-*.patch")):
                errors.append("%s: %s/%s: no such patch"
                              % (where, layer, num))
    for e in errors:
        print("doc-check: " + e)
    sizes = ", ".join("%s %d/%d bytes" % (n, os.path.getsize(
        os.path.join(TOP, n)), l) for n, l in LIMITS.items())
    print("doc-check: %s; names: %s; %s%s" % (
        sizes, ", ".join("%d %s" % (v, k) for k, v in counts.items()),
        "%d problem(s)" % len(errors) if errors else "all exist",
        "" if os.path.isdir(TREE) else
        " (no build/7.3/linux: UPSTREAM names not looked up)"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
