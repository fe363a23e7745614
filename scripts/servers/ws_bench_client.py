#!/usr/bin/python3
"""Python websockets' own client as the baseline of `douyinkit-bench chat` (Debian's
python3-websockets, run with /usr/bin/python3).

Usage: ws_bench_client.py URL [--cafile PEM]
Connects once (compression off: the echo servers decline it anyway), prints `READY`, then for
every line `N` on stdin sends N 100-byte text messages one at a time, each awaited back, and
prints the seconds those N round trips took. Exits when stdin closes.
"""
import argparse
import asyncio
import ssl
import sys
import time

import websockets


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--cafile")
    args = parser.parse_args()
    context = ssl.create_default_context(cafile=args.cafile) if args.url.startswith("wss:") else None
    message = "x" * 100
    async with websockets.connect(args.url, ssl=context, compression=None, max_size=None) as ws:
        print("READY", flush=True)
        loop = asyncio.get_running_loop()
        while line := await loop.run_in_executor(None, sys.stdin.readline):
            count = int(line)
            start = time.perf_counter()
            for _ in range(count):
                await ws.send(message)
                await ws.recv()
            print(f"{time.perf_counter() - start:.6f}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
