#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Web mice: short HTTP-like transfers, and their response times.

  web.py serve --port P
  web.py fetch --servers ADDR,... --port P --time T --clients C --seed S --out F

The server answers a request line "BYTES\\n" with that many bytes and
closes, like a web server sending one object.  The fetcher runs C client
loops for T seconds; each connects to one of the servers, asks for an
object whose size follows a bounded Pareto law (most objects a few KB, a
few of them 100 KB or more, as web pages are: LRU-FQ's "mice"), waits
for the last byte, thinks for an exponential pause, and goes again.  It
writes one record per fetch: start time (CLOCK_MONOTONIC), response time,
size, and whether it completed within the timeout.  A fixed seed gives
the same objects in the same order on every run.
"""
import argparse
import asyncio
import json
import random
import sys
import time

import gate

TIMEOUT = 10.0


async def handle(reader, writer):
    try:
        line = await asyncio.wait_for(reader.readline(), TIMEOUT)
        n = min(int(line or b"0"), 1 << 24)
        chunk = b"\x5a" * 16384
        while n > 0:
            writer.write(chunk[:n])
            n -= min(n, len(chunk))
            await writer.drain()
    except (OSError, ValueError, asyncio.TimeoutError):
        pass
    writer.close()


async def serve(args):
    server = await asyncio.start_server(handle, host=None, port=args.port,
                                        reuse_address=True)
    async with server:
        await server.serve_forever()


def object_size(rng):
    # Bounded Pareto, shape 1.2, 2 KB .. 200 KB: mean about 9 KB.
    return int(min(2000 / (1.0 - rng.random()) ** (1 / 1.2), 200000))


async def fetch_one(dst, port, size):
    reader, writer = await asyncio.open_connection(dst, port)
    writer.write(b"%d\n" % size)
    await writer.drain()
    got = 0
    while True:
        data = await reader.read(65536)
        if not data:
            break
        got += len(data)
    writer.close()
    return got


async def client(args, idx, records, deadline):
    rng = random.Random(args.seed * 1000 + idx)
    servers = args.servers.split(",")
    while time.monotonic() < deadline:
        dst = servers[rng.randrange(len(servers))]
        size = object_size(rng)
        t = time.monotonic()
        try:
            got = await asyncio.wait_for(fetch_one(dst, args.port, size),
                                         TIMEOUT)
            ok = got == size
        except (OSError, asyncio.TimeoutError):
            ok = False
        records.append({"t": t, "rt": time.monotonic() - t, "size": size,
                        "server": dst, "ok": ok})
        await asyncio.sleep(rng.expovariate(1 / 0.2))


async def fetch(args):
    deadline = gate.wait_go(args.ready, args.go) + args.time
    records = []
    await asyncio.gather(*(client(args, i, records, deadline)
                           for i in range(args.clients)))
    with open(args.out, "w") as fh:
        json.dump({"fetches": records}, fh)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--port", type=int, required=True)
    f = sub.add_parser("fetch")
    f.add_argument("--servers", required=True)
    f.add_argument("--port", type=int, required=True)
    f.add_argument("--time", type=float, required=True)
    f.add_argument("--clients", type=int, default=4)
    f.add_argument("--seed", type=int, default=1)
    f.add_argument("--out", required=True)
    gate.add_args(f)
    args = ap.parse_args()
    asyncio.run(serve(args) if args.cmd == "serve" else fetch(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
