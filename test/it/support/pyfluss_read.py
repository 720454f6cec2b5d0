"""Reads a log table written with the compatibility dataset through pyfluss's Arrow batch scanner,
subscribed at explicit start offsets (the LIST_OFFSETS earliest offsets) rather than at
EARLIEST_OFFSET, and checks every row like the compatibility driver's `verify` (exact values, each
id once, dense offsets per bucket). Tiered data below the local log start comes back as remote-log
fetch info, which pyfluss downloads itself from the remote data dir.

  pyfluss_read.py <bootstrap> <db> <table> <n>

Prints one JSON line (the `verify` result); exit code 0 when ok, 1 on a mismatch, 2 on an error.
"""

import asyncio
import json
import os
import sys
import time
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "compat", "python"))

import fluss  # noqa: E402

import log_verify  # noqa: E402


class VerifyFromOffsets(log_verify.Verify):
    """The compatibility driver's checks, subscribing every bucket at its LIST_OFFSETS earliest offset."""

    async def scan(self, projection, on_batch):
        scanner = await self.table.new_scan().create_record_batch_log_scanner()
        scanner.subscribe_buckets(dict(self.earliest))
        nxt = dict(self.earliest)
        last_progress = time.monotonic()
        while any(nxt[b] < self.latest[b] for b in nxt) and len(self.mismatches) < log_verify.MAX_MISMATCHES:
            batches = await scanner.poll_record_batch(1000)
            if batches:
                last_progress = time.monotonic()
            elif time.monotonic() - last_progress > log_verify.STALL_TIMEOUT_S:
                self.mismatch("no records for %d s; positions %s of %s" % (log_verify.STALL_TIMEOUT_S, nxt, self.latest))
                break
            for rb in batches:
                b, rows = rb.bucket.bucket_id, rb.batch.num_rows
                if rb.base_offset != nxt[b]:
                    self.mismatch("bucket %d: batch at offset %d, expected offset %d" % (b, rb.base_offset, nxt[b]))
                on_batch(b, rb.base_offset, rb.batch)
                nxt[b] = rb.base_offset + rows
        return nxt


async def run(bootstrap, db, table_name, n):
    conn = await fluss.FlussConnection.create(fluss.Config({"bootstrap.servers": bootstrap}))
    try:
        admin = conn.get_admin()
        path = fluss.TablePath(db, table_name)
        table = await conn.get_table(path)
        buckets = list(range(table.get_table_info().num_buckets))
        earliest = await admin.list_offsets(path, buckets, fluss.OffsetSpec.earliest())
        latest = await admin.list_offsets(path, buckets, fluss.OffsetSpec.latest())
        v = VerifyFromOffsets(table, 0, n, 0, earliest, latest)
        names = table.get_table_info().get_column_names()
        hashes, seen = {b: 0 for b in buckets}, set()
        nxt = await v.scan(None, v.check_full(names, hashes, seen))
        if len(seen) != n:
            v.mismatch("read %d distinct rows, expected %d" % (len(seen), n))
        summary = {
            str(b): {"earliest": earliest[b], "latest": latest[b], "records": nxt[b] - earliest[b], "idHash": hashes[b]}
            for b in buckets
        }
        return {"ok": not v.mismatches, "rows": len(seen), "buckets": summary, "mismatches": v.mismatches}
    finally:
        await conn.close()


def main():
    bootstrap, db, table_name, n = sys.argv[1:5]
    try:
        result = asyncio.run(run(bootstrap, db, table_name, int(n)))
        code = 0 if result["ok"] else 1
    except BaseException as e:  # noqa: BLE001 - every failure becomes a JSON result
        traceback.print_exc()
        result, code = {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}, 2
    sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    sys.stderr.flush()
    # pyfluss's runtime sometimes aborts while the interpreter finalizes (see compat.py).
    os._exit(code)


if __name__ == "__main__":
    main()
