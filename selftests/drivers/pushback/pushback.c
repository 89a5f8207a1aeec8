// SPDX-License-Identifier: GPL-2.0
/*
 * pushback: a test network device whose driver pushes back on demand.
 *
 * For the selftests only (selftests/dfs_requeue.sh), as netdevsim is for
 * the kernel's own.  A NIC whose ring is full stops its queue and hands the
 * packet back (NETDEV_TX_BUSY); the qdisc layer then parks it in the root
 * qdisc's gso_skb (dev_requeue_skb()), still counted in that qdisc's
 * backlog, until the queue is woken.  No virtual device of the kernel does
 * that on demand, and a qdisc must cope with it at any moment.
 *
 * Loading the module creates pushback0, two tx queues, no ARP, a sink:
 * every packet it takes is freed.  While /sys/module/pushback/parameters/
 * hold is 1, every transmit stops its queue and returns NETDEV_TX_BUSY;
 * writing 0 wakes the queues.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>

#define PUSHBACK_TXQS	2

static struct net_device *pushback_dev;
static bool pushback_hold;

static netdev_tx_t pushback_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct netdev_queue *txq;

	if (READ_ONCE(pushback_hold)) {
		txq = netdev_get_tx_queue(dev, skb_get_queue_mapping(skb));
		netif_tx_stop_queue(txq);
		/* A release between the test and the stop must not leave
		 * the queue stopped for good.
		 */
		smp_mb();
		if (!READ_ONCE(pushback_hold))
			netif_tx_wake_queue(txq);
		return NETDEV_TX_BUSY;
	}
	consume_skb(skb);
	return NETDEV_TX_OK;
}

static int pushback_hold_set(const char *val, const struct kernel_param *kp)
{
	int err = param_set_bool(val, kp);

	if (err)
		return err;
	/* Pairs with the barrier in pushback_xmit(): either it sees the
	 * release, or the wake below sees its stopped queue.
	 */
	smp_mb();
	if (!READ_ONCE(pushback_hold) && pushback_dev)
		netif_tx_wake_all_queues(pushback_dev);
	return 0;
}

static const struct kernel_param_ops pushback_hold_ops = {
	.set	= pushback_hold_set,
	.get	= param_get_bool,
};
module_param_cb(hold, &pushback_hold_ops, &pushback_hold, 0644);
MODULE_PARM_DESC(hold, "1: every transmit stops its queue and returns NETDEV_TX_BUSY");

static const struct net_device_ops pushback_netdev_ops = {
	.ndo_start_xmit		= pushback_xmit,
};

static void pushback_setup(struct net_device *dev)
{
	ether_setup(dev);
	dev->netdev_ops = &pushback_netdev_ops;
	dev->flags |= IFF_NOARP;
	dev->needs_free_netdev = true;
	eth_hw_addr_random(dev);
}

static int __init pushback_init(void)
{
	int err;

	pushback_dev = alloc_netdev_mqs(0, "pushback%d", NET_NAME_ENUM,
					pushback_setup, PUSHBACK_TXQS, 1);
	if (!pushback_dev)
		return -ENOMEM;
	err = register_netdev(pushback_dev);
	if (err) {
		free_netdev(pushback_dev);
		pushback_dev = NULL;
	}
	return err;
}

static void __exit pushback_exit(void)
{
	unregister_netdev(pushback_dev);
}

module_init(pushback_init);
module_exit(pushback_exit);
MODULE_AUTHOR("sch_dfs developers");
MODULE_DESCRIPTION("Test network device that pushes back (NETDEV_TX_BUSY) on demand");
MODULE_LICENSE("GPL");
