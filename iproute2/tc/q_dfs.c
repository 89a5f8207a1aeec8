/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Deterministic Fair Sharing (DFS)
 *
 * Bedi, Roy, Shiva, "Mitigating congestion based DoS attacks with an
 * enhanced AQM technique", Computer Communications, 2014.
 *
 * Copyright (C) 2026 sch_dfs developers <dev@sch-dfs.invalid>
 */

#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <unistd.h>
#include <fcntl.h>
#include <ctype.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <string.h>
#include <stddef.h>
#include <linux/pkt_flowkey.h>
#include <linux/pkt_sched_dfs.h>

#include "utils.h"
#include "tc_util.h"

static const char * const dfs_keys[] = {
	[TC_FLOWKEY_SRCDST]	= "srcdst",
	[TC_FLOWKEY_SRC]	= "src",
	[TC_FLOWKEY_DST]	= "dst",
	[TC_FLOWKEY_5TUPLE]	= "5tuple",
};

static const char * const dfs_scheds[] = {
	[TC_DFS_SCHED_FIFO]	= "fifo",
	[TC_DFS_SCHED_FQ]	= "fq",
};

static const char * const dfs_cpr_signals[] = {
	[TC_DFS_CPR_SIGNAL_DROPS]	= "drops",
	[TC_DFS_CPR_SIGNAL_SURGES]	= "surges",
};

static const struct {
	const char	*name;
	int		attr;
} dfs_fracs[] = {
	{ "max_th",	TCA_DFS_MAX_TH },
	{ "min_th",	TCA_DFS_MIN_TH },
	{ "delta_i",	TCA_DFS_DELTA_I },
	{ "delta_d",	TCA_DFS_DELTA_D },
	{ "beta",	TCA_DFS_BETA },
	{ "cpr_alpha",	TCA_DFS_CPR_ALPHA },
	{ "cpr_beta",	TCA_DFS_CPR_BETA },
	{ "cpr_tau_min", TCA_DFS_CPR_TAU_MIN },
	{ "cpr_tau_max", TCA_DFS_CPR_TAU_MAX },
};

/* The kernel's bounds (sch_dfs/dfs_qdisc.c), checked here too. */
#define DFS_CPR_PERIOD_MIN	1000		/* usec */
#define DFS_CPR_PERIOD_MAX	1000000
#define DFS_CPR_MIN_PACKETS_MAX	2048

/* The attribute of a fraction parameter, or -1. */
static int dfs_frac_attr(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(dfs_fracs); i++)
		if (strcmp(name, dfs_fracs[i].name) == 0)
			return dfs_fracs[i].attr;
	return -1;
}

/* @arg as the index of one of @n names, or a message saying what to use. */
static int dfs_get_name(__u32 *val, const char *what, const char *arg,
			const char * const *names, int n, const char *use)
{
	int i;

	for (i = 0; i < n; i++) {
		if (strcmp(arg, names[i]) == 0) {
			*val = i;
			return 0;
		}
	}
	fprintf(stderr, "Illegal \"%s\": \"%s\" (use %s)\n", what, arg, use);
	return -1;
}

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... dfs|dfs_mq [ limit BYTES ] [ memory_limit BYTES ]\n"
		"               [ flows NUMBER ] [ order NUMBER ]\n"
		"               [ cache NUMBER ] [ key src|dst|srcdst|5tuple ]\n"
		"               [ max_th FRACTION ] [ min_th FRACTION ]\n"
		"               [ delta_i FRACTION ] [ delta_d FRACTION ]\n"
		"               [ freeze_time TIME ] [ tolerance NUMBER ]\n"
		"               [ beta FRACTION ] [ prune TIME ]\n"
		"               [ rate_interval TIME ] [ [no]ecn ]\n"
		"               [ bandwidth RATE ] [ sched fifo|fq ]\n"
		"               [ quantum BYTES ] [ target TIME ] [ interval TIME ]\n"
		"               [ cpr adaptive | cpr tau FRACTION | nocpr ]\n"
		"               [ cpr_period TIME|auto ] [ cpr_min_packets NUMBER ]\n"
		"               [ cpr_alpha FRACTION ] [ cpr_beta FRACTION ]\n"
		"               [ cpr_tau_min FRACTION ] [ cpr_tau_max FRACTION ]\n"
		"               [ cpr_signal drops|surges ]\n"
		"FRACTION is a decimal number from 0 to 1, e.g. 0.04\n"
		"bandwidth 0 makes the qdisc measure the link rate\n"
		"quantum, target and interval apply to sched fq\n"
		"cpr_period is 1ms to 1s, or auto: from the link's rate;\n"
		"cpr_min_packets is 1 to 2048;\n"
		"cpr_alpha, cpr_beta and the tau bounds apply to cpr adaptive\n"
		"dfs_mq: a dfs on every tx queue, all of these settings\n");
}

/* Numbers only: get_size() and friends take "-1", "inf" and "nan" too. */
static bool dfs_numeric(const char *arg)
{
	return isdigit((unsigned char)arg[0]) ||
	       (arg[0] == '.' && isdigit((unsigned char)arg[1]));
}

/*
 * A decimal fraction from 0 to 1 with at most six decimals, scaled to
 * TC_DFS_ONE. Parsed by hand so that "0.04" is exactly 40000.
 */
static int dfs_get_frac(__u32 *val, const char *arg)
{
	const char *p = arg;
	__u32 ipart = 0, fpart = 0;
	int digits = 0, decimals = 0;

	while (isdigit((unsigned char)*p)) {
		ipart = ipart * 10 + (*p++ - '0');
		if (ipart > 1)
			return -1;
		digits++;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			if (decimals < 6) {
				fpart = fpart * 10 + (*p - '0');
				decimals++;
			} else if (*p != '0') {
				return -1;
			}
			p++;
			digits++;
		}
	}
	if (!digits || *p)
		return -1;
	for (; decimals < 6; decimals++)
		fpart *= 10;
	if (ipart * TC_DFS_ONE + fpart > TC_DFS_ONE)
		return -1;

	*val = ipart * TC_DFS_ONE + fpart;
	return 0;
}

static char *dfs_sprint_frac(__u32 val, char *buf)
{
	int len;

	len = snprintf(buf, SPRINT_BSIZE, "%u.%06u",
		       val / TC_DFS_ONE, val % TC_DFS_ONE);
	while (buf[len - 1] == '0')
		buf[--len] = '\0';
	if (buf[len - 1] == '.')
		buf[--len] = '\0';
	return buf;
}

/*
 * A time in microseconds. As with get_time(), a bare number is in
 * microseconds; the suffixes s, ms, us and ns are understood.
 */
static int dfs_get_usecs(__u64 *usecs, const char *arg)
{
	char buf[64];
	size_t len = strlen(arg);
	__s64 nsecs;

	if (!dfs_numeric(arg) || len > sizeof(buf) - 3)
		return -1;
	if (isdigit((unsigned char)arg[len - 1]) || arg[len - 1] == '.')
		snprintf(buf, sizeof(buf), "%sus", arg);
	else
		snprintf(buf, sizeof(buf), "%s", arg);
	if (get_time64(&nsecs, buf) || nsecs < 0)
		return -1;

	*usecs = nsecs / 1000;
	return 0;
}

static char *dfs_sprint_msecs(__u32 msecs, char *buf)
{
	if (msecs && msecs % 1000 == 0)
		snprintf(buf, SPRINT_BSIZE, "%us", msecs / 1000);
	else
		snprintf(buf, SPRINT_BSIZE, "%ums", msecs);
	return buf;
}

static int dfs_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			 struct nlmsghdr *n, const char *dev)
{
	__u32 opt[TCA_DFS_MAX + 1] = {};
	bool set[TCA_DFS_MAX + 1] = {};
	__u64 bandwidth = 0;
	struct rtattr *tail;
	__u64 t;
	int i;

	while (argc > 0) {
		int frac = dfs_frac_attr(*argv);

		if (strcmp(*argv, "limit") == 0) {
			NEXT_ARG();
			if (!dfs_numeric(*argv) ||
			    get_size(&opt[TCA_DFS_LIMIT], *argv) ||
			    opt[TCA_DFS_LIMIT] == 0) {
				fprintf(stderr,
					"Illegal \"limit\": \"%s\" is not a positive size in bytes\n",
					*argv);
				return -1;
			}
			set[TCA_DFS_LIMIT] = true;
		} else if (strcmp(*argv, "memory_limit") == 0) {
			NEXT_ARG();
			if (!dfs_numeric(*argv) ||
			    get_size(&opt[TCA_DFS_MEMORY_LIMIT], *argv) ||
			    opt[TCA_DFS_MEMORY_LIMIT] == 0) {
				fprintf(stderr,
					"Illegal \"memory_limit\": \"%s\" is not a positive size in bytes\n",
					*argv);
				return -1;
			}
			set[TCA_DFS_MEMORY_LIMIT] = true;
		} else if (strcmp(*argv, "flows") == 0) {
			NEXT_ARG();
			if (get_u32(&opt[TCA_DFS_FLOWS], *argv, 0) ||
			    opt[TCA_DFS_FLOWS] == 0) {
				fprintf(stderr, "Illegal \"flows\": \"%s\"\n", *argv);
				return -1;
			}
			set[TCA_DFS_FLOWS] = true;
		} else if (strcmp(*argv, "order") == 0) {
			NEXT_ARG();
			if (get_u32(&opt[TCA_DFS_ORDER], *argv, 0) ||
			    opt[TCA_DFS_ORDER] < 2) {
				fprintf(stderr,
					"Illegal \"order\": \"%s\" (the B-tree minimum degree is at least 2)\n",
					*argv);
				return -1;
			}
			set[TCA_DFS_ORDER] = true;
		} else if (strcmp(*argv, "cache") == 0) {
			NEXT_ARG();
			if (get_u32(&opt[TCA_DFS_CACHE], *argv, 0)) {
				fprintf(stderr, "Illegal \"cache\": \"%s\"\n", *argv);
				return -1;
			}
			set[TCA_DFS_CACHE] = true;
		} else if (strcmp(*argv, "key") == 0) {
			NEXT_ARG();
			if (dfs_get_name(&opt[TCA_DFS_KEY], "key", *argv,
					 dfs_keys, ARRAY_SIZE(dfs_keys),
					 "src, dst, srcdst or 5tuple"))
				return -1;
			set[TCA_DFS_KEY] = true;
		} else if (frac > 0) {
			const char *name = *argv;

			NEXT_ARG();
			if (dfs_get_frac(&opt[frac], *argv)) {
				fprintf(stderr,
					"Illegal \"%s\": \"%s\" is not a fraction from 0 to 1 with at most 6 decimals, e.g. 0.04\n",
					name, *argv);
				return -1;
			}
			if (frac == TCA_DFS_BETA && opt[frac] == 0) {
				fprintf(stderr, "Illegal \"beta\": must be above 0\n");
				return -1;
			}
			set[frac] = true;
		} else if (strcmp(*argv, "freeze_time") == 0) {
			NEXT_ARG();
			if (dfs_get_usecs(&t, *argv) || t > UINT32_MAX) {
				fprintf(stderr, "Illegal \"freeze_time\": \"%s\" is not a time\n",
					*argv);
				return -1;
			}
			opt[TCA_DFS_FREEZE_TIME] = t;
			set[TCA_DFS_FREEZE_TIME] = true;
		} else if (strcmp(*argv, "tolerance") == 0) {
			NEXT_ARG();
			if (get_u32(&opt[TCA_DFS_TOLERANCE], *argv, 0)) {
				fprintf(stderr, "Illegal \"tolerance\": \"%s\"\n", *argv);
				return -1;
			}
			set[TCA_DFS_TOLERANCE] = true;
		} else if (strcmp(*argv, "prune") == 0) {
			NEXT_ARG();
			if (dfs_get_usecs(&t, *argv) || t / 1000 > UINT32_MAX) {
				fprintf(stderr, "Illegal \"prune\": \"%s\" is not a time\n",
					*argv);
				return -1;
			}
			if (t && t < 1000) {
				fprintf(stderr, "Illegal \"prune\": the resolution is 1ms\n");
				return -1;
			}
			opt[TCA_DFS_PRUNE_INTERVAL] = t / 1000;
			set[TCA_DFS_PRUNE_INTERVAL] = true;
		} else if (strcmp(*argv, "rate_interval") == 0) {
			NEXT_ARG();
			if (dfs_get_usecs(&t, *argv) || t > UINT32_MAX || t == 0) {
				fprintf(stderr,
					"Illegal \"rate_interval\": \"%s\" is not a positive time\n",
					*argv);
				return -1;
			}
			opt[TCA_DFS_RATE_INTERVAL] = t;
			set[TCA_DFS_RATE_INTERVAL] = true;
		} else if (strcmp(*argv, "bandwidth") == 0) {
			NEXT_ARG();
			if (!dfs_numeric(*argv) || get_rate64(&bandwidth, *argv)) {
				fprintf(stderr, "Illegal \"bandwidth\": \"%s\" is not a rate\n",
					*argv);
				return -1;
			}
			set[TCA_DFS_BANDWIDTH] = true;
		} else if (strcmp(*argv, "sched") == 0) {
			NEXT_ARG();
			if (dfs_get_name(&opt[TCA_DFS_SCHED], "sched", *argv,
					 dfs_scheds, ARRAY_SIZE(dfs_scheds),
					 "fifo or fq"))
				return -1;
			set[TCA_DFS_SCHED] = true;
		} else if (strcmp(*argv, "quantum") == 0) {
			NEXT_ARG();
			if (!dfs_numeric(*argv) ||
			    get_size(&opt[TCA_DFS_QUANTUM], *argv) ||
			    opt[TCA_DFS_QUANTUM] == 0) {
				fprintf(stderr,
					"Illegal \"quantum\": \"%s\" is not a positive size in bytes\n",
					*argv);
				return -1;
			}
			set[TCA_DFS_QUANTUM] = true;
		} else if (strcmp(*argv, "target") == 0 ||
			   strcmp(*argv, "interval") == 0) {
			int attr = strcmp(*argv, "target") == 0 ?
				   TCA_DFS_TARGET : TCA_DFS_INTERVAL;
			const char *name = *argv;

			NEXT_ARG();
			if (dfs_get_usecs(&t, *argv) || t > UINT32_MAX || t == 0) {
				fprintf(stderr,
					"Illegal \"%s\": \"%s\" is not a positive time\n",
					name, *argv);
				return -1;
			}
			opt[attr] = t;
			set[attr] = true;
		} else if (strcmp(*argv, "cpr") == 0) {
			NEXT_ARG();
			if (strcmp(*argv, "adaptive") == 0) {
				opt[TCA_DFS_CPR] = TC_DFS_CPR_ADAPTIVE;
			} else if (strcmp(*argv, "tau") == 0) {
				NEXT_ARG();
				if (dfs_get_frac(&opt[TCA_DFS_CPR_TAU], *argv)) {
					fprintf(stderr,
						"Illegal \"cpr tau\": \"%s\" is not a fraction from 0 to 1 with at most 6 decimals, e.g. 0.6\n",
						*argv);
					return -1;
				}
				opt[TCA_DFS_CPR] = TC_DFS_CPR_FIXED;
				set[TCA_DFS_CPR_TAU] = true;
			} else {
				fprintf(stderr,
					"Illegal \"cpr\": \"%s\" (use \"cpr adaptive\" or \"cpr tau FRACTION\")\n",
					*argv);
				return -1;
			}
			set[TCA_DFS_CPR] = true;
		} else if (strcmp(*argv, "nocpr") == 0) {
			opt[TCA_DFS_CPR] = TC_DFS_CPR_OFF;
			set[TCA_DFS_CPR] = true;
		} else if (strcmp(*argv, "cpr_period") == 0) {
			NEXT_ARG();
			/* 0, as the dump shows auto in JSON, is auto too */
			if (strcmp(*argv, "auto") == 0) {
				t = 0;
			} else if (dfs_get_usecs(&t, *argv) ||
				   (t ? t < DFS_CPR_PERIOD_MIN :
					strtod(*argv, NULL) != 0) ||
				   t > DFS_CPR_PERIOD_MAX) {
				fprintf(stderr,
					"Illegal \"cpr_period\": \"%s\" is not \"auto\" nor a time from 1ms to 1s\n",
					*argv);
				return -1;
			}
			opt[TCA_DFS_CPR_PERIOD] = t;
			set[TCA_DFS_CPR_PERIOD] = true;
		} else if (strcmp(*argv, "cpr_min_packets") == 0) {
			NEXT_ARG();
			if (get_u32(&opt[TCA_DFS_CPR_MIN_PACKETS], *argv, 0) ||
			    opt[TCA_DFS_CPR_MIN_PACKETS] == 0 ||
			    opt[TCA_DFS_CPR_MIN_PACKETS] > DFS_CPR_MIN_PACKETS_MAX) {
				fprintf(stderr,
					"Illegal \"cpr_min_packets\": \"%s\" is not a number from 1 to %u\n",
					*argv, DFS_CPR_MIN_PACKETS_MAX);
				return -1;
			}
			set[TCA_DFS_CPR_MIN_PACKETS] = true;
		} else if (strcmp(*argv, "cpr_signal") == 0) {
			NEXT_ARG();
			if (dfs_get_name(&opt[TCA_DFS_CPR_SIGNAL], "cpr_signal",
					 *argv, dfs_cpr_signals,
					 ARRAY_SIZE(dfs_cpr_signals),
					 "drops or surges"))
				return -1;
			set[TCA_DFS_CPR_SIGNAL] = true;
		} else if (strcmp(*argv, "ecn") == 0) {
			opt[TCA_DFS_ECN] = 1;
			set[TCA_DFS_ECN] = true;
		} else if (strcmp(*argv, "noecn") == 0) {
			opt[TCA_DFS_ECN] = 0;
			set[TCA_DFS_ECN] = true;
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

	if (set[TCA_DFS_MIN_TH] && set[TCA_DFS_MAX_TH] &&
	    opt[TCA_DFS_MIN_TH] > opt[TCA_DFS_MAX_TH]) {
		fprintf(stderr, "\"min_th\" must not be above \"max_th\"\n");
		return -1;
	}
	if (set[TCA_DFS_CPR_TAU_MIN] && set[TCA_DFS_CPR_TAU_MAX] &&
	    opt[TCA_DFS_CPR_TAU_MIN] > opt[TCA_DFS_CPR_TAU_MAX]) {
		fprintf(stderr,
			"\"cpr_tau_min\" must not be above \"cpr_tau_max\"\n");
		return -1;
	}

	tail = addattr_nest(n, 1024, TCA_OPTIONS | NLA_F_NESTED);
	/* TCA_DFS_LIMIT to TCA_DFS_ECN are all u32. */
	for (i = TCA_DFS_LIMIT; i <= TCA_DFS_ECN; i++)
		if (set[i])
			addattr_l(n, 1024, i, &opt[i], sizeof(opt[i]));
	if (set[TCA_DFS_BANDWIDTH])
		addattr64(n, 1024, TCA_DFS_BANDWIDTH, bandwidth);
	/* and TCA_DFS_SCHED to TCA_DFS_CPR_SIGNAL */
	for (i = TCA_DFS_SCHED; i <= TCA_DFS_CPR_SIGNAL; i++)
		if (set[i])
			addattr_l(n, 1024, i, &opt[i], sizeof(opt[i]));
	addattr_nest_end(n, tail);
	return 0;
}

static void dfs_print_fq_opt(struct rtattr **tb)
{
	__u32 val;

	SPRINT_BUF(b1);

	if (tb[TCA_DFS_QUANTUM]) {
		val = rta_getattr_u32(tb[TCA_DFS_QUANTUM]);
		print_uint(PRINT_ANY, "quantum", "quantum %u ", val);
	}
	if (tb[TCA_DFS_TARGET]) {
		val = rta_getattr_u32(tb[TCA_DFS_TARGET]);
		print_uint(PRINT_JSON, "target", NULL, val);
		print_string(PRINT_FP, NULL, "target %s ", sprint_time(val, b1));
	}
	if (tb[TCA_DFS_INTERVAL]) {
		val = rta_getattr_u32(tb[TCA_DFS_INTERVAL]);
		print_uint(PRINT_JSON, "interval", NULL, val);
		print_string(PRINT_FP, NULL, "interval %s ",
			     sprint_time(val, b1));
	}
}

static const char * const dfs_cpr_modes[] = {
	[TC_DFS_CPR_OFF]	= "off",
	[TC_DFS_CPR_FIXED]	= "fixed",
	[TC_DFS_CPR_ADAPTIVE]	= "adaptive",
};

/* "NAME VALUE" as one of @n names, or as a number a newer kernel sent. */
static void dfs_print_name(const char *name, const char * const *names,
			   unsigned int n, __u32 val)
{
	print_string(PRINT_FP, NULL, "%s ", name);
	if (val < n)
		print_string(PRINT_ANY, name, "%s ", names[val]);
	else
		print_uint(PRINT_ANY, name, "%u ", val);
}

static void dfs_print_frac(const char *name, struct rtattr *attr)
{
	__u32 val = rta_getattr_u32(attr);

	SPRINT_BUF(b1);

	print_float(PRINT_JSON, name, NULL, (double)val / TC_DFS_ONE);
	print_string(PRINT_FP, NULL, "%s ", name);
	print_string(PRINT_FP, NULL, "%s ", dfs_sprint_frac(val, b1));
}

/*
 * "cpr adaptive", "cpr tau F" or "nocpr"; the period and min_packets
 * while CPR is on, adaptive tau's parameters while it is adaptive, and
 * everything with -d.
 */
static void dfs_print_cpr_opt(struct rtattr **tb)
{
	__u32 mode, val;

	SPRINT_BUF(b1);

	if (!tb[TCA_DFS_CPR])
		return;
	mode = rta_getattr_u32(tb[TCA_DFS_CPR]);
	if (mode <= TC_DFS_CPR_MAX)
		print_string(PRINT_JSON, "cpr", NULL, dfs_cpr_modes[mode]);
	else
		print_uint(PRINT_JSON, "cpr", NULL, mode);
	if (mode == TC_DFS_CPR_OFF)
		print_string(PRINT_FP, NULL, "%s ", "nocpr");
	else if (mode == TC_DFS_CPR_ADAPTIVE)
		print_string(PRINT_FP, NULL, "%s ", "cpr adaptive");
	else if (mode == TC_DFS_CPR_FIXED && tb[TCA_DFS_CPR_TAU])
		print_string(PRINT_FP, NULL, "cpr tau %s ",
			     dfs_sprint_frac(rta_getattr_u32(tb[TCA_DFS_CPR_TAU]),
					     b1));
	else
		print_uint(PRINT_FP, NULL, "cpr %u ", mode);
	if (mode == TC_DFS_CPR_OFF && !show_details)
		return;

	if (tb[TCA_DFS_CPR_TAU])
		print_float(PRINT_JSON, "cpr_tau", NULL,
			    (double)rta_getattr_u32(tb[TCA_DFS_CPR_TAU]) /
			    TC_DFS_ONE);
	/* 0: derived from the link's rate; xstats show the one in force */
	if (tb[TCA_DFS_CPR_PERIOD]) {
		val = rta_getattr_u32(tb[TCA_DFS_CPR_PERIOD]);
		print_uint(PRINT_JSON, "cpr_period", NULL, val);
		print_string(PRINT_FP, NULL, "cpr_period %s ",
			     val ? sprint_time(val, b1) : "auto");
	}
	if (tb[TCA_DFS_CPR_MIN_PACKETS]) {
		val = rta_getattr_u32(tb[TCA_DFS_CPR_MIN_PACKETS]);
		print_uint(PRINT_ANY, "cpr_min_packets", "cpr_min_packets %u ",
			   val);
	}
	if (tb[TCA_DFS_CPR_SIGNAL]) {
		val = rta_getattr_u32(tb[TCA_DFS_CPR_SIGNAL]);
		dfs_print_name("cpr_signal", dfs_cpr_signals,
			       ARRAY_SIZE(dfs_cpr_signals), val);
	}
	if (mode != TC_DFS_CPR_ADAPTIVE && !show_details)
		return;
	if (tb[TCA_DFS_CPR_ALPHA])
		dfs_print_frac("cpr_alpha", tb[TCA_DFS_CPR_ALPHA]);
	if (tb[TCA_DFS_CPR_BETA])
		dfs_print_frac("cpr_beta", tb[TCA_DFS_CPR_BETA]);
	if (tb[TCA_DFS_CPR_TAU_MIN])
		dfs_print_frac("cpr_tau_min", tb[TCA_DFS_CPR_TAU_MIN]);
	if (tb[TCA_DFS_CPR_TAU_MAX])
		dfs_print_frac("cpr_tau_max", tb[TCA_DFS_CPR_TAU_MAX]);
}

static int dfs_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_DFS_MAX + 1];
	__u32 val;
	int i;

	SPRINT_BUF(b1);

	if (opt == NULL)
		return 0;

	parse_rtattr_nested(tb, TCA_DFS_MAX, opt);

	for (i = 0; i <= TCA_DFS_MAX; i++)
		if (tb[i] && i != TCA_DFS_BANDWIDTH &&
		    RTA_PAYLOAD(tb[i]) < sizeof(__u32))
			tb[i] = NULL;

	if (tb[TCA_DFS_LIMIT]) {
		val = rta_getattr_u32(tb[TCA_DFS_LIMIT]);
		print_size(PRINT_ANY, "limit", "limit %s ", val);
	}
	if (tb[TCA_DFS_MEMORY_LIMIT]) {
		val = rta_getattr_u32(tb[TCA_DFS_MEMORY_LIMIT]);
		print_size(PRINT_ANY, "memory_limit", "memory_limit %s ", val);
	}
	if (tb[TCA_DFS_FLOWS]) {
		val = rta_getattr_u32(tb[TCA_DFS_FLOWS]);
		print_uint(PRINT_ANY, "flows", "flows %u ", val);
	}
	if (tb[TCA_DFS_ORDER]) {
		val = rta_getattr_u32(tb[TCA_DFS_ORDER]);
		print_uint(PRINT_ANY, "order", "order %u ", val);
	}
	if (tb[TCA_DFS_CACHE]) {
		val = rta_getattr_u32(tb[TCA_DFS_CACHE]);
		print_uint(PRINT_ANY, "cache", "cache %u ", val);
	}
	if (tb[TCA_DFS_KEY]) {
		val = rta_getattr_u32(tb[TCA_DFS_KEY]);
		dfs_print_name("key", dfs_keys, ARRAY_SIZE(dfs_keys), val);
	}
	/* DFS's own; CPR's follow "cpr" */
	for (i = 0; i < ARRAY_SIZE(dfs_fracs); i++)
		if (dfs_fracs[i].attr < TCA_DFS_CPR && tb[dfs_fracs[i].attr])
			dfs_print_frac(dfs_fracs[i].name,
				       tb[dfs_fracs[i].attr]);
	if (tb[TCA_DFS_FREEZE_TIME]) {
		val = rta_getattr_u32(tb[TCA_DFS_FREEZE_TIME]);
		print_uint(PRINT_JSON, "freeze_time", NULL, val);
		print_string(PRINT_FP, NULL, "freeze_time %s ",
			     sprint_time(val, b1));
	}
	if (tb[TCA_DFS_TOLERANCE]) {
		val = rta_getattr_u32(tb[TCA_DFS_TOLERANCE]);
		print_uint(PRINT_ANY, "tolerance", "tolerance %u ", val);
	}
	if (tb[TCA_DFS_PRUNE_INTERVAL]) {
		val = rta_getattr_u32(tb[TCA_DFS_PRUNE_INTERVAL]);
		print_uint(PRINT_JSON, "prune", NULL, val);
		print_string(PRINT_FP, NULL, "prune %s ",
			     dfs_sprint_msecs(val, b1));
	}
	if (tb[TCA_DFS_RATE_INTERVAL]) {
		val = rta_getattr_u32(tb[TCA_DFS_RATE_INTERVAL]);
		print_uint(PRINT_JSON, "rate_interval", NULL, val);
		print_string(PRINT_FP, NULL, "rate_interval %s ",
			     sprint_time(val, b1));
	}
	if (tb[TCA_DFS_ECN]) {
		val = rta_getattr_u32(tb[TCA_DFS_ECN]);
		print_bool(PRINT_JSON, "ecn", NULL, !!val);
		print_string(PRINT_FP, NULL, "%s ", val ? "ecn" : "noecn");
	}
	if (tb[TCA_DFS_BANDWIDTH] &&
	    RTA_PAYLOAD(tb[TCA_DFS_BANDWIDTH]) >= sizeof(__u64)) {
		__u64 bw = rta_getattr_u64(tb[TCA_DFS_BANDWIDTH]);

		tc_print_rate(PRINT_ANY, "bandwidth", "bandwidth %s ", bw);
	}
	if (tb[TCA_DFS_SCHED]) {
		val = rta_getattr_u32(tb[TCA_DFS_SCHED]);
		dfs_print_name("sched", dfs_scheds, ARRAY_SIZE(dfs_scheds),
			       val);
		/* the flow scheduler's parameters mean nothing in fifo */
		if (val == TC_DFS_SCHED_FQ)
			dfs_print_fq_opt(tb);
	}
	dfs_print_cpr_opt(tb);

	return 0;
}

/* Whether a kernel that sent len bytes of xstats knows about member. */
#define DFS_HAS(len, member) \
	((len) >= offsetof(struct tc_dfs_xstats, member) + \
		  sizeof(((struct tc_dfs_xstats *)0)->member))

static void dfs_print_qd_xstats(const struct tc_dfs_qd_stats *st, size_t len)
{
	SPRINT_BUF(b1);

#define QD_U32(field, fmt) \
	do { \
		if (DFS_HAS(len, qdisc_stats.field)) \
			print_uint(PRINT_ANY, #field, fmt, st->field); \
	} while (0)
#define QD_U64(field, fmt) \
	do { \
		if (DFS_HAS(len, qdisc_stats.field)) \
			print_u64(PRINT_ANY, #field, fmt, st->field); \
	} while (0)

	QD_U32(flows, "  flows %u");
	QD_U32(btree_flows, " btree_flows %u");
	QD_U32(cache_flows, " cache_flows %u");
	QD_U32(malicious, " malicious %u");
	QD_U32(trending, " trending %u");
	QD_U32(active_flows, " active_flows %u");
	QD_U32(btree_height, " btree_height %u");
	QD_U32(index_flows, " index_flows %u");
	QD_U32(index_buckets, " index_buckets %u");
	print_nl();
	if (DFS_HAS(len, qdisc_stats.wfs))
		print_size(PRINT_ANY, "wfs", "  wfs %s", st->wfs);
	if (DFS_HAS(len, qdisc_stats.fair_rate))
		tc_print_rate(PRINT_ANY, "fair_rate", " fair_rate %s",
			      st->fair_rate);
	QD_U64(new_flows, " new_flows %llu");
	QD_U64(pruned, " pruned %llu");
	QD_U64(ecn_marked, " ecn_marked %llu");
	if (DFS_HAS(len, qdisc_stats.memory_usage)) {
		print_u64(PRINT_JSON, "memory_usage", NULL, st->memory_usage);
		if (st->memory_usage <= UINT32_MAX)
			print_string(PRINT_FP, NULL, " memory_usage %s",
				     sprint_size(st->memory_usage, b1));
		else
			print_u64(PRINT_FP, NULL, " memory_usage %llub",
				  st->memory_usage);
	}
	if (DFS_HAS(len, qdisc_stats.queue_memory)) {
		print_u64(PRINT_JSON, "queue_memory", NULL, st->queue_memory);
		if (st->queue_memory <= UINT32_MAX)
			print_string(PRINT_FP, NULL, " queue_memory %s",
				     sprint_size(st->queue_memory, b1));
		else
			print_u64(PRINT_FP, NULL, " queue_memory %llub",
				  st->queue_memory);
	}
	print_nl();
	QD_U64(drop_overlimit, "  drop_overlimit %llu");
	QD_U64(drop_malicious, " drop_malicious %llu");
	QD_U64(drop_wfs, " drop_wfs %llu");
	QD_U64(flows_overflow, " flows_overflow %llu");
	QD_U64(drop_overmemory, " drop_overmemory %llu");
	QD_U64(drop_shared, " drop_shared %llu");
	QD_U64(mq_unshared, " mq_unshared %llu");
	if (DFS_HAS(len, qdisc_stats.drop_nomem)) {
		print_nl();
		QD_U64(fq_flows, "  fq_flows %llu");
		QD_U64(fq_new_flows, " fq_new_flows %llu");
		QD_U64(codel_drops, " codel_drops %llu");
		QD_U64(codel_marks, " codel_marks %llu");
		QD_U64(drop_nomem, " drop_nomem %llu");
	}
	if (DFS_HAS(len, qdisc_stats.drop_cpr)) {
		print_nl();
		print_float(PRINT_JSON, "cpr_tau", NULL,
			    (double)st->cpr_tau / TC_DFS_ONE);
		print_string(PRINT_FP, NULL, "  cpr_tau %s",
			     dfs_sprint_frac(st->cpr_tau, b1));
		print_float(PRINT_JSON, "cpr_csr", NULL,
			    (double)st->cpr_csr / TC_DFS_ONE);
		print_string(PRINT_FP, NULL, " cpr_csr %s",
			     dfs_sprint_frac(st->cpr_csr, b1));
		QD_U32(cpr_flows, " cpr_flows %u");
		QD_U64(cpr_periods, " cpr_periods %llu");
		QD_U64(cpr_congested, " cpr_congested %llu");
		QD_U64(drop_cpr, " drop_cpr %llu");
	}
	if (DFS_HAS(len, qdisc_stats.cpr_surges))
		QD_U64(cpr_surges, " cpr_surges %llu");
	if (DFS_HAS(len, qdisc_stats.cpr_period)) {
		print_uint(PRINT_JSON, "cpr_period", NULL, st->cpr_period);
		print_string(PRINT_FP, NULL, " cpr_period %s",
			     sprint_time(st->cpr_period, b1));
	}
	if (DFS_HAS(len, qdisc_stats.fq_overflow)) {
		print_nl();
		QD_U64(fq_queues, "  fq_queues %llu");
		QD_U64(fq_overflow, " fq_overflow %llu");
	}
	if (DFS_HAS(len, qdisc_stats.fq_boosts))
		QD_U64(fq_boosts, " fq_boosts %llu");

#undef QD_U32
#undef QD_U64
}

static const char *dfs_proto_name(__u8 proto)
{
	switch (proto) {
	case IPPROTO_ICMP:	return "icmp";
	case IPPROTO_TCP:	return "tcp";
	case IPPROTO_UDP:	return "udp";
	case IPPROTO_DCCP:	return "dccp";
	case IPPROTO_ICMPV6:	return "icmpv6";
	case IPPROTO_SCTP:	return "sctp";
	case IPPROTO_UDPLITE:	return "udplite";
	default:		return NULL;
	}
}

static void dfs_print_cl_xstats(const struct tc_dfs_cl_stats *st, size_t len)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	const char *proto;

	SPRINT_BUF(b1);

	if (!DFS_HAS(len, class_stats.dst))
		return;

	if (st->family == AF_INET || st->family == AF_INET6) {
		print_string(PRINT_JSON, "family", NULL,
			     st->family == AF_INET ? "inet" : "inet6");
		if (!inet_ntop(st->family, st->src, src, sizeof(src)))
			strcpy(src, "?");
		if (!inet_ntop(st->family, st->dst, dst, sizeof(dst)))
			strcpy(dst, "?");
		print_string(PRINT_ANY, "src", "  src %s", src);
		if (st->sport)
			print_uint(PRINT_ANY, "sport", " sport %u",
				   ntohs(st->sport));
		print_string(PRINT_ANY, "dst", " dst %s", dst);
		if (st->dport)
			print_uint(PRINT_ANY, "dport", " dport %u",
				   ntohs(st->dport));
	} else {
		print_string(PRINT_ANY, "family", "  %s", "non-ip");
	}

	if (st->proto) {
		print_uint(PRINT_JSON, "proto", NULL, st->proto);
		proto = dfs_proto_name(st->proto);
		if (proto)
			print_string(PRINT_FP, NULL, " proto %s", proto);
		else
			print_uint(PRINT_FP, NULL, " proto %u", st->proto);
	}

	if (DFS_HAS(len, class_stats.pm)) {
		print_float(PRINT_JSON, "pm", NULL, (double)st->pm / TC_DFS_ONE);
		print_string(PRINT_FP, NULL, " pm %s",
			     dfs_sprint_frac(st->pm, b1));
	}
	if (DFS_HAS(len, class_stats.backlog))
		print_size(PRINT_ANY, "backlog", " backlog %s", st->backlog);
	if (DFS_HAS(len, class_stats.bitrate))
		tc_print_rate(PRINT_ANY, "bitrate", " bitrate %s", st->bitrate);
	if (DFS_HAS(len, class_stats.cpr_packets)) {
		print_float(PRINT_JSON, "cpr", NULL, (double)st->cpr / TC_DFS_ONE);
		print_string(PRINT_FP, NULL, " cpr %s",
			     dfs_sprint_frac(st->cpr, b1));
		print_uint(PRINT_ANY, "cpr_packets", " cpr_packets %u",
			   st->cpr_packets);
	}

	open_json_array(PRINT_JSON, "flags");
	if (st->flags & TC_DFS_FLOW_MALICIOUS)
		print_string(PRINT_ANY, NULL, " %s", "malicious");
	if (st->flags & TC_DFS_FLOW_TRENDING)
		print_string(PRINT_ANY, NULL, " %s", "trending");
	if (st->flags & TC_DFS_FLOW_CPR)
		print_string(PRINT_ANY, NULL, " %s", "cpr");
	close_json_array(PRINT_JSON, NULL);
}

static int dfs_print_xstats(struct qdisc_util *qu, FILE *f,
			    struct rtattr *xstats)
{
	struct tc_dfs_xstats st = {};
	size_t len;

	if (xstats == NULL)
		return 0;

	/* Older kernels send less, newer ones may send more: copy what fits. */
	len = RTA_PAYLOAD(xstats);
	if (len < sizeof(st.type))
		return -1;
	memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));

	switch (st.type) {
	case TCA_DFS_XSTATS_QDISC:
		dfs_print_qd_xstats(&st.qdisc_stats, len);
		break;
	case TCA_DFS_XSTATS_CLASS:
		dfs_print_cl_xstats(&st.class_stats, len);
		break;
	default:
		print_uint(PRINT_ANY, "xstats_type", "  unknown xstats type %u",
			   st.type);
		break;
	}
	return 0;
}

struct qdisc_util dfs_qdisc_util = {
	.id		= "dfs",
	.parse_qopt	= dfs_parse_opt,
	.print_qopt	= dfs_print_opt,
	.print_xstats	= dfs_print_xstats,
};

/* dfs_mq: the root over a dfs a tx queue, of the same options. */
struct qdisc_util dfs_mq_qdisc_util = {
	.id		= "dfs_mq",
	.parse_qopt	= dfs_parse_opt,
	.print_qopt	= dfs_print_opt,
	.print_xstats	= dfs_print_xstats,
};
