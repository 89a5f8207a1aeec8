// SPDX-License-Identifier: GPL-2.0
/*
 * mqlink: a pair of test network devices, each a multiqueue NIC on one
 * wire of fixed rate to the other.
 *
 * For the selftests and the benchmark only (selftests/dfs_mq.sh), as
 * netdevsim is for the kernel's own.  A qdisc under mq needs a bottleneck
 * with several tx queues that pushes back, and the kernel has none to
 * hand: veth's queues never stop, and TBF cannot sit above mq.  Here each
 * tx queue has a short ring, as a NIC's; a queue whose ring is full is
 * stopped, so its qdisc holds the backlog, and woken when the wire takes
 * a packet from it.  The wire takes the rings' packets in deficit round
 * robin by bytes, as a NIC's arbiter serves its rings, at
 * /sys/module/mqlink/parameters/rate bits a second, and hands each to the
 * peer device's receive path.  ethtool -S shows wire_late_ns: the wire
 * time lost where its timer ran later than it catches up on (an emulated
 * guest's), so that a test can judge a qdisc by the link it really had.
 *
 * Loading the module creates mql0 and mql1, the two ends, with
 * MQLINK_TXQS tx queues each; a test moves them into its namespaces (a
 * deleted namespace gives them back to the initial one).
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/hrtimer.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>

#define MQLINK_TXQS	2
#define MQLINK_QUANTUM	ETH_FRAME_LEN
/* How far the wire's clock may lag now and catch up: a burst of at most
 * this long at the wire's rate.
 */
#define MQLINK_SLACK_NS	(2 * NSEC_PER_MSEC)

static ulong mqlink_rate = 10000000;
module_param_named(rate, mqlink_rate, ulong, 0644);
MODULE_PARM_DESC(rate, "the wire's rate each way, bits a second (default 10 Mbit/s)");

static uint mqlink_ring = 4;
module_param_named(ring, mqlink_ring, uint, 0644);
MODULE_PARM_DESC(ring, "packets a tx queue's ring holds before the queue stops (default 4)");

struct mqlink_ring {
	struct sk_buff_head	skbs;		/* under mqlink_priv.lock */
	int			deficit;
};

struct mqlink_priv {
	struct net_device	*dev;
	struct net_device	*peer;
	spinlock_t		lock;		/* the rings, free_at, armed, turn */
	struct hrtimer		wire;
	ktime_t			free_at;	/* the last packet's end */
	u64			late_ns;	/* wire time the timer lost */
	bool			armed;		/* wire runs or is queued */
	unsigned int		turn;		/* the ring the arbiter is at */
	struct mqlink_ring	ring[MQLINK_TXQS];
};

static struct net_device *mqlink_devs[2];

static unsigned int mqlink_ring_size(void)
{
	return max(READ_ONCE(mqlink_ring), 1U);
}

/* The next packet for the wire, in deficit round robin over the rings. */
static struct sk_buff *mqlink_take(struct mqlink_priv *priv,
				   unsigned int *qi)
{
	unsigned int i, empty = 0;

	for (i = priv->turn; empty < MQLINK_TXQS; i = (i + 1) % MQLINK_TXQS) {
		struct mqlink_ring *r = &priv->ring[i];
		struct sk_buff *skb = skb_peek(&r->skbs);

		if (!skb) {
			r->deficit = 0;
			empty++;
			continue;
		}
		empty = 0;
		if (r->deficit < (int)skb->len) {
			r->deficit += MQLINK_QUANTUM;
			continue;
		}
		r->deficit -= skb->len;
		priv->turn = i;
		*qi = i;
		return __skb_dequeue(&r->skbs);
	}
	return NULL;
}

static bool mqlink_pending(const struct mqlink_priv *priv)
{
	unsigned int i;

	for (i = 0; i < MQLINK_TXQS; i++)
		if (!skb_queue_empty(&priv->ring[i].skbs))
			return true;
	return false;
}

/* The wire: one packet to the peer, then the time the next may go. */
static enum hrtimer_restart mqlink_wire(struct hrtimer *timer)
{
	struct mqlink_priv *priv = container_of(timer, struct mqlink_priv,
						wire);
	struct net_device *dev = priv->dev;
	u64 rate = max(READ_ONCE(mqlink_rate), 8UL);
	struct netdev_queue *txq;
	struct sk_buff *skb;
	unsigned int qi = 0, len;
	ktime_t now = ktime_get();
	bool more;

	spin_lock(&priv->lock);
	skb = mqlink_take(priv, &qi);
	if (!skb) {
		priv->armed = false;
		spin_unlock(&priv->lock);
		return HRTIMER_NORESTART;
	}
	txq = netdev_get_tx_queue(dev, qi);
	if (netif_tx_queue_stopped(txq) &&
	    skb_queue_len(&priv->ring[qi].skbs) < mqlink_ring_size())
		netif_tx_wake_queue(txq);
	/* The wire's time runs on from the last packet's end, so that the
	 * timer's lateness (large under emulation) is not lost from the
	 * rate, up to the slack; past it, the time from when this packet
	 * could have gone is lost, and counted, so that a test can tell a
	 * wire a slow guest kept idle from one a qdisc left without packets.
	 */
	if (ktime_after(now, ktime_add_ns(priv->free_at, MQLINK_SLACK_NS))) {
		priv->late_ns += ktime_to_ns(ktime_sub(now, priv->free_at));
		priv->free_at = now;
	}
	priv->free_at = ktime_add_ns(priv->free_at,
				     div64_u64((u64)skb->len * 8 * NSEC_PER_SEC,
					       rate));
	len = skb->len;
	dev->stats.tx_packets++;
	dev->stats.tx_bytes += len;
	more = mqlink_pending(priv);
	if (more)
		hrtimer_set_expires(timer, priv->free_at);
	else
		priv->armed = false;
	spin_unlock(&priv->lock);

	/* the peer counts what it drops; the skb is not ours after this */
	if (dev_forward_skb(priv->peer, skb) == NET_RX_SUCCESS) {
		priv->peer->stats.rx_packets++;
		priv->peer->stats.rx_bytes += len;
	}
	return more ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

static netdev_tx_t mqlink_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct mqlink_priv *priv = netdev_priv(dev);
	unsigned int qi = skb_get_queue_mapping(skb) % MQLINK_TXQS;
	struct mqlink_ring *r = &priv->ring[qi];
	ktime_t now;

	spin_lock(&priv->lock);
	__skb_queue_tail(&r->skbs, skb);
	/* Woken by the wire, under this lock: no wake is missed. */
	if (skb_queue_len(&r->skbs) >= mqlink_ring_size())
		netif_tx_stop_queue(netdev_get_tx_queue(dev, qi));
	/* An idle wire starts from now: the time it had nothing to send
	 * is not owed to it.
	 */
	if (!priv->armed) {
		priv->armed = true;
		now = ktime_get();
		if (ktime_after(now, priv->free_at))
			priv->free_at = now;
		hrtimer_start(&priv->wire, priv->free_at,
			      HRTIMER_MODE_ABS_SOFT);
	}
	spin_unlock(&priv->lock);
	return NETDEV_TX_OK;
}

static int mqlink_open(struct net_device *dev)
{
	netif_tx_start_all_queues(dev);
	return 0;
}

/* Called with the qdiscs deactivated: nothing transmits any more. */
static int mqlink_stop(struct net_device *dev)
{
	struct mqlink_priv *priv = netdev_priv(dev);
	unsigned int i;

	hrtimer_cancel(&priv->wire);
	spin_lock_bh(&priv->lock);
	priv->armed = false;
	for (i = 0; i < MQLINK_TXQS; i++) {
		dev->stats.tx_dropped += skb_queue_len(&priv->ring[i].skbs);
		__skb_queue_purge(&priv->ring[i].skbs);
		priv->ring[i].deficit = 0;
	}
	spin_unlock_bh(&priv->lock);
	return 0;
}

/* ethtool -S: the wire's time lost to the timer's lateness. */
static const char mqlink_stat_names[][ETH_GSTRING_LEN] = {
	"wire_late_ns",
};

static int mqlink_get_sset_count(struct net_device *dev, int sset)
{
	return sset == ETH_SS_STATS ? ARRAY_SIZE(mqlink_stat_names) :
				      -EOPNOTSUPP;
}

static void mqlink_get_strings(struct net_device *dev, u32 sset, u8 *buf)
{
	if (sset == ETH_SS_STATS)
		memcpy(buf, mqlink_stat_names, sizeof(mqlink_stat_names));
}

static void mqlink_get_ethtool_stats(struct net_device *dev,
				     struct ethtool_stats *stats, u64 *data)
{
	struct mqlink_priv *priv = netdev_priv(dev);

	spin_lock_bh(&priv->lock);
	data[0] = priv->late_ns;
	spin_unlock_bh(&priv->lock);
}

static const struct ethtool_ops mqlink_ethtool_ops = {
	.get_sset_count		= mqlink_get_sset_count,
	.get_strings		= mqlink_get_strings,
	.get_ethtool_stats	= mqlink_get_ethtool_stats,
};

static const struct net_device_ops mqlink_netdev_ops = {
	.ndo_open		= mqlink_open,
	.ndo_stop		= mqlink_stop,
	.ndo_start_xmit		= mqlink_xmit,
	.ndo_set_mac_address	= eth_mac_addr,
};

static void mqlink_setup(struct net_device *dev)
{
	struct mqlink_priv *priv = netdev_priv(dev);
	unsigned int i;

	ether_setup(dev);
	priv->dev = dev;
	dev->netdev_ops = &mqlink_netdev_ops;
	dev->ethtool_ops = &mqlink_ethtool_ops;
	dev->needs_free_netdev = true;
	eth_hw_addr_random(dev);
	spin_lock_init(&priv->lock);
	hrtimer_setup(&priv->wire, mqlink_wire, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_SOFT);
	for (i = 0; i < MQLINK_TXQS; i++)
		__skb_queue_head_init(&priv->ring[i].skbs);
}

static int __init mqlink_init(void)
{
	struct net_device *a, *b;
	int err;

	a = alloc_netdev_mqs(sizeof(struct mqlink_priv), "mql%d",
			     NET_NAME_ENUM, mqlink_setup, MQLINK_TXQS, 1);
	if (!a)
		return -ENOMEM;
	b = alloc_netdev_mqs(sizeof(struct mqlink_priv), "mql%d",
			     NET_NAME_ENUM, mqlink_setup, MQLINK_TXQS, 1);
	if (!b) {
		free_netdev(a);
		return -ENOMEM;
	}
	((struct mqlink_priv *)netdev_priv(a))->peer = b;
	((struct mqlink_priv *)netdev_priv(b))->peer = a;

	rtnl_lock();
	err = register_netdevice(a);
	if (err) {
		rtnl_unlock();
		free_netdev(a);
		free_netdev(b);
		return err;
	}
	err = register_netdevice(b);
	if (err)
		unregister_netdevice(a);	/* freed: needs_free_netdev */
	rtnl_unlock();
	if (err) {
		free_netdev(b);
		return err;
	}
	mqlink_devs[0] = a;
	mqlink_devs[1] = b;
	return 0;
}

/* Both ends at once: each end's wire hands packets to the other. */
static void __exit mqlink_exit(void)
{
	LIST_HEAD(list);

	rtnl_lock();
	unregister_netdevice_queue(mqlink_devs[0], &list);
	unregister_netdevice_queue(mqlink_devs[1], &list);
	unregister_netdevice_many(&list);
	rtnl_unlock();
}

module_init(mqlink_init);
module_exit(mqlink_exit);
MODULE_AUTHOR("sch_dfs developers");
MODULE_DESCRIPTION("Test multiqueue device pair joined by a wire of fixed rate");
MODULE_LICENSE("GPL");
