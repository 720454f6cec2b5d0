"""Primary-key commands and changelog reads for the pyfluss driver (same JSON as the Java driver's
KvCommands and Changelog). Rows read through pyfluss's record API are Python objects, so
timestamps carry microseconds at most."""

import json
import time

import fluss

from canonical import from_python, to_python


def _row_dict(columns, values, only=None):
    if len(values) != len(columns):
        raise ValueError("%d values for %d columns" % (len(values), len(columns)))
    return {name: to_python(v, t) for (name, t), v in zip(columns, values) if only is None or name in only}


async def upsert(table, columns, ops_file):
    """Runs {"op": "upsert" | "delete", "row": [...], "columns": [...]} / {"op": "flush"} in order;
    switching between full and partial writers flushes the previous writer first."""
    with open(ops_file) as f:
        ops = json.load(f)
    pk = table.get_table_info().get_primary_keys()
    writer, writer_columns, handles = None, None, []
    for op in ops:
        if op["op"] == "flush":
            if writer is not None:
                await writer.flush()
            continue
        target = op.get("columns")
        if writer is None or target != writer_columns:
            if writer is not None:
                await writer.flush()
            builder = table.new_upsert()
            if target is not None:
                builder = builder.partial_update_by_name(target)
            writer, writer_columns = builder.create_writer(), target
        if op["op"] == "delete":
            handles.append(writer.delete(_row_dict(columns, op["row"], set(pk))))
        else:
            handles.append(writer.upsert(_row_dict(columns, op["row"], None if target is None else set(target))))
    if writer is not None:
        await writer.flush()
    for h in handles:
        await h.wait()
    return {"ops": len(handles)}


def _canonical_row(columns, row):
    return [from_python(row.get(name), t) for name, t in columns]


async def lookup(table, columns, keys_file, by):
    with open(keys_file) as f:
        keys = json.load(f)
    types = dict(columns)
    key_names = by if by is not None else table.get_table_info().get_primary_keys()
    builder = table.new_lookup()
    lookuper = (builder.lookup_by(by) if by is not None else builder).create_lookuper()
    results = []
    for key in keys:
        key_dict = {name: to_python(v, types[name]) for name, v in zip(key_names, key)}
        found = await lookuper.lookup(key_dict)
        if by is not None:
            results.append([_canonical_row(columns, r) for r in found])
        else:
            results.append(None if found is None else _canonical_row(columns, found))
    return {"results": results}


async def _subscribe(admin, path, table, scanner):
    names = {}
    buckets = range(table.get_table_info().num_buckets)
    if table.get_table_info().is_partitioned():
        for p in await admin.list_partition_infos(path):
            names[p.partition_id] = p.partition_name
            for b in buckets:
                scanner.subscribe_partition(p.partition_id, b, fluss.EARLIEST_OFFSET)
    else:
        scanner.subscribe_buckets({b: fluss.EARLIEST_OFFSET for b in buckets})
    return names


async def changelog(admin, path, table, columns, expected, projection, timeout_ms):
    """All records of the table's log (a PK table's changelog) with change types, until the
    expected count arrived and a further poll brings nothing new, or the timeout passes."""
    scan = table.new_scan()
    if projection is not None:
        scan = scan.project_by_name(projection)
        types = dict(columns)
        columns = [(name, types[name]) for name in projection]
    scanner = await scan.create_log_scanner()
    partition_names = await _subscribe(admin, path, table, scanner)
    records = []
    deadline = time.monotonic() + timeout_ms / 1000
    while time.monotonic() < deadline:
        complete = len(records) >= expected
        polled = await scanner.poll(1000 if complete else 200)
        if polled.is_empty() and complete:
            break
        for bucket, recs in polled.items():
            for r in recs:
                records.append({
                    "bucket": bucket.bucket_id,
                    "partition": partition_names.get(bucket.partition_id) if bucket.partition_id is not None else None,
                    "offset": r.offset,
                    "change": r.change_type.short_string(),
                    "row": _canonical_row(columns, r.row),
                })
    return {"records": records}
