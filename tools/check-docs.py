#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the documentation for what a reader cannot check: make check-docs.

  check-docs.py [--root DIR]
  check-docs.py --links DIR

README.md and doc/*.md describe the tree as it is, so that:

  - README.md stays a front page: at most 400 lines;
  - no cell of a markdown table is over 400 characters (a paragraph in a
    cell is a paragraph the table hides);
  - no page names a commit or a run's history ("at b8642ae", "on its
    retry", "in an earlier boot", a date): what a run at some commit did
    is the history of the tree, git's to keep, and goes stale the next
    commit;
  - every relative link resolves: the file exists, and a #anchor is a
    heading of the page it points to, by GitHub's slug rules;
  - a figure has one place, the page of the command that made it: the
    one table README.md restates, make demo's, is cell for cell the
    scenario 1 table of doc/lab.md;

and the tc man pages (iproute2/man/man8/tc-*.8) document what their tc
plugins (iproute2/tc/) take: every option of a page's PARAMETERS (read by
tools/man_defaults.py) and every bold word of its SYNOPSIS is a string
in the plugin's source, and every keyword the plugin compares an argument
with is on the page.  selftests/defaults.sh checks, in the test VM, that
tc and the module accept every option at its stated default.  And every
shell block of doc/operate.md is a recipe the package test runs, or says
why it is not (tools/doc_recipes.py).

--links DIR checks the links of every page under DIR alone: the pages a
package installs, whose links must not lead out of what it ships
(selftests/dkms_install.sh).

Prints "FILE:LINE: what is wrong" a failure and a summary; exits 1 on any
failure, 0 otherwise.  --root checks another copy of the tree.
"""
import argparse
import glob
import importlib.util
import os
import re
import sys
import urllib.parse

README_MAX_LINES = 400
CELL_MAX_CHARS = 400

# A word of 7 to 40 lowercase hex digits, a digit and a letter among
# them, not part of a longer word (a 0x constant, a sha256 sum), nor of
# an address of hex groups and colons (IPv6: 2001:db8::1, a MAC).
HASH_RE = re.compile(r"(?<!\w)(?<![0-9a-fA-F]:)(?<!::)"
                     r"(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}"
                     r"(?!\w)(?!:[0-9a-fA-F:])")
# Hex words of the docs that are no commit, and what they are.
NOT_HASHES = {
    "c5744f82": "doc/testing.md: an EFLAGS value of a panic's signature",
}

# Phrases that tell of one run, not of the tree, in any case, a plural
# too ("earlier boots"); a line break may fall between their words.
# Words alone ("retry", "boot") are not here: the docs describe the
# harness's retries and the VM's boots, legitimately.
HISTORY_PHRASES = [
    "in this boot",         # the boot a number came from
    "earlier boot",         # ... and the ones before it
    "this session",         # the session that wrote the text
    "last session",
    "on its retry",         # how a test fared in one run
    "first try",            # "at the first try": ditto
    "latest full run",      # a run at some commit
    "earlier run",
    "previous run",
    "the tree before",      # the tree as it was, not as it is
    "before its last",      # "before its last two changes"
    "the issue asks",       # the request behind a change, not the tree
]
HISTORY_RE = re.compile(
    r"\b(%s)s?\b" % "|".join(r"\s+".join(map(re.escape, p.split()))
                            for p in HISTORY_PHRASES), re.I)
# The date of a run.
DATE_RE = re.compile(r"\b20[0-9]{2}-[01][0-9]-[0-3][0-9]\b")

# The man pages and the tc plugin each documents.
MAN_PLUGINS = {
    "tc-dfs.8": "q_dfs.c",
    "tc-stfq.8": "q_stfq.c",
    "tc-lrufq.8": "f_lrufq.c",
    "tc-hishape.8": "q_hishape.c",
}
# Bold words of a SYNOPSIS that are the command, not the plugin's.
COMMAND_WORDS = {"tc", "qdisc", "class", "filter", "root"}
# Keywords a plugin compares an argument with that its page need not
# name as a word of its own, and why.
UNDOCUMENTED_OK = {
    ("f_lrufq.c", "0"): "pin's RATE 0, pinning off, said in pin's text",
}
# An argument compared with a string: strcmp(*argv, "x"), matches(...).
ARGV_CMP_RE = re.compile(r"\b(?:strcmp|matches)\s*\(\s*(?:\*argv|argv\[0\])"
                         r"\s*,\s*\"([^\"]*)\"")

FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN_RE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.S)
LINK_RE = re.compile(r"\]\(\s*<?([^()\s<>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REF_DEF_RE = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
HEADING_RE = re.compile(r"^ {0,3}(#{1,6})(?:\s+(.*?))?(?:\s+#+)?\s*$")
HTML_ANCHOR_RE = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")


class Failures:
    def __init__(self):
        self.items = []

    def add(self, path, line, what):
        rel = os.path.relpath(path)
        if rel.startswith(".."):
            rel = path
        self.items.append("%s:%d: %s" % (rel, line, what))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def outside_fences(text):
    """TEXT with the lines of fenced code blocks blanked, lines kept."""
    out, fence = [], None
    for line in text.split("\n"):
        m = FENCE_RE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and \
               len(m.group(1)) >= len(fence) and \
               not line.strip().strip(fence[0]):
                fence = None
            out.append("")
        elif m:
            fence = m.group(1)
            out.append("")
        else:
            out.append(line)
    return "\n".join(out)


def blank_code_spans(text):
    """TEXT with inline code blanked, newlines kept."""
    return CODE_SPAN_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)),
                            text)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def check_readme_length(root, fails):
    path = os.path.join(root, "README.md")
    n = len(read(path).splitlines())
    if n > README_MAX_LINES:
        fails.add(path, README_MAX_LINES + 1,
                  "README.md is %d lines, at most %d" % (n, README_MAX_LINES))


def table_cells(row):
    """The cells of a |-table row: a \\| or a | in code splits none."""
    cells, cur, i, tick = [], [], 0, 0
    while i < len(row):
        c = row[i]
        if c == "\\" and i + 1 < len(row):
            cur.append(row[i:i + 2])
            i += 2
            continue
        if c == "`":
            n = len(row[i:]) - len(row[i:].lstrip("`"))
            if not tick and row.find("`" * n, i + n) >= 0:
                tick = n
            elif tick == n:
                tick = 0
            cur.append("`" * n)
            i += n
            continue
        if c == "|" and not tick:
            cells.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    cells.append("".join(cur))
    return [c.strip() for c in cells[1:]]   # before the first "|": none


def check_table_cells(path, fails):
    for n, line in enumerate(outside_fences(read(path)).split("\n"), 1):
        if not line.lstrip().startswith("|"):
            continue
        for i, cell in enumerate(table_cells(line.strip()), 1):
            if len(cell) > CELL_MAX_CHARS:
                fails.add(path, n, "table cell %d is %d characters, at "
                          "most %d" % (i, len(cell), CELL_MAX_CHARS))


def check_history(path, fails):
    text = read(path)
    for n, line in enumerate(text.split("\n"), 1):
        for m in HASH_RE.finditer(line):
            if m.group(0) not in NOT_HASHES:
                fails.add(path, n, "a commit hash: %s" % m.group(0))
        for m in DATE_RE.finditer(line):
            fails.add(path, n, "a run's date: %s" % m.group(0))
    for m in HISTORY_RE.finditer(text):
        fails.add(path, line_of(text, m.start()), "run history: \"%s\"" %
                  " ".join(m.group(0).split()))


def slug(heading):
    """GitHub's anchor of a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = re.sub(r"<[^>]+>", "", text).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(path, cache={}):
    if path not in cache:
        text = outside_fences(read(path))
        found, seen = set(HTML_ANCHOR_RE.findall(text)), {}
        for line in text.split("\n"):
            m = HEADING_RE.match(line)
            if not m:
                continue
            s = slug(m.group(2) or "")
            k = seen.get(s, 0)
            seen[s] = k + 1
            found.add(s if k == 0 else "%s-%d" % (s, k))
        cache[path] = found
    return cache[path]


def check_links(path, root, fails):
    text = blank_code_spans(outside_fences(read(path)))
    targets = [(m.start(), m.group(1)) for m in LINK_RE.finditer(text)]
    targets += [(m.start(), m.group(1)) for m in REF_DEF_RE.finditer(text)]
    for pos, target in targets:
        if re.match(r"[a-zA-Z][a-zA-Z0-9+.-]*:", target):
            continue                    # http:, https:, mailto:
        where, _, anchor = target.partition("#")
        where = urllib.parse.unquote(where)
        if not where:
            dest = path
        elif where.startswith("/"):
            dest = os.path.join(root, where.lstrip("/"))
        else:
            dest = os.path.join(os.path.dirname(path), where)
        n = line_of(text, pos)
        if not os.path.exists(dest):
            fails.add(path, n, "link to %s: no such file" % target)
        elif anchor and dest.endswith(".md") and \
                urllib.parse.unquote(anchor) not in anchors(dest):
            fails.add(path, n, "link to %s: no heading #%s in %s" %
                      (target, anchor, os.path.basename(dest)))


def first_table(path, heading):
    """{first cell: {header: cell}} of the first table under HEADING, and
    the line of its header."""
    lines = read(path).split("\n")
    try:
        i = lines.index(heading)
    except ValueError:
        return None, 0
    while i < len(lines) and not lines[i].startswith("|"):
        i += 1
    if i == len(lines):
        return None, 0
    head, rows = table_cells(lines[i]), {}
    for line in lines[i + 2:]:
        if not line.startswith("|"):
            break
        cells = table_cells(line)
        rows[cells[0]] = dict(zip(head, cells))
    return rows, i + 1


def check_flagship(root, fails):
    """The README restates one table, make demo's: its every cell must be
    lab.md's scenario 1 table's, the figures' one place."""
    readme = os.path.join(root, "README.md")
    lab = os.path.join(root, "doc", "lab.md")
    mine, n = first_table(readme, "## Results")
    theirs, _ = first_table(lab, "## Scenario 1")
    if not mine or not theirs:
        fails.add(readme, n or 1, "no table under '## Results' or no "
                  "scenario 1 table in doc/lab.md")
        return
    if set(mine) != set(theirs):
        fails.add(readme, n, "the results table's qdiscs are not lab.md's "
                  "scenario 1's: %s" % ", ".join(sorted(set(mine) ^
                                                       set(theirs))))
    for qdisc, row in mine.items():
        for col, cell in row.items():
            want = theirs.get(qdisc, {}).get(col)
            if qdisc in theirs and want != cell:
                fails.add(readme, n, "%s, %s: %s here, %s in doc/lab.md's "
                          "scenario 1" % (qdisc, col, cell, want))


def tool(name):
    """tools/NAME.py as a module."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(here, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check_recipes(root, fails):
    """doc/operate.md's shell blocks are each a recipe the package test
    runs, or say why not (tools/doc_recipes.py)."""
    path = os.path.join(root, "doc", "operate.md")
    if not os.path.exists(path):
        fails.add(os.path.join(root, "README.md"), 1,
                  "no doc/operate.md: an operator has no page to deploy from")
        return
    for line in tool("doc_recipes").check(path):
        where, n, what = line.split(":", 2)
        fails.add(where, int(n), what.strip())


def synopsis_words(path, md):
    """[(word, line, bold)] of PAGE's SYNOPSIS."""
    words, in_syn = [], False
    for n, line in enumerate(read(path).splitlines(), 1):
        if line.startswith(".SH"):
            in_syn = line[3:].strip().strip('"') == "SYNOPSIS"
            continue
        if not in_syn or line.startswith(".\\\""):
            continue
        if line.startswith("."):
            macro, _, rest = line[1:].partition(" ")
            args = [m.group(1) if m.group(1) is not None else m.group(2)
                    for m in re.finditer(r'"((?:[^"]|"")*)"|(\S+)', rest)]
            # .B: bold; .BR, .BI: its odd arguments; .RB, .IB: even ones
            first = {"B": 0, "BR": 0, "BI": 0, "RB": 1, "IB": 1}.get(macro)
            parts = [(a, first is not None and
                      (macro == "B" or i % 2 == first))
                     for i, a in enumerate(args)]
        else:
            parts = [(p, i % 2 == 1) for i, p in
                     enumerate(re.split(r"\\fB(.*?)\\f[RPI]", line))]
        for part, bold in parts:
            for w in re.findall(r"[A-Za-z0-9_][A-Za-z0-9_-]*",
                                md.unescape(part)):
                words.append((w, n, bold))
    return words


def check_man_page(root, page, plugin, md, fails):
    man = os.path.join(root, "iproute2", "man", "man8", page)
    src_path = os.path.join(root, "iproute2", "tc", plugin)
    src = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                 read(src_path), flags=re.S)
    literals = set(re.findall(r'"((?:[^"\\\n]|\\.)*)"', src))
    try:
        entries, _ = md.read_entries(man)
    except md.ManError as e:
        fails.add(man, 1, str(e))
        return
    listed = []
    for e in entries:
        line = int(e.where.rsplit(":", 1)[1])
        listed += [(o, line, "PARAMETERS") for o in e.options]
    syn = synopsis_words(man, md)
    listed += [(w, n, "SYNOPSIS") for w, n, bold in syn
               if bold and w not in COMMAND_WORDS]
    for word, n, section in listed:
        if word not in literals:
            fails.add(man, n, "%s's %s names \"%s\", which %s does not "
                      "parse" % (page, section, word, plugin))
    documented = {o for e in entries for o in e.options} | \
        {w for w, _, _ in syn} | {"help"}
    for m in ARGV_CMP_RE.finditer(src):
        word = m.group(1)
        if word not in documented and (plugin, word) not in UNDOCUMENTED_OK:
            fails.add(src_path, line_of(src, m.start()),
                      "%s takes \"%s\", which %s does not document" %
                      (plugin, word, page))


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--root", default=os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))),
        help="the tree to check (default: this one)")
    ap.add_argument("--links", metavar="DIR",
                    help="check only the links of every page under DIR "
                    "(the pages a package installs)")
    args = ap.parse_args()
    root = args.root
    fails = Failures()
    if args.links:
        pages = sorted(glob.glob(os.path.join(args.links, "**", "*.md"),
                                 recursive=True))
        for path in pages:
            check_links(path, args.links, fails)
        for f in fails.items:
            print(f)
        print("check-docs: %d broken link%s in %d pages under %s" %
              (len(fails.items), "" if len(fails.items) == 1 else "s",
               len(pages), args.links))
        return 1 if fails.items or not pages else 0
    pages = [os.path.join(root, "README.md")] + \
        sorted(glob.glob(os.path.join(root, "doc", "*.md")))
    check_readme_length(root, fails)
    for path in pages:
        check_table_cells(path, fails)
        check_history(path, fails)
        check_links(path, root, fails)
    check_recipes(root, fails)
    check_flagship(root, fails)
    md = tool("man_defaults")
    for page, plugin in MAN_PLUGINS.items():
        check_man_page(root, page, plugin, md, fails)
    for f in fails.items:
        print(f)
    print("check-docs: %d failure%s in %d pages and %d man pages" %
          (len(fails.items), "" if len(fails.items) == 1 else "s",
           len(pages), len(MAN_PLUGINS)))
    return 1 if fails.items else 0


if __name__ == "__main__":
    sys.exit(main())
