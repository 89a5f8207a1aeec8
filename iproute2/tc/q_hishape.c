/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HiShape: per-source-range shaping
 *
 * Goldstein, Reif, Stahl, Breuel, "High Performance Traffic Shaping for
 * DDoS Mitigation", CoNEXT 2008 Student Workshop.
 *
 * The ranges come from a file, one a line.  tc checks, sorts and sends
 * them in chunks, each a netlink message of its own, and the table
 * replaces the qdisc's at the last (see linux/pkt_sched_hishape.h).
 *
 * Copyright (C) 2026 sch_dfs developers <dev@sch-dfs.invalid>
 */

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <ctype.h>
#include <errno.h>
#include <time.h>
#include <arpa/inet.h>
#include <linux/pkt_sched_hishape.h>

#include "utils.h"
#include "tc_util.h"
#include "tc_common.h"

/* Ranges a chunk carries: 48 KB, well inside a 64 KB attribute. */
#define HISHAPE_CHUNK		1024
#define HISHAPE_RATE_MAX	12500000000ULL	/* 100 Gbit/s, the kernel's */
#define HISHAPE_BURST_MAX	((1U << 27) - 1)
#define HISHAPE_BURST_MIN	3028		/* two full-size frames */

static void explain(void)
{
	fprintf(stderr,
		"Usage: ... hishape [ ranges FILE ] [ match src|dst ]\n"
		"                   [ default pass|drop ] [ limit PACKETS ]\n"
		"                   [ pass_limit PACKETS ] [ memory_limit BYTES ]\n"
		"FILE: one range a line, \"ADDR\", \"ADDR/LEN\" or \"ADDR-ADDR\"\n"
		"      (IPv4 or IPv6), then RATE [ burst BYTES ]; # comments.\n"
		"      Ranges must not overlap; any order.\n"
		"limit: packets a range may queue (1..65536, default 32)\n"
		"pass_limit: packets in no range queued (1..1048576, default 1000)\n");
}

struct hishape_line {
	struct tc_hishape_range	r;
	unsigned int		line;
};

struct hishape_file {
	const char		*name;
	struct hishape_line	*v;
	size_t			n, cap;
	__u32			n4, n6;
};

/* A 128-bit address, IPv4 in the low 32 bits, as two host-order words. */
struct addr128 {
	__u64	hi, lo;
};

static struct addr128 addr_get(const __u8 *b, int family)
{
	struct addr128 a = {};
	int i;

	if (family == AF_INET) {
		a.lo = (__u64)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];
		return a;
	}
	for (i = 0; i < 8; i++) {
		a.hi = a.hi << 8 | b[i];
		a.lo = a.lo << 8 | b[i + 8];
	}
	return a;
}

static int addr_cmp(struct addr128 a, struct addr128 b)
{
	if (a.hi != b.hi)
		return a.hi < b.hi ? -1 : 1;
	if (a.lo != b.lo)
		return a.lo < b.lo ? -1 : 1;
	return 0;
}

static int hishape_line_cmp(const void *x, const void *y)
{
	const struct hishape_line *a = x, *b = y;
	int c;

	if (a->r.family != b->r.family)	/* IPv4 first, as the kernel */
		return a->r.family == AF_INET ? -1 : 1;
	c = addr_cmp(addr_get(a->r.start, a->r.family),
		     addr_get(b->r.start, b->r.family));
	/* equal starts by line: the overlap reported is the same everywhere */
	return c ? c : (a->line > b->line) - (a->line < b->line);
}

static int parse_addr(const char *s, __u8 *out, int *family)
{
	if (inet_pton(AF_INET, s, out) == 1) {
		*family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, out) == 1) {
		*family = AF_INET6;
		return 0;
	}
	return -1;
}

/* ADDR, ADDR/LEN or ADDR-ADDR into r; a message on failure. */
static const char *parse_range(char *word, struct tc_hishape_range *r)
{
	char *slash = strchr(word, '/'), *dash = strchr(word, '-');
	int family, family2, bits, i;
	unsigned int len;

	memset(r, 0, sizeof(*r));
	if (slash)
		*slash = '\0';
	if (dash)
		*dash = '\0';
	if (parse_addr(word, r->start, &family))
		return "not an IPv4 or IPv6 address";
	r->family = family;
	bits = family == AF_INET ? 32 : 128;
	memcpy(r->end, r->start, 16);
	if (slash) {
		if (get_unsigned(&len, slash + 1, 10) || len > (unsigned int)bits)
			return "prefix length out of range";
		for (i = len; i < bits; i++) {
			__u8 bit = 0x80 >> (i % 8);

			if (r->start[i / 8] & bit)
				return "address has bits set past its prefix length";
			r->end[i / 8] |= bit;
		}
	} else if (dash) {
		if (parse_addr(dash + 1, r->end, &family2))
			return "range end is not an IPv4 or IPv6 address";
		if (family2 != family)
			return "range start and end are not of one family";
		if (addr_cmp(addr_get(r->start, family),
			     addr_get(r->end, family)) > 0)
			return "range starts above its end";
	}
	return NULL;
}

static int hishape_error(const struct hishape_file *f, unsigned int line,
			 const char *what, const char *word)
{
	fprintf(stderr, "%s:%u: %s%s%s%s\n", f->name, line, what,
		word ? ": \"" : "", word ? word : "", word ? "\"" : "");
	return -1;
}

/* One line: RANGE RATE [ burst BYTES ], or nothing but a comment. */
static int hishape_parse_line(struct hishape_file *f, char *s,
			      unsigned int line)
{
	char *words[5], *hash = strchr(s, '#'), *save = NULL;
	char word[2 * INET6_ADDRSTRLEN + 2] = "";
	struct hishape_line *l;
	const char *err;
	__u64 rate;
	__u32 burst;
	int n = 0;

	if (hash)
		*hash = '\0';
	for (char *w = strtok_r(s, " \t\r\n", &save); w;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == 4)
			return hishape_error(f, line, "too many words", w);
		words[n++] = w;
	}
	if (!n)
		return 0;
	if (n != 2 && n != 4)
		return hishape_error(f, line,
				     "expected RANGE RATE [ burst BYTES ]", NULL);
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 1024;
		void *v = realloc(f->v, cap * sizeof(*f->v));

		if (!v)
			return hishape_error(f, line, "out of memory", NULL);
		f->v = v;
		f->cap = cap;
	}
	l = &f->v[f->n];
	l->line = line;
	strncpy(word, words[0], sizeof(word) - 1);
	err = parse_range(words[0], &l->r);
	if (err)
		return hishape_error(f, line, err, word);
	if (!isdigit((unsigned char)words[1][0]) || get_rate64(&rate, words[1]) ||
	    !rate || rate > HISHAPE_RATE_MAX)
		return hishape_error(f, line,
				     "rate is not a rate from 8bit to 100gbit", words[1]);
	burst = rate / 100 > HISHAPE_BURST_MIN ? rate / 100 : HISHAPE_BURST_MIN;
	if (n == 4) {
		if (strcmp(words[2], "burst"))
			return hishape_error(f, line, "expected \"burst\"", words[2]);
		if (!isdigit((unsigned char)words[3][0]) ||
		    get_size(&burst, words[3]) || burst > HISHAPE_BURST_MAX)
			return hishape_error(f, line,
					     "burst is not a size up to 128mb", words[3]);
	}
	l->r.rate = rate;
	l->r.burst = burst > HISHAPE_BURST_MAX ? HISHAPE_BURST_MAX : burst;
	if (l->r.family == AF_INET)
		f->n4++;
	else
		f->n6++;
	f->n++;
	return 0;
}

/* Read, check and sort the file: on any error, its line and nothing sent. */
static int hishape_read(struct hishape_file *f)
{
	FILE *fp = fopen(f->name, "r");
	unsigned int line = 0;
	char *buf = NULL;
	size_t size = 0;
	size_t i;
	int err = 0;

	if (!fp) {
		fprintf(stderr, "hishape: cannot open \"%s\": %s\n", f->name,
			strerror(errno));
		return -1;
	}
	while (getline(&buf, &size, fp) >= 0) {
		err = hishape_parse_line(f, buf, ++line);
		if (err)
			break;
	}
	free(buf);
	fclose(fp);
	if (err)
		return -1;
	qsort(f->v, f->n, sizeof(*f->v), hishape_line_cmp);
	for (i = 1; i < f->n; i++) {
		const struct hishape_line *a = &f->v[i - 1], *b = &f->v[i];

		if (a->r.family == b->r.family &&
		    addr_cmp(addr_get(b->r.start, b->r.family),
			     addr_get(a->r.end, a->r.family)) <= 0) {
			fprintf(stderr, "%s:%u: overlaps the range of line %u\n",
				f->name, b->line > a->line ? b->line : a->line,
				b->line > a->line ? a->line : b->line);
			return -1;
		}
	}
	return 0;
}

/* A change message for the qdisc n addresses, options to be added. */
static struct rtattr *hishape_msg(struct nlmsghdr *m, const struct nlmsghdr *n)
{
	/* the header and tcmsg of n, its ifindex already resolved */
	memcpy(m, n, NLMSG_LENGTH(sizeof(struct tcmsg)));
	m->nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg));
	m->nlmsg_flags = NLM_F_REQUEST;
	addattr_l(m, TCA_BUF_MAX, TCA_KIND, "hishape", sizeof("hishape"));
	return addattr_nest(m, TCA_BUF_MAX, TCA_OPTIONS | NLA_F_NESTED);
}

static void hishape_chunk(struct nlmsghdr *m, const struct hishape_file *f,
			  __u32 id, size_t off, size_t cnt)
{
	struct tc_hishape_range *buf = malloc(cnt * sizeof(*buf));
	size_t i;

	for (i = 0; i < cnt; i++)
		buf[i] = f->v[off + i].r;
	addattr32(m, TCA_BUF_MAX, TCA_HISHAPE_LOAD_ID, id);
	addattr32(m, TCA_BUF_MAX, TCA_HISHAPE_LOAD_OFFSET, off);
	addattr_l(m, TCA_BUF_MAX, TCA_HISHAPE_LOAD_RANGES, buf,
		  cnt * sizeof(*buf));
	free(buf);
}

/* The options given, to be sent with the table's commit. */
struct hishape_opts {
	__u32	match, dflt, limit, pass, memory;
	bool	has_match, has_dflt;
};

static void hishape_put_opts(struct nlmsghdr *n, const struct hishape_opts *o)
{
	if (o->has_match)
		addattr32(n, TCA_BUF_MAX, TCA_HISHAPE_MATCH, o->match);
	if (o->has_dflt)
		addattr32(n, TCA_BUF_MAX, TCA_HISHAPE_DEFAULT, o->dflt);
	if (o->limit)
		addattr32(n, TCA_BUF_MAX, TCA_HISHAPE_LIMIT, o->limit);
	if (o->pass)
		addattr32(n, TCA_BUF_MAX, TCA_HISHAPE_PASS_LIMIT, o->pass);
	if (o->memory)
		addattr32(n, TCA_BUF_MAX, TCA_HISHAPE_MEMORY_LIMIT, o->memory);
}

/* Undo an add whose table could not be loaded: no half-made qdisc left. */
static void hishape_undo_add(const struct nlmsghdr *n)
{
	struct {
		struct nlmsghdr	n;
		struct tcmsg	t;
	} req = {
		.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg)),
		.n.nlmsg_flags = NLM_F_REQUEST,
		.n.nlmsg_type = RTM_DELQDISC,
		.t = *(const struct tcmsg *)NLMSG_DATA(n),
	};

	if (rtnl_talk(&rth, &req.n, NULL) < 0)
		fprintf(stderr, "hishape: the qdisc made for the table could not be deleted\n");
}

/*
 * A table over several messages.  The first, n as the caller made it,
 * makes (or changes) the qdisc with the load's beginning and first chunk
 * and no option; the others follow as
 * changes; tc's own message n, made a change, commits and carries the
 * options, so that they apply with the table or not at all.  If a chunk
 * is refused, an add is undone; a change leaves the qdisc as it was.
 */
static int hishape_load_chunked(struct nlmsghdr *n, const char *dev,
				const struct hishape_file *f, __u32 id,
				const struct hishape_opts *o)
{
	__u16 flags = n->nlmsg_flags;
	struct rtattr *tail;
	size_t off;

	ll_init_map(&rth);
	((struct tcmsg *)NLMSG_DATA(n))->tcm_ifindex = ll_name_to_index(dev);
	if (rtnl_talk(&rth, n, NULL) < 0)
		return -1;
	for (off = HISHAPE_CHUNK; off < f->n; off += HISHAPE_CHUNK) {
		struct {
			struct nlmsghdr	n;
			struct tcmsg	t;
			char		buf[TCA_BUF_MAX];
		} req;
		size_t cnt = f->n - off < HISHAPE_CHUNK ? f->n - off : HISHAPE_CHUNK;

		tail = hishape_msg(&req.n, n);
		hishape_chunk(&req.n, f, id, off, cnt);
		addattr_nest_end(&req.n, tail);
		if (rtnl_talk(&rth, &req.n, NULL) < 0) {
			fprintf(stderr, "hishape: the chunk at range %zu was refused: ",
				off);
			if (flags & NLM_F_EXCL) {
				fprintf(stderr, "the qdisc is not added\n");
				hishape_undo_add(n);
			} else {
				fprintf(stderr, "the table and options serving are kept\n");
			}
			return -1;
		}
	}
	n->nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg));
	n->nlmsg_flags = NLM_F_REQUEST;
	addattr_l(n, TCA_BUF_MAX, TCA_KIND, "hishape", sizeof("hishape"));
	tail = addattr_nest(n, TCA_BUF_MAX, TCA_OPTIONS | NLA_F_NESTED);
	hishape_put_opts(n, o);
	addattr32(n, TCA_BUF_MAX, TCA_HISHAPE_LOAD_COMMIT, id);
	addattr_nest_end(n, tail);
	return 0;
}

static int hishape_parse_opt(struct qdisc_util *qu, int argc, char **argv,
			     struct nlmsghdr *n, const char *dev)
{
	struct hishape_file f = {};
	struct hishape_opts o = {};
	struct tc_hishape_load begin;
	struct rtattr *tail;
	int err = 0;
	__u32 id;

	while (argc > 0) {
		if (strcmp(*argv, "ranges") == 0) {
			NEXT_ARG();
			f.name = *argv;
		} else if (strcmp(*argv, "match") == 0) {
			NEXT_ARG();
			if (strcmp(*argv, "src") == 0) {
				o.match = TC_HISHAPE_MATCH_SRC;
			} else if (strcmp(*argv, "dst") == 0) {
				o.match = TC_HISHAPE_MATCH_DST;
			} else {
				fprintf(stderr, "Illegal \"match\": src or dst\n");
				return -1;
			}
			o.has_match = true;
		} else if (strcmp(*argv, "default") == 0) {
			NEXT_ARG();
			if (strcmp(*argv, "pass") == 0) {
				o.dflt = TC_HISHAPE_DEFAULT_PASS;
			} else if (strcmp(*argv, "drop") == 0) {
				o.dflt = TC_HISHAPE_DEFAULT_DROP;
			} else {
				fprintf(stderr, "Illegal \"default\": pass or drop\n");
				return -1;
			}
			o.has_dflt = true;
		} else if (strcmp(*argv, "limit") == 0) {
			NEXT_ARG();
			if (!isdigit((unsigned char)**argv) ||
			    get_u32(&o.limit, *argv, 10) || !o.limit ||
			    o.limit > 65536) {
				fprintf(stderr, "Illegal \"limit\": packets, 1..65536\n");
				return -1;
			}
		} else if (strcmp(*argv, "pass_limit") == 0) {
			NEXT_ARG();
			if (!isdigit((unsigned char)**argv) ||
			    get_u32(&o.pass, *argv, 10) || !o.pass ||
			    o.pass > 1U << 20) {
				fprintf(stderr,
					"Illegal \"pass_limit\": packets, 1..1048576\n");
				return -1;
			}
		} else if (strcmp(*argv, "memory_limit") == 0) {
			NEXT_ARG();
			if (!isdigit((unsigned char)**argv) ||
			    get_size(&o.memory, *argv) || o.memory < 65536) {
				fprintf(stderr,
					"Illegal \"memory_limit\": a size of at least 64kb\n");
				return -1;
			}
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

	if (f.name && hishape_read(&f)) {
		free(f.v);
		return -1;
	}

	tail = addattr_nest(n, TCA_BUF_MAX, TCA_OPTIONS | NLA_F_NESTED);
	if (f.n <= HISHAPE_CHUNK)
		hishape_put_opts(n, &o);
	if (f.name) {
		id = getpid() ^ (__u32)time(NULL);
		begin = (struct tc_hishape_load){
			.id = id, .ranges4 = f.n4, .ranges6 = f.n6,
		};
		addattr_l(n, TCA_BUF_MAX, TCA_HISHAPE_LOAD_BEGIN, &begin,
			  sizeof(begin));
		if (f.n <= HISHAPE_CHUNK) {
			/* one message: options, begin, the ranges, the commit */
			hishape_chunk(n, &f, id, 0, f.n);
			addattr32(n, TCA_BUF_MAX, TCA_HISHAPE_LOAD_COMMIT, id);
		} else {
			/* the first chunk rides on the first message */
			hishape_chunk(n, &f, id, 0, HISHAPE_CHUNK);
			addattr_nest_end(n, tail);
			err = hishape_load_chunked(n, dev, &f, id, &o);
			free(f.v);
			return err;
		}
	}
	addattr_nest_end(n, tail);
	free(f.v);
	return 0;
}

/* "a", "a/len" when [start, end] is a prefix, else "a-b". */
static void hishape_print_range(int family, const __u8 *s, const __u8 *e,
				char *buf, size_t size)
{
	int bytes = family == AF_INET ? 4 : 16, len = 0, i;
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];
	bool prefix = true;

	inet_ntop(family, s, a, sizeof(a));
	inet_ntop(family, e, b, sizeof(b));
	if (!memcmp(s, e, bytes)) {
		snprintf(buf, size, "%s", a);
		return;
	}
	/* a prefix: equal bits, then start all 0 and end all 1 */
	while (len < bytes * 8 &&
	       !((s[len / 8] ^ e[len / 8]) & (0x80 >> (len % 8))))
		len++;
	for (i = len; i < bytes * 8; i++)
		if ((s[i / 8] & (0x80 >> (i % 8))) ||
		    !(e[i / 8] & (0x80 >> (i % 8))))
			prefix = false;
	if (prefix)
		snprintf(buf, size, "%s/%d", a, len);
	else
		snprintf(buf, size, "%s-%s", a, b);
}

static void hishape_print_top(struct rtattr *top)
{
	struct rtattr *tb[TCA_HISHAPE_TR_MAX + 1], *r;
	char range[2 * INET6_ADDRSTRLEN + 2];
	int rem = RTA_PAYLOAD(top);

	open_json_array(PRINT_JSON, "top");
	for (r = RTA_DATA(top); RTA_OK(r, rem); r = RTA_NEXT(r, rem)) {
		int family, bytes;

		parse_rtattr_nested(tb, TCA_HISHAPE_TR_MAX, r);
		if (!tb[TCA_HISHAPE_TR_FAMILY] || !tb[TCA_HISHAPE_TR_START] ||
		    !tb[TCA_HISHAPE_TR_END] || !tb[TCA_HISHAPE_TR_RATE] ||
		    !tb[TCA_HISHAPE_TR_BYTES] || !tb[TCA_HISHAPE_TR_DROPS])
			continue;
		family = rta_getattr_u8(tb[TCA_HISHAPE_TR_FAMILY]);
		bytes = family == AF_INET ? 4 : 16;
		if (RTA_PAYLOAD(tb[TCA_HISHAPE_TR_START]) != bytes ||
		    RTA_PAYLOAD(tb[TCA_HISHAPE_TR_END]) != bytes)
			continue;
		hishape_print_range(family, RTA_DATA(tb[TCA_HISHAPE_TR_START]),
				    RTA_DATA(tb[TCA_HISHAPE_TR_END]),
				    range, sizeof(range));
		open_json_object(NULL);
		print_nl();
		print_string(PRINT_ANY, "range", "  range %s", range);
		tc_print_rate(PRINT_ANY, "rate", " rate %s",
			      rta_getattr_u64(tb[TCA_HISHAPE_TR_RATE]));
		print_u64(PRINT_ANY, "bytes", " sent %llu bytes",
			  rta_getattr_u64(tb[TCA_HISHAPE_TR_BYTES]));
		print_uint(PRINT_ANY, "drops", " dropped %u",
			   rta_getattr_u32(tb[TCA_HISHAPE_TR_DROPS]));
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
}

static int hishape_print_opt(struct qdisc_util *qu, FILE *f, struct rtattr *opt)
{
	struct rtattr *tb[TCA_HISHAPE_MAX + 1];
	int i;

	if (opt == NULL)
		return 0;

	parse_rtattr_nested(tb, TCA_HISHAPE_MAX, opt);
	for (i = 0; i <= TCA_HISHAPE_MAX; i++)
		if (tb[i] && i != TCA_HISHAPE_TOP &&
		    RTA_PAYLOAD(tb[i]) < sizeof(__u32))
			tb[i] = NULL;

	if (tb[TCA_HISHAPE_RANGES4] && tb[TCA_HISHAPE_RANGES6]) {
		__u32 r4 = rta_getattr_u32(tb[TCA_HISHAPE_RANGES4]);
		__u32 r6 = rta_getattr_u32(tb[TCA_HISHAPE_RANGES6]);

		print_uint(PRINT_FP, NULL, "ranges %u ", r4 + r6);
		print_uint(PRINT_JSON, "ranges4", NULL, r4);
		print_uint(PRINT_JSON, "ranges6", NULL, r6);
	}
	if (tb[TCA_HISHAPE_MATCH])
		print_string(PRINT_ANY, "match", "match %s ",
			     rta_getattr_u32(tb[TCA_HISHAPE_MATCH]) ==
			     TC_HISHAPE_MATCH_DST ? "dst" : "src");
	if (tb[TCA_HISHAPE_DEFAULT])
		print_string(PRINT_ANY, "default", "default %s ",
			     rta_getattr_u32(tb[TCA_HISHAPE_DEFAULT]) ==
			     TC_HISHAPE_DEFAULT_DROP ? "drop" : "pass");
	if (tb[TCA_HISHAPE_LIMIT])
		print_uint(PRINT_ANY, "limit", "limit %u ",
			   rta_getattr_u32(tb[TCA_HISHAPE_LIMIT]));
	if (tb[TCA_HISHAPE_PASS_LIMIT])
		print_uint(PRINT_ANY, "pass_limit", "pass_limit %u ",
			   rta_getattr_u32(tb[TCA_HISHAPE_PASS_LIMIT]));
	if (tb[TCA_HISHAPE_MEMORY_LIMIT])
		print_size(PRINT_ANY, "memory_limit", "memory_limit %s ",
			   rta_getattr_u32(tb[TCA_HISHAPE_MEMORY_LIMIT]));
	if (tb[TCA_HISHAPE_TOP] && show_details)
		hishape_print_top(tb[TCA_HISHAPE_TOP]);
	return 0;
}

static int hishape_print_xstats(struct qdisc_util *qu, FILE *f,
				struct rtattr *xstats)
{
	struct tc_hishape_xstats st = {};
	size_t len;

	if (xstats == NULL)
		return 0;

	/* Older kernels send less, newer ones may send more: copy what fits. */
	len = RTA_PAYLOAD(xstats);
	memcpy(&st, RTA_DATA(xstats), len < sizeof(st) ? len : sizeof(st));

	print_uint(PRINT_ANY, "ranges", "  ranges %u", st.ranges);
	print_uint(PRINT_ANY, "backlogged", " backlogged %u", st.backlogged);
	print_uint(PRINT_ANY, "loads", " loads %u", st.loads);
	print_u64(PRINT_ANY, "memory_usage", " memory_usage %llu",
		  st.memory_usage);
	print_nl();
	print_u64(PRINT_ANY, "lookups", "  lookups %llu", st.lookups);
	print_u64(PRINT_ANY, "passed", " passed %llu", st.passed);
	print_u64(PRINT_ANY, "control", " control %llu", st.control);
	print_u64(PRINT_ANY, "conforming", " conforming %llu", st.conforming);
	print_u64(PRINT_ANY, "shaped", " shaped %llu", st.shaped);
	print_nl();
	print_u64(PRINT_ANY, "drop_range", "  drop_range %llu", st.drop_range);
	print_u64(PRINT_ANY, "drop_pass", " drop_pass %llu", st.drop_pass);
	print_u64(PRINT_ANY, "drop_default", " drop_default %llu",
		  st.drop_default);
	print_u64(PRINT_ANY, "drop_overmemory", " drop_overmemory %llu",
		  st.drop_overmemory);
	print_u64(PRINT_ANY, "drop_noslot", " drop_noslot %llu",
		  st.drop_noslot);
	return 0;
}

struct qdisc_util hishape_qdisc_util = {
	.id		= "hishape",
	.parse_qopt	= hishape_parse_opt,
	.print_qopt	= hishape_print_opt,
	.print_xstats	= hishape_print_xstats,
};
