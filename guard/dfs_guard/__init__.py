# SPDX-License-Identifier: GPL-2.0
"""dfs-guard: sch_dfs's verdicts exported to nftables and Prometheus."""
