#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The defaults the man pages state are the modules' own.  dfs (in sched fq
# and in sched fifo, where tc shows fewer parameters), stfq (qdisc and
# class), hishape and the lrufq filter are added with no options, or only
# those they need, and every parameter tc -d -j shows is compared with the
# default that the module's man page (iproute2/man/man8/tc-*.8) states
# for it, read and converted from tc's units by tools/man_defaults.py.
# A default the parser cannot read, one tc does not show, an option that
# states none and a parameter tc shows that is no option all fail; what is
# not compared is listed below, with the reason.  -d: tc shows CPR's
# parameters with it alone where CPR is off or not adaptive.
#
# And every option a man page lists is one tc and the module take: each
# is added again with every option given at the default its man page
# states (man_defaults.py --tc-args), and must be the object added with
# none, option for option (--same-as).

source "$(dirname "$0")/lib.sh"

HERE=$(dirname "$0")
MAN=$HERE/../iproute2/man/man8
MAN_DEFAULTS=$HERE/../tools/man_defaults.py
NS_PREFIX=defaults-$$-
NS=t
TMP=

# How tc -j shows each option (tools/man_defaults.py): sizes in bytes,
# rates in bytes/s, times in microseconds but dfs's prune in milliseconds.
DFS_TYPES="limit=size memory_limit=size flows=int order=int cache=int
	key=word max_th=frac min_th=frac delta_i=frac delta_d=frac
	freeze_time=us tolerance=int beta=frac prune=ms rate_interval=us
	ecn=bool:ecn/noecn bandwidth=rate sched=word quantum=size target=us
	interval=us cpr=word:nocpr=off cpr_period=us:auto=0 cpr_min_packets=int
	cpr_signal=word cpr_alpha=frac cpr_beta=frac cpr_tau_min=frac
	cpr_tau_max=frac"
STFQ_TYPES="default=hex weight=int"
HISHAPE_TYPES="match=word default=word limit=int pass_limit=int
	memory_limit=size"
LRUFQ_TYPES="high=word low=word cache=int probability=frac threshold=int
	window=us key=word pin=rate"

# Not compared, and why: options (--skip) and what tc shows that is no
# option (--extra).
DFS_EXTRA=(--extra "cpr_tau=the fixed tau, which 'cpr tau FRACTION' always
sets (adaptive tau starts at cpr_tau_max): its default is never in effect")
STFQ_QDISC_SKIP=(--skip "weight=a class option: compared on the class"
	--skip "quantum-free=a class option, accepted and ignored")
STFQ_CLASS_SKIP=(--skip "default=a qdisc option: compared on the qdisc"
	--skip "quantum-free=accepted and ignored: nothing is kept or shown")
HISHAPE_SKIP=(--skip "ranges=the table, none unless given; a line's
default burst is tc's, and tc does not show it"
	--extra "ranges4=ranges of the table: none"
	--extra "ranges6=ranges of the table: none")
LRUFQ_SKIP=(--extra "handle=the filter's handle, tc's, no lrufq option")

# dfs's default quantum, as the man page states it: a dummy device's
# link-layer header is Ethernet's, 14 bytes.
DFS_QUANTUM="the device's MTU plus its link-layer header, and at least 256"
quantum_of()
{
	local q=$(($1 + 14))

	echo $((q < 256 ? 256 : q))
}

cleanup()
{
	ip netns del "$(nsname $NS)" 2>/dev/null
	[ -z "$TMP" ] || rm -rf "$TMP"
}

# tc 6.1 prints classes as text alone, -j or not: each class of the text
# on stdin as tc -j would show it, its options the "KEY VALUE" pairs
# after its id, parent and leaf (a lone last word: KEY null).
class_json()
{
	awk 'BEGIN { printf "[" }
	$1 == "class" {
		i = 4
		if ($i == "root") i++; else if ($i == "parent") i += 2
		if ($i == "leaf") i += 2
		printf "%s{\"class\": \"%s\", \"handle\": \"%s\", \"options\": {",
			sep, $2, $3
		for (s = ""; i <= NF; i += 2) {
			v = i < NF ? $(i + 1) : "null"
			if (v !~ /^([0-9]+|null)$/) v = "\"" v "\""
			printf "%s\"%s\": %s", s, $i, v
			s = ", "
		}
		printf "}}"
		sep = ", "
	}
	END { print "]" }'
}

# case_add NAME DUMP SELECT MAN_PAGE ARGS...: a case for tools/man_defaults.py,
# ARGS its own; run_cases then runs them all in one Python.
CASES=()
CASE_ARGS=()
case_add()
{
	CASES+=("$1")
	CASE_ARGS+=(--case "$1" --dump "$2" --select "$3" --man "$MAN/$4" "${@:5}")
}

# tc_args NAME: the tc arguments of case NAME of $TC_ARGS, or a failure.
tc_args()
{
	local block

	block=$(awk -v h="== $1" '$0 == h { p = 1; next } /^== / { p = 0 } p' \
		<<<"$TC_ARGS")
	if ! grep -q '^args ' <<<"$block"; then
		echo "no tc arguments from man_defaults.py: $block" >&2
		return 1
	fi
	sed -n 's/^args //p' <<<"$block"
}

# add_given NAME CMD...: run tc CMD with case NAME's arguments added.
add_given()
{
	local args

	args=$(tc_args "$1") || return 1
	in_ns $NS tc "${@:2}" $args
}

run_cases()
{
	local out name block skipped

	out=$(python3 -S "$MAN_DEFAULTS" "${CASE_ARGS[@]}" 2>&1)
	[ "$VERBOSE" = 0 ] || sed 's/^/\t/' <<<"$out"
	for name in "${CASES[@]}"; do
		RET=0
		block=$(awk -v h="== $name" '$0 == h { p = 1; next }
			/^== / { p = 0 } p' <<<"$out")
		if [ -z "$block" ]; then
			check_err 1 "no result from man_defaults.py: $(tail -n 3 <<<"$out")"
		else
			! grep -q '^FAIL' <<<"$block"
			check_err $? "$(grep '^FAIL' <<<"$block" | sed '2,$s/^/\t/')"
		fi
		log_test "$name"
		skipped=$(sed -n 's/^-- \([^:]*\):.*/\1/p' <<<"$block")
		[ -z "$skipped" ] || log_info "$name: not compared:" $skipped
	done
}

require_command tc ip python3
trap cleanup EXIT
TMP=$(mktemp -d /tmp/defaults.XXXXXX) || exit 1
ip netns add "$(nsname $NS)" || exit $ksft_skip

# d-fq at an MTU whose quantum is MTU + header, d-small at one whose is
# the floor; d-stfq carries the lrufq filter over two stfq classes.
in_ns $NS ip -batch - <<EOF || exit $ksft_fail
link add d-fq mtu 1400 type dummy
link add d-small mtu 100 type dummy
link add d-fifo type dummy
link add d-stfq type dummy
link add d-hs type dummy
link add d-fq-x mtu 1400 type dummy
link add d-stfq-x type dummy
link add d-hs-x type dummy
EOF
RET=0
in_ns $NS tc -batch - <<EOF
qdisc add dev d-fq root dfs
qdisc add dev d-small root dfs
qdisc add dev d-fifo root dfs sched fifo
qdisc add dev d-stfq root handle 1: stfq
class add dev d-stfq parent 1: classid 1:1 stfq
class add dev d-stfq parent 1: classid 1:2 stfq
filter add dev d-stfq parent 1: protocol all prio 1 lrufq high 1:2 low 1:1
qdisc add dev d-hs root hishape
EOF
check_err $? "adding the qdiscs, classes and filter with their defaults"
log_test "defaults: add with no options"
[ "$EXIT_STATUS" = 0 ] || ksft_exit

# The same with every option each man page lists, given at its default.
TC_ARGS=$(python3 -S "$MAN_DEFAULTS" \
	--case dfs --man "$MAN/tc-dfs.8" --tc-args \
		--derived "$DFS_QUANTUM=$(quantum_of 1400)" \
	--case stfq-qdisc --man "$MAN/tc-stfq.8" --tc-args \
		"${STFQ_QDISC_SKIP[@]}" \
	--case stfq-class --man "$MAN/tc-stfq.8" --tc-args \
		"${STFQ_CLASS_SKIP[@]}" \
	--case lrufq --man "$MAN/tc-lrufq.8" --tc-args \
		--given "high=1:2 low=1:1" \
	--case hishape --man "$MAN/tc-hishape.8" --tc-args \
		"${HISHAPE_SKIP[@]}" 2>&1)
[ "$VERBOSE" = 0 ] || sed 's/^/\t/' <<<"$TC_ARGS"
RET=0
add_given dfs qdisc add dev d-fq-x root dfs
check_err $? "adding dfs $(tc_args dfs 2>&1)"
log_test "dfs: every option of the man page, given at its default, taken"
RET=0
add_given stfq-qdisc qdisc add dev d-stfq-x root handle 1: stfq &&
	add_given stfq-class class add dev d-stfq-x parent 1: classid 1:1 stfq &&
	add_given stfq-class class add dev d-stfq-x parent 1: classid 1:2 stfq
check_err $? "adding stfq $(tc_args stfq-qdisc 2>&1), its classes stfq $(
	tc_args stfq-class 2>&1)"
log_test "stfq: every option of the man page, given at its default, taken"
RET=0
add_given lrufq filter add dev d-stfq-x parent 1: protocol all prio 1 lrufq
check_err $? "adding lrufq $(tc_args lrufq 2>&1)"
log_test "lrufq: every option of the man page, given at its default, taken"
RET=0
add_given hishape qdisc add dev d-hs-x root hishape
check_err $? "adding hishape $(tc_args hishape 2>&1)"
log_test "hishape: every option of the man page, given at its default, taken"

in_ns $NS tc -d -j qdisc show > "$TMP/qdisc.json" &&
	in_ns $NS tc -d class show dev d-stfq | class_json > "$TMP/class.json" &&
	in_ns $NS tc -d -j filter show dev d-stfq parent 1: > "$TMP/filter.json" &&
	in_ns $NS tc -d class show dev d-stfq-x | class_json > "$TMP/class-x.json" &&
	in_ns $NS tc -d -j filter show dev d-stfq-x parent 1: > "$TMP/filter-x.json" ||
	exit $ksft_fail

case_add "dfs: man page defaults, sched fq" "$TMP/qdisc.json" \
	dev=d-fq,kind=dfs tc-dfs.8 --types "$DFS_TYPES" "${DFS_EXTRA[@]}" \
	--derived "$DFS_QUANTUM=$(quantum_of 1400)"
case_add "dfs: man page defaults, sched fq, MTU 100" "$TMP/qdisc.json" \
	dev=d-small,kind=dfs tc-dfs.8 --types "$DFS_TYPES" "${DFS_EXTRA[@]}" \
	--derived "$DFS_QUANTUM=$(quantum_of 100)"
# tc shows sched fq's parameters in sched fq alone.
case_add "dfs: man page defaults, sched fifo" "$TMP/qdisc.json" \
	dev=d-fifo,kind=dfs tc-dfs.8 --types "$DFS_TYPES" "${DFS_EXTRA[@]}" \
	--given sched=fifo --hidden "quantum target interval" \
	--derived "$DFS_QUANTUM=$(quantum_of 1500)"
case_add "stfq: man page defaults, qdisc" "$TMP/qdisc.json" \
	dev=d-stfq,kind=stfq tc-stfq.8 --types "$STFQ_TYPES" \
	"${STFQ_QDISC_SKIP[@]}"
case_add "stfq: man page defaults, class" "$TMP/class.json" \
	class=stfq,handle=1:1 tc-stfq.8 --types "$STFQ_TYPES" \
	"${STFQ_CLASS_SKIP[@]}"
case_add "hishape: man page defaults" "$TMP/qdisc.json" \
	dev=d-hs,kind=hishape tc-hishape.8 --types "$HISHAPE_TYPES" \
	"${HISHAPE_SKIP[@]}"
# tc shows pin only when pinning is on.
case_add "lrufq: man page defaults" "$TMP/filter.json" kind=lrufq \
	tc-lrufq.8 --types "$LRUFQ_TYPES" --given "high=1:2 low=1:1" \
	--omitted pin=0 "${LRUFQ_SKIP[@]}"
# The objects added with every option at its default: the man page's
# defaults, and the options of the objects added with none.
case_add "dfs: every option given at its default, as none given" \
	"$TMP/qdisc.json" dev=d-fq-x,kind=dfs tc-dfs.8 --types "$DFS_TYPES" \
	"${DFS_EXTRA[@]}" --derived "$DFS_QUANTUM=$(quantum_of 1400)" \
	--same-as dev=d-fq,kind=dfs
case_add "stfq: every option given at its default, as none given, qdisc" \
	"$TMP/qdisc.json" dev=d-stfq-x,kind=stfq tc-stfq.8 \
	--types "$STFQ_TYPES" "${STFQ_QDISC_SKIP[@]}" \
	--same-as dev=d-stfq,kind=stfq
case_add "stfq: every option given at its default, as none given, class" \
	"$TMP/class-x.json" class=stfq,handle=1:1 tc-stfq.8 \
	--types "$STFQ_TYPES" "${STFQ_CLASS_SKIP[@]}" \
	--same-as class=stfq,handle=1:1 --same-as-dump "$TMP/class.json"
case_add "hishape: every option given at its default, as none given" \
	"$TMP/qdisc.json" dev=d-hs-x,kind=hishape tc-hishape.8 \
	--types "$HISHAPE_TYPES" "${HISHAPE_SKIP[@]}" \
	--same-as dev=d-hs,kind=hishape
case_add "lrufq: every option given at its default, as none given" \
	"$TMP/filter-x.json" kind=lrufq tc-lrufq.8 --types "$LRUFQ_TYPES" \
	--given "high=1:2 low=1:1" --omitted pin=0 "${LRUFQ_SKIP[@]}" \
	--same-as kind=lrufq --same-as-dump "$TMP/filter.json"
run_cases

ksft_exit
