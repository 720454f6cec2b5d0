"""Drives a Fluss-protocol cluster with the official Python client (pyfluss) for the compatibility
suite. Same commands and output as the Java driver (io.sluice.compat.Main):

  compat.py sample <i,j,...> [--salt k]
  compat.py <bootstrap> create-database <db>
  compat.py <bootstrap> list-tables <db>
  compat.py <bootstrap> create-table <db> <table> <spec.json>
  compat.py <bootstrap> write <db> <table> <n> [--start s] [--salt k]
  compat.py <bootstrap> verify <db> <table> <n> [--start s] [--salt k] [--project a,b]
  compat.py <bootstrap> append <db> <table> <rows.json>
  compat.py <bootstrap> upsert <db> <table> <ops.json>
  compat.py <bootstrap> lookup <db> <table> <keys.json> [--by a,b]
  compat.py <bootstrap> scan-from <db> <table> <bucket> <offset>
  compat.py <bootstrap> changelog <db> <table> <count> [--project a,b] [--timeout-ms t]
  compat.py <bootstrap> partitions <db> <table>
  compat.py <bootstrap> offsets <db> <table> earliest|latest|<timestamp ms>
  compat.py <bootstrap> create-partition <db> <table> <key=value,...>

Prints one JSON line; exit code 0 when ok, 1 on a mismatch, 2 on an error. Extra client options
(SASL credentials) come from the SLUICE_COMPAT_CLIENT_CONF environment variable, a JSON object.
"""

import asyncio
import json
import os
import sys
import time
import traceback

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fluss  # noqa: E402

import dataset  # noqa: E402
from canonical import FlussType, spec_type, to_arrow, to_python  # noqa: E402
from kv import changelog, lookup, upsert  # noqa: E402
from log_verify import verify  # noqa: E402


def parse_args(argv):
    positional, flags = [], {}
    i = 0
    while i < len(argv):
        if argv[i].startswith("--") and i + 1 < len(argv):
            flags[argv[i][2:]] = argv[i + 1]
            i += 2
        else:
            positional.append(argv[i])
            i += 1
    return positional, flags


def columns_of(table):
    """(name, FlussType) of every column, from the table info the server returned."""
    return [(name, FlussType(text)) for name, text in table.get_table_info().get_schema().get_columns()]


async def create_table(admin, path, spec_file):
    with open(spec_file) as f:
        spec = json.load(f)
    import pyarrow as pa

    fields = []
    for c in spec["columns"]:
        if "agg" in c:
            raise ValueError("pyfluss cannot declare aggregate functions (column %s)" % c["name"])
        fields.append(pa.field(c["name"], spec_type(c["type"]).arrow(), nullable=c.get("nullable", True)))
    schema = fluss.Schema(
        pa.schema(fields), primary_keys=spec.get("primaryKey"), auto_increment_column=spec.get("autoIncrement")
    )
    options = {"bucket_count": spec["buckets"]}
    for key, arg in (("partitionKeys", "partition_keys"), ("bucketKeys", "bucket_keys"), ("properties", "properties")):
        if key in spec:
            options[arg] = spec[key]
    await admin.create_table(path, fluss.TableDescriptor(schema, **options), False)
    return {"tableId": (await admin.get_table_info(path)).table_id}


def append_rows(table, rows):
    columns = columns_of(table)
    writer = table.new_append().create_writer()
    for values in rows:
        if len(values) != len(columns):
            raise ValueError("%d values for %d columns" % (len(values), len(columns)))
        writer.append({name: to_python(v, t) for (name, t), v in zip(columns, values)})
    return writer


async def offsets(admin, path, spec):
    buckets = list(range((await admin.get_table_info(path)).num_buckets))
    if spec == "earliest":
        offset_spec = fluss.OffsetSpec.earliest()
    elif spec == "latest":
        offset_spec = fluss.OffsetSpec.latest()
    else:
        offset_spec = fluss.OffsetSpec.timestamp(int(spec))
    found = await admin.list_offsets(path, buckets, offset_spec)
    return {str(b): o for b, o in sorted(found.items())}


async def scan_from(admin, path, table, bucket, offset):
    """Reads one bucket from an offset up to its latest offset (at most 30 s)."""
    latest = (await admin.list_offsets(path, [bucket], fluss.OffsetSpec.latest()))[bucket]
    scanner = await table.new_scan().create_log_scanner()
    scanner.subscribe(bucket, offset)
    first, nxt, count = -1, offset, 0
    deadline = time.monotonic() + 30
    while True:  # polls at least once, so that a start beyond the end meets the server's answer
        for r in await scanner.poll(1000):
            first = r.offset if first < 0 else first
            nxt = r.offset + 1
            count += 1
        if nxt >= latest or time.monotonic() > deadline:
            break
    return {"records": count, "firstOffset": first, "nextOffset": nxt, "latest": latest}


WRITE_BATCH_ROWS = 2000


async def write(table, start, n, salt):
    """Appends dataset rows as Arrow record batches: pyfluss's append(dict) keeps microseconds only
    (a pandas Timestamp is a datetime, and pyfluss converts datetimes first)."""
    import pyarrow as pa

    schema = table.arrow_schema
    writer = table.new_append().create_writer()
    handles = []
    for first in range(start, start + n, WRITE_BATCH_ROWS):
        rows = [dataset.row(i, salt, schema.names) for i in range(first, min(first + WRITE_BATCH_ROWS, start + n))]
        arrays = [to_arrow([r[k] for r in rows], field.type) for k, field in enumerate(schema)]
        handles.append(writer.write_arrow_batch(pa.RecordBatch.from_arrays(arrays, schema=schema)))
    await writer.flush()
    # A write's outcome (e.g. a refused one) is only reported through its handle.
    for handle in handles:
        await handle.wait()
    return {"rows": n}


async def run(positional, flags):
    if positional[0] == "sample":
        salt = int(flags.get("salt", "0"))
        return {"rows": [dataset.row(int(i), salt) for i in positional[1].split(",")]}
    bootstrap, command, args = positional[0], positional[1], positional[2:]
    # SLUICE_COMPAT_CLIENT_CONF: extra client options as a JSON object (e.g. SASL credentials).
    extra = json.loads(os.environ.get("SLUICE_COMPAT_CLIENT_CONF") or "{}")
    conn = await fluss.FlussConnection.create(fluss.Config({"bootstrap.servers": bootstrap, **extra}))
    try:
        admin = conn.get_admin()
        if command == "create-database":
            await admin.create_database(args[0], ignore_if_exists=False)
            return {}
        if command == "list-tables":
            return {"tables": sorted(await admin.list_tables(args[0]))}
        path = fluss.TablePath(args[0], args[1])
        if command == "create-table":
            return await create_table(admin, path, args[2])
        if command == "partitions":
            infos = sorted(await admin.list_partition_infos(path), key=lambda p: p.partition_name)
            return {"partitions": [{"id": p.partition_id, "name": p.partition_name} for p in infos]}
        if command == "offsets":
            return {"offsets": await offsets(admin, path, args[2])}
        if command == "create-partition":
            spec = dict(pair.split("=", 1) for pair in args[2].split(","))
            await admin.create_partition(path, spec, False)
            return {}
        table = await conn.get_table(path)
        start, salt = int(flags.get("start", "0")), int(flags.get("salt", "0"))
        project = flags["project"].split(",") if "project" in flags else None
        if command == "write":
            return await write(table, start, int(args[2]), salt)
        if command == "verify":
            return await verify(admin, path, table, start, int(args[2]), salt, project)
        if command == "append":
            with open(args[2]) as f:
                writer = append_rows(table, json.load(f))
            await writer.flush()
            return {}
        if command == "upsert":
            return await upsert(table, columns_of(table), args[2])
        if command == "lookup":
            by = flags["by"].split(",") if "by" in flags else None
            return await lookup(table, columns_of(table), args[2], by)
        if command == "scan-from":
            return await scan_from(admin, path, table, int(args[2]), int(args[3]))
        if command == "changelog":
            timeout_ms = int(flags.get("timeout-ms", "30000"))
            return await changelog(admin, path, table, columns_of(table), int(args[2]), project, timeout_ms)
        raise ValueError("unknown command %s" % command)
    finally:
        await conn.close()


def main():
    positional, flags = parse_args(sys.argv[1:])
    try:
        result = asyncio.run(run(positional, flags))
        code = 0 if result.get("ok", True) else 1
        result["ok"] = code == 0
    except BaseException as e:  # noqa: BLE001 - every failure becomes a JSON result
        traceback.print_exc()
        result, code = {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}, 2
        if isinstance(e, fluss.FlussError):
            result["errorCode"] = e.error_code
    sys.stdout.write(json.dumps(result, ensure_ascii=False) + "\n")
    sys.stdout.flush()
    sys.stderr.flush()
    # pyfluss's runtime sometimes aborts (SIGABRT) while the interpreter finalizes after a
    # connection was used; the result is complete at this point, so leave without finalizing.
    os._exit(code)


if __name__ == "__main__":
    main()
