#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The shell blocks of an operator's page, as a test runs them.

  doc_recipes.py PAGE list          the recipes' names, in page order
  doc_recipes.py PAGE show NAME     a recipe's code, as written
  doc_recipes.py PAGE check         every shell block is a recipe or says
                                    why it is not run

A recipe is a fenced sh block right after a line
"<!-- recipe: NAME -->"; a shell block the test does not run follows
"<!-- not run: REASON -->" instead.  doc/operate.md is written so: what
an operator types on the router is what selftests/operate_recipes.sh
runs, and a shell block that is neither fails "check" (make check-docs),
so that no recipe goes untested without a word.

Exit status: 0, 1 a check failed or no such recipe, 2 bad usage.
"""
import re
import sys

MARK = re.compile(r"^<!--\s*(recipe|not run):\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(`{3,})\s*(\S*)\s*$")
SHELLS = {"sh", "bash", "shell", "console"}


def blocks(path):
    """(line, lang, mark, argument, code) of each fenced block, mark the
    comment on the line just before the fence (None if none)."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, fence, lang = i, m.group(1), m.group(2)
        prev = MARK.match(lines[i - 1]) if i else None
        i += 1
        code = []
        while i < len(lines) and lines[i].strip() != fence:
            code.append(lines[i])
            i += 1
        i += 1
        out.append((start + 1, lang, prev.group(1) if prev else None,
                    prev.group(2) if prev else None, "\n".join(code) + "\n"))
    return out


def recipes(path):
    return [(arg, code) for _, _, mark, arg, code in blocks(path)
            if mark == "recipe"]


def check(path):
    bad, seen = [], set()
    for line, lang, mark, arg, _ in blocks(path):
        if mark == "recipe":
            if lang not in SHELLS:
                bad.append("%s:%d: recipe %r is a %r block, not sh"
                           % (path, line, arg, lang))
            if not re.fullmatch(r"[a-z0-9][a-z0-9-]*", arg or ""):
                bad.append("%s:%d: recipe name %r: lower case, digits, -"
                           % (path, line, arg))
            if arg in seen:
                bad.append("%s:%d: recipe %r twice" % (path, line, arg))
            seen.add(arg)
        elif mark == "not run":
            if not arg:
                bad.append("%s:%d: 'not run' without a reason"
                           % (path, line))
        elif lang in SHELLS:
            bad.append("%s:%d: a %s block neither a recipe nor 'not run: "
                       "WHY'" % (path, line, lang))
    return bad


def main(argv):
    if len(argv) < 3 or argv[2] not in ("list", "show", "check") or \
            (argv[2] == "show") != (len(argv) == 4) or len(argv) > 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    path, cmd = argv[1], argv[2]
    if cmd == "list":
        for name, _ in recipes(path):
            print(name)
        return 0
    if cmd == "show":
        for name, code in recipes(path):
            if name == argv[3]:
                sys.stdout.write(code)
                return 0
        print("doc_recipes: %s: no recipe %r" % (path, argv[3]),
              file=sys.stderr)
        return 1
    bad = check(path)
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
