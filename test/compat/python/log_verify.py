"""Reads a log table written with the dataset from the earliest offset through pyfluss's Arrow
batch scanner (exact values, nanoseconds included) and checks it like the Java driver's
LogVerify: every row exactly once with the dataset's values, dense offsets per bucket, then an
optional projected read matched to the full read by bucket and offset."""

import time

import fluss

import dataset
from canonical import from_arrow

STALL_TIMEOUT_S = 60
MAX_MISMATCHES = 5


class Verify:
    def __init__(self, table, start, n, salt, earliest, latest):
        self.table, self.start, self.n, self.salt = table, start, n, salt
        self.earliest, self.latest = earliest, latest
        self.mismatches = []
        self.ids = {b: [None] * (latest[b] - earliest[b]) for b in latest}

    def mismatch(self, message):
        if len(self.mismatches) < MAX_MISMATCHES:
            self.mismatches.append(message)

    def compare(self, values, names, i, where):
        for name, got in zip(names, values):
            expected = dataset.value(i, self.salt, name)
            if expected != got:
                self.mismatch("%s (id %d) column %s: expected %s, got %s" % (where, i, name, expected, got))

    async def scan(self, projection, on_batch):
        """Polls Arrow batches from the earliest offsets until every bucket reached its latest offset."""
        scan = self.table.new_scan()
        if projection is not None:
            scan = scan.project_by_name(projection)
        scanner = await scan.create_record_batch_log_scanner()
        scanner.subscribe_buckets({b: fluss.EARLIEST_OFFSET for b in self.latest})
        nxt = dict(self.earliest)
        last_progress = time.monotonic()
        while any(nxt[b] < self.latest[b] for b in nxt) and len(self.mismatches) < MAX_MISMATCHES:
            batches = await scanner.poll_record_batch(1000)
            if batches:
                last_progress = time.monotonic()
            elif time.monotonic() - last_progress > STALL_TIMEOUT_S:
                self.mismatch("no records for %d s; positions %s of %s" % (STALL_TIMEOUT_S, nxt, self.latest))
                break
            for rb in batches:
                b, rows = rb.bucket.bucket_id, rb.batch.num_rows
                if rb.base_offset != nxt[b] or (rows > 0 and rb.last_offset != rb.base_offset + rows - 1):
                    self.mismatch("bucket %d: batch at offsets %d..%d with %d rows, expected offset %d"
                                  % (b, rb.base_offset, rb.last_offset, rows, nxt[b]))
                on_batch(b, rb.base_offset, rb.batch)
                nxt[b] = rb.base_offset + rows
        return nxt

    def check_full(self, names, hashes, seen):
        id_index = names.index("id")

        def on_batch(b, base, batch):
            columns = [from_arrow(batch.column(k)) for k in range(batch.num_columns)]
            for r in range(batch.num_rows):
                offset = base + r
                values = [c[r] for c in columns]
                i = int(values[id_index])
                where = "bucket %d offset %d" % (b, offset)
                if not self.start <= i < self.start + self.n:
                    self.mismatch("%s: id %d outside the written range" % (where, i))
                    continue
                if i in seen:
                    self.mismatch("%s: id %d read twice" % (where, i))
                seen.add(i)
                self.compare(values, names, i, where)
                if 0 <= offset - self.earliest[b] < len(self.ids[b]):
                    self.ids[b][offset - self.earliest[b]] = i
                hashes[b] = (hashes[b] * 31 + i) & 0xFFFFFFFF

        return on_batch

    def check_projected(self, projection, counter):
        def on_batch(b, base, batch):
            columns = [from_arrow(batch.column(k)) for k in range(batch.num_columns)]
            if batch.num_columns != len(projection):
                self.mismatch("projected batch has %d columns, expected %d" % (batch.num_columns, len(projection)))
            for r in range(batch.num_rows):
                offset = base + r
                index = offset - self.earliest[b]
                if not 0 <= index < len(self.ids[b]) or self.ids[b][index] is None:
                    self.mismatch("projected bucket %d offset %d: not in the full read" % (b, offset))
                    continue
                self.compare([c[r] for c in columns], projection, self.ids[b][index], "projected bucket %d offset %d" % (b, offset))
                counter[0] += 1

        return on_batch


async def verify(admin, path, table, start, n, salt, projection):
    buckets = list(range(table.get_table_info().num_buckets))
    earliest = await admin.list_offsets(path, buckets, fluss.OffsetSpec.earliest())
    latest = await admin.list_offsets(path, buckets, fluss.OffsetSpec.latest())
    v = Verify(table, start, n, salt, earliest, latest)
    names = table.get_table_info().get_column_names()
    hashes, seen = {b: 0 for b in buckets}, set()
    nxt = await v.scan(None, v.check_full(names, hashes, seen))
    if len(seen) != n:
        v.mismatch("read %d distinct rows, expected %d" % (len(seen), n))
    result = {
        "rows": len(seen),
        "buckets": {
            str(b): {"earliest": earliest[b], "latest": latest[b], "records": nxt[b] - earliest[b], "idHash": hashes[b]}
            for b in buckets
        },
    }
    if projection is not None and not v.mismatches:
        counter = [0]
        await v.scan(projection, v.check_projected(projection, counter))
        result["projectedRows"] = counter[0]
    result["ok"] = not v.mismatches
    result["mismatches"] = v.mismatches
    return result
