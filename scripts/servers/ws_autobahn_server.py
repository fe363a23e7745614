"""The Autobahn|Testsuite fuzzing server for a WebSocket client under test, through kosoku
0.1.0 (the Autobahn case files run from Python 3; .build/autobahn-venv, made by
`scripts/install-deps.sh test`).

Usage: ws_autobahn_server.py [--port P] [--include CASE ...] [--exclude CASE ...]
Prints `listening on 127.0.0.1:<port>` once it listens (P, or one the OS picks for 0, the
default). The client under test
then asks `/getCaseCount`, runs `/runCase?case=N&agent=A` for N = 1...count, and ends the run
with `/updateReports?agent=A`. Then one line a case, `CASE <id> <behavior> <close-behavior>
<passed|failed> <result>`, and `END`. Exits when stdin closes, whatever the state of the run.
"""
import argparse
import asyncio
import sys

from kosoku import FailureError, run_fuzzingserver


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--include", action="append", default=[])
    parser.add_argument("--exclude", action="append", default=[])
    args = parser.parse_args()
    loop = asyncio.get_running_loop()
    # The test process holds our stdin: when it ends (or gives up), so does this server.
    stdin_closed = loop.run_in_executor(None, sys.stdin.buffer.read)
    async with run_fuzzingserver(args.include, args.exclude, host="127.0.0.1", port=args.port) as server:
        print(f"listening on 127.0.0.1:{server.port}", flush=True)
        result = asyncio.ensure_future(server.get_result())
        done, _ = await asyncio.wait([result, stdin_closed], return_when=asyncio.FIRST_COMPLETED)
        if result not in done:
            return
        try:
            cases = result.result()
        except FailureError as failure:
            cases = failure.results
        for case in cases:
            verdict = "passed" if case.passed else "failed"
            text = f"{case.result} / {case.result_close}".replace("\n", " ")
            print(f"CASE {case.case_id} {case.behavior.value.replace(' ', '_')} "
                  f"{case.behavior_close.value.replace(' ', '_')} {verdict} {text}", flush=True)
        print("END", flush=True)
    await stdin_closed


if __name__ == "__main__":
    asyncio.run(main())
