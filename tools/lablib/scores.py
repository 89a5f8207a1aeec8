# SPDX-License-Identifier: GPL-2.0
"""From a scenario's scored ranges to what an operator would load
(scenario 7): a drop list for the binary decision, a rate table for
sch_hishape.

The detector gives every range a score: how likely its sources are
legitimate (a CLP).  The binary decision, as DDoS filters make it, drops
every range scored under SUSPECT and passes the rest untouched: an honest
host scored 0.4 loses everything.  HiShape's paper replaces the cut by a
rate that grows with the score.  Here the ranges scored under SUSPECT
share SUSPECT_SHARE of the link, each in proportion to the square of its
score: a range scored 0.4 gets 16 times the rate of one scored 0.1, and
the suspects together can never take more than their share, however
many they are.  Ranges at or above SUSPECT are not in the table: they
pass, as they would with the drop list, so the two differ only in what
they do to the suspects.
"""
import scenarios

SUSPECT = 0.5
SUSPECT_SHARE = 0.25


def suspects(scn):
    return [r for r in scn.ranges if r.score < SUSPECT]


def rates(scn):
    """bit/s of each suspect range, keyed by its text."""
    sus = suspects(scn)
    total = sum(r.score ** 2 for r in sus)
    budget = SUSPECT_SHARE * scenarios.LINK_BPS
    return {r.text: max(8, int(budget * r.score ** 2 / total)) for r in sus}


def hishape_table(scn):
    """The ranges FILE of tc-hishape(8)."""
    lines = ["# %s: the suspects (score < %g) share %d%% of the link, each "
             "by the square" % (scn.name, SUSPECT, SUSPECT_SHARE * 100),
             "# of its score; the others pass.  range  rate  # score"]
    by_text = {r.text: r for r in scn.ranges}
    for text, bps in rates(scn).items():
        lines.append("%-26s %dbit  # %.3f" % (text, bps, by_text[text].score))
    return "\n".join(lines) + "\n"


def nft_droplist(scn):
    """nft(8) input: drop what the suspect ranges send, in the router's
    forward hook (an interval set, today's way of holding such a list)."""
    elems = ",\n\t\t\t".join(r.text for r in suspects(scn))
    return ("table ip lab_droplist {\n"
            "\tset suspects {\n"
            "\t\ttype ipv4_addr\n"
            "\t\tflags interval\n"
            "\t\telements = { %s }\n"
            "\t}\n"
            "\tchain forward {\n"
            "\t\ttype filter hook forward priority filter; policy accept;\n"
            "\t\tip saddr @suspects counter drop\n"
            "\t}\n"
            "}\n" % elems)
