/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LRU-FQ flow classifier (lrufq)
 *
 * Achanta, Reddy, "Design, Analysis and Experience of a Partial State
 * Router", INFOCOM 2003.
 *
 * Copyright (C) 2026 sch_dfs developers <dev@sch-dfs.invalid>
 */

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <linux/pkt_cls_lrufq.h>
#include <linux/pkt_flowkey.h>

#include "utils.h"
#include "tc_util.h"

static const char * const lrufq_keys[] = {
	[TC_FLOWKEY_SRCDST]	= "srcdst",
	[TC_FLOWKEY_SRC]	= "src",
	[TC_FLOWKEY_DST]	= "dst",
	[TC_FLOWKEY_5TUPLE]	= "5tuple",
};

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... lrufq high CLASSID low CLASSID [ cache SLOTS ]\n"
		"                 [ probability P ] [ threshold PACKETS ]\n"
		"                 [ window TIME ] [ key srcdst | src | dst | 5tuple ]\n"
		"                 [ pin RATE ] [ action ACTION_SPEC ]\n"
		"P is a fraction, 0.02 or 1/50; pin 0 turns pinning off.\n"
		"A flow is high with over PACKETS (1 to %u, default 125)\n"
		"in the last window of time (default 1s, 1ms to 60s);\n"
		"window 0 counts from the flow's admission on, as the paper.\n"
		"CLASSIDs are hexadecimal MAJOR:MINOR.\n",
		TC_LRUFQ_THRESHOLD_MAX);
}

/* "0.02" or "1/50" in (0, 1], as a fraction of TC_LRUFQ_PROB_ONE. */
static int lrufq_get_prob(__u32 *prob, const char *arg)
{
	double p, num, den;
	char *end;

	num = strtod(arg, &end);
	if (end == arg)
		return -1;
	if (*end == '/') {
		arg = end + 1;
		den = strtod(arg, &end);
		if (end == arg || den <= 0)
			return -1;
		p = num / den;
	} else {
		p = num;
	}
	if (*end || !(p > 0) || p > 1)
		return -1;
	*prob = (__u32)(p * TC_LRUFQ_PROB_ONE + 0.5);
	if (!*prob)
		*prob = 1;
	return 0;
}

static int lrufq_parse_opt(struct filter_util *qu, char *handle,
			   int argc, char **argv, struct nlmsghdr *n)
{
	struct tcmsg *t = NLMSG_DATA(n);
	struct rtattr *tail;
	__u32 val, classid;
	__u64 rate;
	int i;

	if (handle) {
		if (get_u32(&t->tcm_handle, handle, 0)) {
			fprintf(stderr, "Illegal handle \"%s\"\n", handle);
			return -1;
		}
	}
	if (argc == 0)
		return 0;

	tail = addattr_nest(n, MAX_MSG, TCA_OPTIONS | NLA_F_NESTED);
	while (argc > 0) {
		if (strcmp(*argv, "high") == 0 || strcmp(*argv, "low") == 0) {
			int attr = **argv == 'h' ? TCA_LRUFQ_HIGH : TCA_LRUFQ_LOW;

			NEXT_ARG();
			if (get_tc_classid(&classid, *argv) || !classid) {
				fprintf(stderr, "Illegal class \"%s\"\n", *argv);
				return -1;
			}
			addattr32(n, MAX_MSG, attr, classid);
		} else if (strcmp(*argv, "cache") == 0) {
			NEXT_ARG();
			if (get_u32(&val, *argv, 0) || !val ||
			    val > TC_LRUFQ_CACHE_MAX) {
				fprintf(stderr, "Illegal \"cache\": 1..%u slots\n",
					TC_LRUFQ_CACHE_MAX);
				return -1;
			}
			addattr32(n, MAX_MSG, TCA_LRUFQ_CACHE, val);
		} else if (strcmp(*argv, "probability") == 0) {
			NEXT_ARG();
			if (lrufq_get_prob(&val, *argv)) {
				fprintf(stderr, "Illegal \"probability\": 0.02 or 1/50, in (0, 1]\n");
				return -1;
			}
			addattr32(n, MAX_MSG, TCA_LRUFQ_PROB, val);
		} else if (strcmp(*argv, "threshold") == 0) {
			NEXT_ARG();
			if (get_u32(&val, *argv, 0) || !val ||
			    val > TC_LRUFQ_THRESHOLD_MAX) {
				fprintf(stderr, "Illegal \"threshold\": 1..%u packets\n",
					TC_LRUFQ_THRESHOLD_MAX);
				return -1;
			}
			addattr32(n, MAX_MSG, TCA_LRUFQ_THRESHOLD, val);
		} else if (strcmp(*argv, "window") == 0) {
			NEXT_ARG();
			if (get_time(&val, *argv) || (val && val < 1000) ||
			    val > TC_LRUFQ_WINDOW_MAX) {
				fprintf(stderr, "Illegal \"window\": 0, or a time from 1ms to 60s\n");
				return -1;
			}
			addattr32(n, MAX_MSG, TCA_LRUFQ_WINDOW, val);
		} else if (strcmp(*argv, "key") == 0) {
			NEXT_ARG();
			for (i = 0; i < ARRAY_SIZE(lrufq_keys); i++)
				if (strcmp(*argv, lrufq_keys[i]) == 0)
					break;
			if (i == ARRAY_SIZE(lrufq_keys)) {
				fprintf(stderr, "Illegal \"key\": srcdst, src, dst or 5tuple\n");
				return -1;
			}
			addattr32(n, MAX_MSG, TCA_LRUFQ_KEY, i);
		} else if (strcmp(*argv, "pin") == 0) {
			NEXT_ARG();
			if (strcmp(*argv, "0") == 0) {
				rate = 0;
			} else if (get_rate64(&rate, *argv)) {
				fprintf(stderr, "Illegal \"pin\" rate\n");
				return -1;
			}
			addattr64(n, MAX_MSG, TCA_LRUFQ_PIN_RATE, rate);
		} else if (strcmp(*argv, "action") == 0) {
			NEXT_ARG();
			/* The kernel parses lrufq options strictly: nests
			 * must say they are.
			 */
			if (parse_action(&argc, &argv,
					 TCA_LRUFQ_ACT | NLA_F_NESTED, n)) {
				fprintf(stderr, "Illegal \"action\"\n");
				return -1;
			}
			continue;
		} else if (strcmp(*argv, "help") == 0) {
			explain();
			return -1;
		} else {
			fprintf(stderr, "What is \"%s\"?\n", *argv);
			explain();
			return -1;
		}
		argc--; argv++;
	}
	addattr_nest_end(n, tail);
	return 0;
}

static void lrufq_print_flows(const struct tc_lrufq_flow *fl, int n)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	int af, i;

	open_json_array(PRINT_JSON, "flows");
	for (i = 0; i < n; i++, fl++) {
		af = fl->family;
		open_json_object(NULL);
		print_nl();
		if (af == AF_INET || af == AF_INET6) {
			inet_ntop(af, fl->src, src, sizeof(src));
			inet_ntop(af, fl->dst, dst, sizeof(dst));
			print_string(PRINT_ANY, "src", "  flow src %s", src);
			print_string(PRINT_ANY, "dst", " dst %s", dst);
			if (fl->proto) {
				print_uint(PRINT_ANY, "proto", " proto %u",
					   fl->proto);
				print_uint(PRINT_ANY, "sport", " sport %u",
					   ntohs(fl->sport));
				print_uint(PRINT_ANY, "dport", " dport %u",
					   ntohs(fl->dport));
			}
		} else {
			print_string(PRINT_ANY, "family", "  flow %s", "non-ip");
		}
		print_uint(PRINT_ANY, "count", " count %u", fl->count);
		print_uint(PRINT_ANY, "last", " last %u", fl->last);
		if (fl->rate)
			tc_print_rate(PRINT_ANY, "rate", " rate %s", fl->rate);
		print_bool(PRINT_JSON, "high", NULL,
			   fl->flags & TC_LRUFQ_FLOW_HIGH);
		print_bool(PRINT_JSON, "pinned", NULL,
			   fl->flags & TC_LRUFQ_FLOW_PINNED);
		if (fl->flags & TC_LRUFQ_FLOW_HIGH)
			print_string(PRINT_FP, NULL, "%s", " high");
		if (fl->flags & TC_LRUFQ_FLOW_PINNED)
			print_string(PRINT_FP, NULL, "%s", " pinned");
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
}

static void lrufq_print_stats(const struct tc_lrufq_stats *st)
{
	print_nl();
	print_u64(PRINT_ANY, "hits", "  hits %llu", st->hits);
	print_u64(PRINT_ANY, "misses", " misses %llu", st->misses);
	print_u64(PRINT_ANY, "admissions", " admissions %llu", st->admissions);
	print_u64(PRINT_ANY, "evictions", " evictions %llu", st->evictions);
	print_u64(PRINT_ANY, "high_packets", " high %llu", st->high);
	print_u64(PRINT_ANY, "low_packets", " low %llu", st->low);
	print_nl();
	print_uint(PRINT_ANY, "cached", "  cached %u", st->cached);
	print_uint(PRINT_ANY, "pinned", " pinned %u", st->pinned);
	print_u64(PRINT_ANY, "pin_skips", " pin_skips %llu", st->pin_skips);
}

static int lrufq_print_opt(struct filter_util *qu, FILE *f,
			   struct rtattr *opt, __u32 handle)
{
	struct rtattr *tb[TCA_LRUFQ_MAX + 1];
	struct tc_lrufq_stats st = {};
	SPRINT_BUF(b1);
	__u32 val;

	if (opt == NULL)
		return 0;

	parse_rtattr_nested(tb, TCA_LRUFQ_MAX, opt);

	if (handle)
		print_uint(PRINT_ANY, "handle", "handle 0x%x ", handle);
	if (tb[TCA_LRUFQ_HIGH])
		print_string(PRINT_ANY, "high", "high %s ",
			     sprint_tc_classid(rta_getattr_u32(tb[TCA_LRUFQ_HIGH]), b1));
	if (tb[TCA_LRUFQ_LOW])
		print_string(PRINT_ANY, "low", "low %s ",
			     sprint_tc_classid(rta_getattr_u32(tb[TCA_LRUFQ_LOW]), b1));
	if (tb[TCA_LRUFQ_CACHE])
		print_uint(PRINT_ANY, "cache", "cache %u ",
			   rta_getattr_u32(tb[TCA_LRUFQ_CACHE]));
	if (tb[TCA_LRUFQ_PROB]) {
		val = rta_getattr_u32(tb[TCA_LRUFQ_PROB]);
		print_float(PRINT_ANY, "probability", "probability %g ",
			    (double)val / TC_LRUFQ_PROB_ONE);
	}
	if (tb[TCA_LRUFQ_THRESHOLD])
		print_uint(PRINT_ANY, "threshold", "threshold %u ",
			   rta_getattr_u32(tb[TCA_LRUFQ_THRESHOLD]));
	if (tb[TCA_LRUFQ_WINDOW]) {
		val = rta_getattr_u32(tb[TCA_LRUFQ_WINDOW]);
		print_uint(PRINT_JSON, "window", NULL, val);
		print_string(PRINT_FP, NULL, "window %s ",
			     val ? sprint_time(val, b1) : "0");
	}
	if (tb[TCA_LRUFQ_KEY]) {
		val = rta_getattr_u32(tb[TCA_LRUFQ_KEY]);
		if (val < ARRAY_SIZE(lrufq_keys))
			print_string(PRINT_ANY, "key", "key %s ", lrufq_keys[val]);
		else
			print_uint(PRINT_ANY, "key", "key %u ", val);
	}
	if (tb[TCA_LRUFQ_PIN_RATE] &&
	    RTA_PAYLOAD(tb[TCA_LRUFQ_PIN_RATE]) >= sizeof(__u64) &&
	    rta_getattr_u64(tb[TCA_LRUFQ_PIN_RATE]))
		tc_print_rate(PRINT_ANY, "pin", "pin %s ",
			      rta_getattr_u64(tb[TCA_LRUFQ_PIN_RATE]));

	if (show_stats && tb[TCA_LRUFQ_STATS]) {
		/* Older kernels send less, newer ones may send more. */
		size_t len = RTA_PAYLOAD(tb[TCA_LRUFQ_STATS]);

		memcpy(&st, RTA_DATA(tb[TCA_LRUFQ_STATS]),
		       len < sizeof(st) ? len : sizeof(st));
		lrufq_print_stats(&st);
	}
	if (show_details && tb[TCA_LRUFQ_FLOWS])
		lrufq_print_flows(RTA_DATA(tb[TCA_LRUFQ_FLOWS]),
				  RTA_PAYLOAD(tb[TCA_LRUFQ_FLOWS]) /
				  sizeof(struct tc_lrufq_flow));

	if (tb[TCA_LRUFQ_ACT])
		tc_print_action(f, tb[TCA_LRUFQ_ACT], 0);
	return 0;
}

struct filter_util lrufq_filter_util = {
	.id		= "lrufq",
	.parse_fopt	= lrufq_parse_opt,
	.print_fopt	= lrufq_print_opt,
};
