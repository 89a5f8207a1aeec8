# SPDX-License-Identifier: GPL-2.0
# Made by tools/xstats.py --layout from include/uapi/linux/pkt_sched_dfs.h:
# change the header, then run it; make unit fails on a stale copy.
"""struct tc_dfs_xstats as a dfs sends it: type and pad, then
struct tc_dfs_qd_stats."""
import struct

XSTATS = struct.Struct('<IIIIIIIIIIQQQQQQQQQQQQQQQQIIIIQQQQIIQQIIQQQ')
XSTATS_FIELDS = (
    'type', 'xstats_pad', 'flows', 'btree_flows', 'cache_flows', 'malicious',
    'trending', 'active_flows', 'btree_height', 'wfs', 'fair_rate',
    'new_flows', 'pruned', 'ecn_marked', 'drop_overlimit', 'drop_malicious',
    'drop_wfs', 'flows_overflow', 'memory_usage', 'fq_flows', 'fq_new_flows',
    'codel_drops', 'codel_marks', 'drop_nomem', 'drop_overmemory',
    'queue_memory', 'cpr_tau', 'cpr_csr', 'cpr_flows', 'pad', 'cpr_periods',
    'cpr_congested', 'drop_cpr', 'cpr_surges', 'cpr_period', 'pad2',
    'fq_queues', 'fq_overflow', 'index_flows', 'index_buckets', 'drop_shared',
    'mq_unshared', 'fq_boosts',
)
