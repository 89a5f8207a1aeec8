/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Start-time Fair Queuing (STFQ), classful
 *
 * Goyal, Vin, Cheng, "Start-time Fair Queueing: a scheduling algorithm for
 * integrated services packet switching networks", SIGCOMM 1996; the
 * scheduler of LRU-FQ (Achanta, Reddy, INFOCOM 2003).
 *
 * Copyright (C) 2026 sch_dfs developers <dev@sch-dfs.invalid>
 */

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <linux/pkt_sched_stfq.h>

#include "utils.h"
#include "tc_util.h"

static void explain(void)
{
	fprintf(stderr, "Usage: ... stfq [ default MINOR ]\n");
}

static void explain_class(void)
{
	fprintf(stderr,
		"Usage: ... stfq [ weight WEIGHT ] [ quantum-free ]\n"
		"WEIGHT is 1..%u, the class's share is WEIGHT over the sum of\n"
		"the weights of the classes with packets queued\n",
		TC_STFQ_WEIGHT_MAX);
}

static int stfq_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			  struct nlmsghdr *n, const char *dev)
{
	struct rtattr *tail;
	__u32 defcls;

	tail = addattr_nest(n, 1024, TCA_OPTIONS | NLA_F_NESTED);
	while (argc > 0) {
		if (strcmp(*argv, "default") == 0) {
			NEXT_ARG();
			if (get_u32(&defcls, *argv, 16) || defcls > 0xffff) {
				fprintf(stderr, "Illegal \"default\": a hex minor 0..ffff\n");
				return -1;
			}
			addattr32(n, 1024, TCA_STFQ_DEFCLS, defcls);
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

static int stfq_parse_class_opt(struct qdisc_util *qu, int argc, char **argv,
				struct nlmsghdr *n, const char *dev)
{
	struct rtattr *tail;
	__u32 weight;

	tail = addattr_nest(n, 1024, TCA_OPTIONS | NLA_F_NESTED);
	while (argc > 0) {
		if (strcmp(*argv, "weight") == 0) {
			NEXT_ARG();
			if (get_u32(&weight, *argv, 0) || weight < 1 ||
			    weight > TC_STFQ_WEIGHT_MAX) {
				fprintf(stderr, "Illegal \"weight\": 1..%u\n",
					TC_STFQ_WEIGHT_MAX);
				return -1;
			}
			addattr32(n, 1024, TCA_STFQ_WEIGHT, weight);
		} else if (strcmp(*argv, "quantum-free") == 0) {
			/* What STFQ always is: no quantum, unlike DRR. */
		} else if (strcmp(*argv, "help") == 0) {
			explain_class();
			return -1;
		} else {
			fprintf(stderr, "What is \"%s\"?\n", *argv);
			explain_class();
			return -1;
		}
		argc--; argv++;
	}
	addattr_nest_end(n, tail);
	return 0;
}

static int stfq_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_STFQ_MAX + 1];
	SPRINT_BUF(b1);

	if (opt == NULL)
		return 0;

	parse_rtattr_nested(tb, TCA_STFQ_MAX, opt);

	if (tb[TCA_STFQ_DEFCLS] &&
	    RTA_PAYLOAD(tb[TCA_STFQ_DEFCLS]) >= sizeof(__u32)) {
		snprintf(b1, sizeof(b1), "%x",
			 rta_getattr_u32(tb[TCA_STFQ_DEFCLS]));
		print_string(PRINT_ANY, "default", "default %s ", b1);
	}
	if (tb[TCA_STFQ_WEIGHT] &&
	    RTA_PAYLOAD(tb[TCA_STFQ_WEIGHT]) >= sizeof(__u32))
		print_uint(PRINT_ANY, "weight", "weight %u ",
			   rta_getattr_u32(tb[TCA_STFQ_WEIGHT]));
	return 0;
}

static int stfq_print_xstats(struct qdisc_util *qu, FILE *f,
			     struct rtattr *xstats)
{
	struct tc_stfq_xstats st = {};
	size_t len;

	if (xstats == NULL)
		return 0;

	/* Older kernels send less, newer ones may send more: copy what fits. */
	len = RTA_PAYLOAD(xstats);
	if (len < sizeof(st.type))
		return -1;
	memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));

	switch (st.type) {
	case TCA_STFQ_XSTATS_QDISC:
		print_uint(PRINT_ANY, "classes", "  classes %u",
			   st.qdisc_stats.classes);
		print_uint(PRINT_ANY, "active", " active %u",
			   st.qdisc_stats.active);
		print_u64(PRINT_ANY, "vtime", " vtime %llu",
			  st.qdisc_stats.vtime);
		print_u64(PRINT_ANY, "drop_unclassified",
			  " drop_unclassified %llu",
			  st.qdisc_stats.drop_unclassified);
		break;
	case TCA_STFQ_XSTATS_CLASS:
		print_uint(PRINT_ANY, "weight", "  weight %u",
			   st.class_stats.weight);
		print_u64(PRINT_ANY, "finish", " finish %llu",
			  st.class_stats.finish);
		print_u64(PRINT_ANY, "start", " start %llu",
			  st.class_stats.start);
		print_bool(PRINT_JSON, "active", NULL, st.class_stats.active);
		if (st.class_stats.active)
			print_string(PRINT_FP, NULL, "%s", " active");
		break;
	default:
		print_uint(PRINT_ANY, "xstats_type", "  unknown xstats type %u",
			   st.type);
		break;
	}
	return 0;
}

struct qdisc_util stfq_qdisc_util = {
	.id		= "stfq",
	.parse_qopt	= stfq_parse_opt,
	.print_qopt	= stfq_print_opt,
	.print_xstats	= stfq_print_xstats,
	.parse_copt	= stfq_parse_class_opt,
	.print_copt	= stfq_print_opt,
};
