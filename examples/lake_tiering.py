# Lake tiering on a local cluster: a lake-enabled log table, its rows appearing as an Iceberg table
# under the data directory, read with pyiceberg, and the gateway's union read (lake + newer log).
# Run: .ci/.venv/bin/python examples/lake_tiering.py (pyfluss and pyiceberg come with `npm run peers`)
import asyncio
import json
import os
import sys
import time
import urllib.request

import fluss
import pyarrow as pa
from pyiceberg.table import StaticTable

BOOTSTRAP = os.environ.get("SLUICE_BOOTSTRAP_SERVERS", "127.0.0.1:9123")
GATEWAY = os.environ.get("SLUICE_GATEWAY_URL", "http://127.0.0.1:8080")
DATA_DIR = os.environ.get("SLUICE_DATA_DIR", ".sluice")
# A new table each run. Local mode keeps its S3 in files: the lake is under <data dir>/aws/blobs/lake/.
TABLE = "orders_%d" % time.time()
TABLE_DIR = os.path.join(DATA_DIR, "aws", "blobs", "lake", "demo", TABLE)


async def append(table, first, count):
    writer = table.new_append().create_writer()
    for i in range(first, first + count):
        writer.append({"id": i, "item": "item-%d" % i})
    await writer.flush()
    print("appended ids", first, "to", first + count - 1)


def lake_table():
    """The Iceberg table as its latest metadata file says, once tiering committed a snapshot."""
    hint = os.path.join(TABLE_DIR, "metadata", "version-hint.text")
    if not os.path.exists(hint):
        return None
    version = open(hint).read().strip()
    iceberg = StaticTable.from_metadata(os.path.join(TABLE_DIR, "metadata", "v%s.metadata.json" % version))
    return iceberg if iceberg.current_snapshot() is not None else None


async def main():
    conn = await fluss.FlussConnection.create(fluss.Config({"bootstrap.servers": BOOTSTRAP}))
    admin = conn.get_admin()
    await admin.create_database("demo", ignore_if_exists=True)
    schema = fluss.Schema(pa.schema([pa.field("id", pa.int32()), pa.field("item", pa.string())]))
    path = fluss.TablePath("demo", TABLE)
    lake = {"table.datalake.enabled": "true", "table.datalake.freshness": "10s"}
    await admin.create_table(path, fluss.TableDescriptor(schema, bucket_count=2, properties=lake), ignore_if_exists=False)
    table = await conn.get_table(path)
    await append(table, 0, 100)

    deadline = time.monotonic() + 180
    while (iceberg := lake_table()) is None:
        if time.monotonic() > deadline:
            raise SystemExit("no lake snapshot after 180 s: is the tiering scheduler on (SLUICE_TIERING_INTERVAL_MS)?")
        time.sleep(1)
    rows = iceberg.scan(selected_fields=("id", "item")).to_arrow().sort_by("id").to_pylist()
    print("iceberg table", TABLE_DIR)
    print("pyiceberg read", len(rows), "rows, first", rows[0], "last", rows[-1])

    await append(table, 100, 50)
    with urllib.request.urlopen("%s/v1/databases/demo/tables/%s/union-read?limit=1000" % (GATEWAY, TABLE)) as res:
        union = json.load(res)
    ids = sorted(r["id"] for r in union["rows"])
    print("union read", len(ids), "rows: the lake snapshot plus the log after it, ids", ids[0], "to", ids[-1])
    await conn.close()


asyncio.run(main())
# pyfluss 1.0.0 sometimes aborts while Python shuts down after a connection was used: leave at once.
sys.stdout.flush()
os._exit(0)
