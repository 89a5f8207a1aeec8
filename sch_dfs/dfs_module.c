// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dfs: the module.  It registers the dfs qdisc, the dfs_mq root that
 * puts a dfs on every tx queue, and the generic netlink family of their
 * verdicts; the flows' caches come first and go last.
 */
#include <linux/module.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "dfs_sched.h"
#include "dfs_mq.h"

static int __init dfs_module_init(void)
{
	int err;

	err = dfs_table_init();
	if (err)
		return err;
	err = dfs_verdict_register();
	if (err)
		goto err_table;
	err = register_qdisc(&dfs_qdisc_ops);
	if (err)
		goto err_verdict;
	err = register_qdisc(&dfs_mq_qdisc_ops);
	if (err)
		goto err_qdisc;
	return 0;
err_qdisc:
	unregister_qdisc(&dfs_qdisc_ops);
err_verdict:
	dfs_verdict_unregister();
err_table:
	dfs_table_exit();
	return err;
}

static void __exit dfs_module_exit(void)
{
	unregister_qdisc(&dfs_mq_qdisc_ops);
	unregister_qdisc(&dfs_qdisc_ops);
	dfs_verdict_unregister();
	dfs_table_exit();
}

module_init(dfs_module_init);
module_exit(dfs_module_exit);
MODULE_AUTHOR("sch_dfs developers <dev@sch-dfs.invalid>");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Deterministic Fair Sharing (DFS) AQM");
MODULE_VERSION(SCH_DFS_VERSION);
MODULE_ALIAS_NET_SCH("dfs");
