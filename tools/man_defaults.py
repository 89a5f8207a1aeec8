#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the defaults a tc man page states with what tc -j shows.

  man_defaults.py --man PAGE --dump JSON --select KEY=VALUE[,KEY=VALUE] \\
      --types "OPTION=TYPE ..." [--given "OPTION=VALUE ..."] \\
      [--skip "OPTION=WHY"]... [--extra "KEY=WHY"]... \\
      [--hidden "OPTION ..."] [--omitted "KEY=VALUE ..."] \\
      [--derived "TEXT=VALUE"]... \\
      [--same-as KEY=VALUE[,KEY=VALUE] [--same-as-dump JSON]]
  man_defaults.py --man PAGE --list
  man_defaults.py --man PAGE --tc-args [--given ...] [--skip ...] \\
      [--derived ...]

Each option of the page's PARAMETERS section is a ".SS" heading (its
first word, or a comma-separated list of options) or the tag of a ".TP"
(".BI limit \\" PACKETS\\"": limit), and its text states its default as
"Default VALUE." or, mid-sentence, "default VALUE," (the value ends the
clause); a heading of two options as "Defaults A and B."; a default that
depends on the device as "Default: TEXT.", whose value --derived gives.
An option that states no default, a "default" read no other way, a value
tc would not take, a default tc -j does not show and a key it shows that
no option, --given or --extra accounts for all fail.

--dump is tc -j's output; --select picks the one object, with options,
whose KEY is VALUE for each pair (dev=d0,kind=dfs).  --types says how tc
-j shows each option with a default:

  size   bytes, from tc's sizes (1Mb, 64kb)
  rate   bytes/s, from tc's rates (0, 100mbit; a bare number is bit/s)
  us, ms microseconds or milliseconds, from tc's times (10ms, 3600s);
         us:A=N: the word A shown as N (cpr_period auto as 0)
  frac   a plain number, from 0.04, 1/50 or 5%
  int    an integer; hex: an integer tc shows in hexadecimal
  word   as the man page says it; word:A=B,C=D: A shown as B, C as D
  bool:ON/OFF  true for ON, false for OFF

--given: options added with a value, compared with it instead.
--skip: options not compared, and why; --extra: keys tc shows that are no
option, and why.  --hidden: options tc does not show here (compared if
it does); --omitted KEY=VALUE: tc does not show KEY when it is VALUE (in
tc -j's unit).

--same-as: the object it selects, in --same-as-dump or else --dump, has
the same options as --select's (but a filter's handle): an object added
with every option given at its default is the one added with none.

Prints a line an option, "ok", "FAIL" or "--" (not compared); exits 1 on
any failure, 2 on bad arguments.  --list prints the defaults read.
--tc-args prints "args" and every option of the page at its default as
tc takes it ("limit 1Mb", "cpr adaptive", "ecn", "cpr_period auto"), in
the page's order: --given's value instead (an empty one: the bare word),
--derived's for a default the device decides, an option with no default
and no argument (a flag) bare, one with --skip not at all; an option
with no default to give fails.
Several cases, each from its "--case NAME" on, are checked in one run
(Python starts slowly in the test VM), each after a line "== NAME".
"""
import argparse
import json
import re
import sys

FONT_MACROS = {"B": " ", "I": " ", "SM": " ", "SB": " ",
               "BR": "", "RB": "", "BI": "", "IB": "", "IR": "", "RI": ""}
# Macros that carry no text an option's default could be in.
QUIET_MACROS = {"br", "sp", "nf", "fi", "RS", "RE", "in", "ti", "ad", "na",
                "hy", "nh", "ne", "\\\""}
ESCAPES = [("\\-", "-"), ("\\e", "\\"), ("\\&", ""), ("\\ ", " "),
           ("\\(aq", "'"), ("\\(lq", '"'), ("\\(rq", '"'), ("\\(em", "--"),
           ("\\fB", ""), ("\\fI", ""), ("\\fR", ""), ("\\fP", "")]
# What ends a default's value: the clause, or a parenthesis after it.
VALUE_END = r"(?:[.,;:](?=\s|$)|(?=\s\()|$)"
DEFAULT_RES = [
    ("pair", re.compile(r"Defaults (\S+?) and (\S+?)" + VALUE_END)),
    ("derived", re.compile(r"Default: ([^.]+)\.(?=\s|$)")),
    ("value", re.compile(r"[Dd]efault ([^\s,;:()]+?)" + VALUE_END)),
]


class ManError(Exception):
    pass


def tc_words(header, option, value):
    """OPTION at VALUE as tc takes it: OPTION VALUE, or VALUE alone where
    the heading's alternatives are whole forms and one is VALUE alone
    ("ecn | noecn", "cpr adaptive | cpr tau FRACTION | nocpr"), not an
    option's values ("sched fifo | fq")."""
    alts = [a.split() for a in header.split("|")]
    forms = alts[0] == [option] or any(a[:1] == [option] for a in alts[1:])
    if value == option or (forms and [value] in alts):
        return [value]
    return [option, value]


def unescape(text):
    for esc, plain in ESCAPES:
        text = text.replace(esc, plain)
    return text


def troff_text(line, where):
    """The text a troff line prints, fonts dropped."""
    if not line.startswith("."):
        return unescape(line)
    macro, _, rest = line[1:].partition(" ")
    if macro in QUIET_MACROS or macro.startswith("\\\""):
        return ""
    if macro not in FONT_MACROS:
        raise ManError("%s: macro .%s not understood" % (where, macro))
    args = [m.group(1) if m.group(1) is not None else m.group(2)
            for m in re.finditer(r'"((?:[^"]|"")*)"|(\S+)', rest)]
    return unescape(FONT_MACROS[macro].join(a.replace('""', '"')
                                            for a in args))


class Entry:
    def __init__(self, header, where):
        self.header = " ".join(header.split())
        self.where = where
        self.body = []
        if "," in self.header:
            self.options = [o.strip() for o in self.header.split(",")]
        else:
            self.options = self.header.split()[:1]
        for o in self.options:
            if not re.fullmatch(r"[a-z0-9_-]+", o):
                raise ManError("%s: no option name in heading \"%s\"" %
                               (where, self.header))

    def text(self):
        return " ".join(" ".join(self.body).split())


def read_entries(path):
    """The options of PAGE's PARAMETERS section, and text outside them."""
    entries, loose = [], []
    cur, in_params, want_tag = None, False, False
    with open(path) as f:
        lines = f.read().splitlines()
    for n, line in enumerate(lines, 1):
        where = "%s:%d" % (path, n)
        if line.startswith(".SH"):
            in_params = line[3:].strip().strip('"') == "PARAMETERS"
            cur = None
            continue
        if not in_params:
            continue
        if line.startswith(".SS "):
            cur = Entry(troff_text(line[4:], where), where)
            entries.append(cur)
        elif line == ".TP" or line.startswith(".TP "):
            cur, want_tag = None, True
        elif want_tag:
            cur = Entry(troff_text(line, where), where)
            entries.append(cur)
            want_tag = False
        elif line in (".PP", ".P", ".LP"):
            cur = None
        elif cur:
            cur.body.append(troff_text(line, where))
        else:
            loose.append((where, troff_text(line, where)))
    if not entries:
        raise ManError("%s: no options in a PARAMETERS section" % path)
    return entries, loose


def defaults_of(entry):
    """[(option, kind, value)] of the statements of ENTRY's text."""
    text, found, pos = entry.text(), [], 0
    for m in re.finditer(r"\b[Dd]efaults?\b", text):
        if m.start() < pos:
            continue  # inside the statement just read
        for kind, rx in DEFAULT_RES:
            s = rx.match(text, m.start())
            if s:
                break
        else:
            raise ManError("%s: %s: a default not read: \"...%s...\"" %
                           (entry.where, entry.header,
                            text[max(0, m.start() - 30):m.start() + 40]))
        found.append((kind, s.groups()))
        pos = s.end()
    if not found:
        return []
    if len(found) > 1:
        raise ManError("%s: %s: %d defaults stated" %
                       (entry.where, entry.header, len(found)))
    kind, values = found[0]
    if (kind == "pair") != (len(entry.options) == 2) or \
       len(entry.options) > 2:
        raise ManError("%s: %s: %d options, %d defaults" %
                       (entry.where, entry.header, len(entry.options),
                        len(values)))
    return [(o, kind, v) for o, v in zip(entry.options, values)]


def read_defaults(path):
    """{option: (kind, value text, where)}, {option without a default:
    where}; kind "error" for a default not read, value then saying why."""
    entries, loose = read_entries(path)
    for where, text in loose:
        if re.search(r"\b[Dd]efaults?\b", text):
            raise ManError("%s: a default outside any option: \"%s\"" %
                           (where, text))
    defaults, none = {}, {}
    for e in entries:
        try:
            stated = defaults_of(e)
        except ManError as err:
            # failed only if the option is compared
            stated = [(o, "error", str(err)) for o in e.options]
        for o, kind, value in stated:
            defaults[o] = (kind, value, e.where)
        if not stated:
            for o in e.options:
                none[o] = e.where
    return defaults, none


# --- tc's units (iproute2 lib/utils_math.c get_size, get_rate, lib/utils.c
# get_time) ---------------------------------------------------------------

SIZE_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "m": 1 << 20,
              "mb": 1 << 20, "g": 1 << 30, "gb": 1 << 30,
              "kbit": 1024 // 8, "mbit": (1 << 20) // 8,
              "gbit": (1 << 30) // 8}
RATE_UNITS = {"": 1, "bit": 1, "kibit": 1024, "kbit": 1e3, "mibit": 1 << 20,
              "mbit": 1e6, "gibit": 1 << 30, "gbit": 1e9, "tibit": 1 << 40,
              "tbit": 1e12, "bps": 8, "kibps": 8 * 1024, "kbps": 8e3,
              "mibps": 8 * (1 << 20), "mbps": 8e6, "gibps": 8 * (1 << 30),
              "gbps": 8e9, "tibps": 8 * (1 << 40), "tbps": 8e12}
TIME_UNITS = {"": 1, "s": 1e6, "sec": 1e6, "secs": 1e6, "ms": 1e3,
              "msec": 1e3, "msecs": 1e3, "us": 1, "usec": 1, "usecs": 1}


def number_unit(text):
    m = re.fullmatch(r"([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)([A-Za-z%]*)",
                     text)
    if not m:
        raise ValueError("not a number")
    return float(m.group(1)), m.group(2).lower()


def scaled(text, units, what):
    num, unit = number_unit(text)
    if unit not in units:
        raise ValueError("\"%s\" is not a unit of %s" % (unit, what))
    return num * units[unit]


def whole(x):
    if x != int(x):
        raise ValueError("not a whole number")
    return int(x)


def convert(text, typ):
    """TEXT, as tc would take it, in tc -j's unit for TYP."""
    name, _, arg = typ.partition(":")
    if name == "size":
        return whole(scaled(text, SIZE_UNITS, "size"))
    if name == "rate":
        return whole(scaled(text, RATE_UNITS, "rate") / 8)
    if name in ("us", "ms"):
        names = dict(p.split("=", 1) for p in arg.split(",") if p)
        if text in names:
            return int(names[text])
        us = scaled(text, TIME_UNITS, "time")
        return whole(us if name == "us" else us / 1000)
    if name == "frac":
        m = re.fullmatch(r"([0-9.]+)/([0-9.]+)", text)
        if m:
            return float(m.group(1)) / float(m.group(2))
        num, unit = number_unit(text)
        if unit not in ("", "%"):
            raise ValueError("not a fraction")
        return num / 100 if unit == "%" else num
    if name == "int":
        if not re.fullmatch(r"[0-9]+", text):
            raise ValueError("not an integer")
        return int(text)
    if name == "hex":
        return int(text, 16)
    if name == "word":
        names = dict(p.split("=", 1) for p in arg.split(",") if p)
        return names.get(text, text)
    if name == "bool":
        on, _, off = arg.partition("/")
        if text not in (on, off):
            raise ValueError("neither %s nor %s" % (on, off))
        return text == on
    raise ValueError("unknown type %s" % typ)


def same(shown, want, typ):
    if typ == "hex":
        try:
            shown = int(str(shown), 16)
        except ValueError:
            return False
    if typ == "frac":
        return isinstance(shown, (int, float)) and \
            not isinstance(shown, bool) and abs(shown - want) <= 5e-7
    if isinstance(want, bool) or isinstance(shown, bool):
        return shown is want
    return shown == want


def pairs(items):
    """{KEY: VALUE} of "KEY=VALUE ..." arguments."""
    out = {}
    for word in " ".join(items).split():
        k, eq, v = word.partition("=")
        if not eq:
            raise SystemExit("man_defaults: \"%s\" is not KEY=VALUE" % word)
        out[k] = v
    return out


def reasons(items):
    """--skip/--extra "KEY=WHY" (the reason has spaces)."""
    out = {}
    for item in items:
        k, eq, why = item.partition("=")
        if not eq or not why:
            raise SystemExit("man_defaults: \"%s\" is not KEY=WHY" % item)
        out[k.strip()] = " ".join(why.split())
    return out


def select(dump, spec):
    want = pairs([spec.replace(",", " ")])
    found = [o for o in dump if "options" in o and
             all(str(o.get(k)) == v for k, v in want.items())]
    if len(found) != 1:
        raise ManError("%d objects of the dump with options match %s" %
                       (len(found), spec))
    return found[0]["options"]


def check(args):
    fails = []

    def fail(msg):
        fails.append(msg)
        print("FAIL " + msg)

    try:
        defaults, none = read_defaults(args.man)
    except (OSError, ManError) as e:
        print("FAIL %s" % e)
        return 1
    if args.list:
        for o, (kind, value, where) in defaults.items():
            print("%s: %s %s (%s)" % (o, kind, value, where))
        for o, where in none.items():
            print("%s: no default (%s)" % (o, where))
        return 0

    types = pairs(args.types)
    given = pairs(args.given)
    skip, extra = reasons(args.skip), reasons(args.extra)
    hidden = set(" ".join(args.hidden).split())
    omitted = {k: json.loads(v) for k, v in pairs(args.omitted).items()}
    derived = {" ".join(k.split()): v for k, _, v in
               (d.rpartition("=") for d in args.derived)}
    options = set(defaults) | set(none)
    for name, lst in (("--types", types), ("--given", given),
                      ("--skip", skip), ("--hidden", hidden)):
        for o in sorted(set(lst) - options):
            fail("%s names %s, which %s does not" % (name, o, args.man))
    if args.tc_args:
        words = []
        for e in read_entries(args.man)[0]:
            for o in (o for o in e.options if o not in skip):
                kind, value, where = defaults.get(o, ("none", o, None))
                if o in given:
                    value = given[o]
                elif kind == "error":
                    fail("%s: %s" % (o, value))
                elif kind == "derived" and \
                        " ".join(value.split()) not in derived:
                    fail("%s: default \"%s\" (%s): no --derived value" %
                         (o, value, where))
                elif kind == "derived":
                    value = derived[" ".join(value.split())]
                elif kind == "none" and e.header != o:
                    fail("%s: no default to give (%s)" % (o, none[o]))
                words += tc_words(e.header, o, value) if value else [o]
        if not fails:
            print("args " + " ".join(words))
        return 1 if fails else 0
    try:
        with open(args.dump) as f:
            dump = json.load(f)
        shown = select(dump, args.select)
    except (OSError, ValueError, ManError) as e:
        fail("%s: %s" % (args.dump, e))
        return 1
    other = None
    if args.same_as:
        try:
            if args.same_as_dump:
                with open(args.same_as_dump) as f:
                    dump = json.load(f)
            other = select(dump, args.same_as)
        except (OSError, ValueError, ManError) as e:
            fail("%s: %s" % (args.same_as_dump or args.dump, e))
            return 1

    accounted = set()
    for o in sorted(options):
        if o in skip:
            print("-- %s: not compared: %s" % (o, skip[o]))
            continue
        typ = types.get(o)
        if o in given:
            text, whence = given[o], "given"
            shown_text = text
        elif o in defaults:
            kind, text, where = defaults[o]
            whence, shown_text = "the man page's default", text
            if kind == "error":
                fail("%s: %s" % (o, text))
                continue
            if kind == "derived":
                key = " ".join(text.split())
                if key not in derived:
                    fail("%s: default \"%s\" (%s): no --derived value" %
                         (o, text, where))
                    continue
                text = derived[key]
                shown_text = "\"%s\": %s" % (key, text)
        else:
            fail("%s: %s states no default (%s)" % (o, args.man, none[o]))
            continue
        if typ is None:
            fail("%s: no --types for it" % o)
            continue
        try:
            want = convert(text, typ)
        except (ValueError, ArithmeticError) as e:
            fail("%s: %s \"%s\" is no %s: %s" % (o, whence, text, typ, e))
            continue
        accounted.add(o)
        if str(want) != text:
            shown_text += " (%s)" % (json.dumps(want),)
        if o not in shown:
            if o in omitted:
                if same(omitted[o], want, typ):
                    print("ok %s: %s %s, not shown, as tc does when %s" %
                          (o, whence, shown_text, omitted[o]))
                else:
                    fail("%s: %s %s, but tc shows none, as when %s" %
                         (o, whence, shown_text, omitted[o]))
            elif o in hidden:
                print("-- %s: not shown here" % o)
            else:
                fail("%s: %s %s, but tc -j shows no %s" %
                     (o, whence, shown_text, o))
            continue
        if same(shown[o], want, typ):
            print("ok %s: %s %s, tc -j shows %s" %
                  (o, whence, shown_text, json.dumps(shown[o])))
        else:
            fail("%s: %s %s, but tc -j shows %s" %
                 (o, whence, shown_text, json.dumps(shown[o])))
    for k in sorted(set(shown) - accounted):
        if k in extra:
            print("-- %s: shown, not an option: %s" % (k, extra[k]))
        elif k not in options:
            fail("%s: tc -j shows %s, which is no option of %s" %
                 (k, json.dumps(shown[k]), args.man))
    for k in sorted(set(extra) - set(shown)):
        fail("--extra names %s, which tc -j does not show" % k)
    if other is not None:
        # A filter's options carry its handle, tc's and no option.
        differ = sorted(k for k in (set(shown) | set(other)) - {"handle"}
                        if shown.get(k, "absent") != other.get(k, "absent"))
        for k in differ:
            fail("%s: tc -j shows %s, but %s with %s" %
                 (k, json.dumps(shown.get(k)), json.dumps(other.get(k)),
                  args.same_as))
        if not differ:
            print("ok the same options as %s" % args.same_as)
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--case")
    ap.add_argument("--man", required=True)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--tc-args", action="store_true")
    ap.add_argument("--dump")
    ap.add_argument("--select")
    ap.add_argument("--same-as")
    ap.add_argument("--same-as-dump")
    for opt in ("types", "given", "skip", "extra", "hidden", "omitted",
                "derived"):
        ap.add_argument("--" + opt, action="append", default=[])
    argv = sys.argv[1:]
    starts = [i for i, a in enumerate(argv) if a == "--case"] or [0]
    if starts[0] != 0:
        ap.error("arguments before the first --case")
    rc = 0
    for i, j in zip(starts, starts[1:] + [len(argv)]):
        args = ap.parse_args(argv[i:j])
        if not (args.list or args.tc_args or (args.dump and args.select)):
            ap.error("--dump and --select, --list or --tc-args")
        if args.case:
            print("== " + args.case)
        rc |= check(args)
    sys.exit(rc)


if __name__ == "__main__":
    main()
