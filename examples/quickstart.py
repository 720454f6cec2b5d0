# A log table with pyfluss: create it, append two rows, read every bucket back.
# Run: .ci/.venv/bin/python examples/quickstart.py (pyfluss comes with `npm run peers`)
import asyncio
import os
import sys

import fluss
import pyarrow as pa

BOOTSTRAP = os.environ.get("SLUICE_BOOTSTRAP_SERVERS", "127.0.0.1:9123")


async def main():
    conn = await fluss.FlussConnection.create(fluss.Config({"bootstrap.servers": BOOTSTRAP}))
    admin = conn.get_admin()
    await admin.create_database("demo", ignore_if_exists=True)
    schema = fluss.Schema(pa.schema([pa.field("id", pa.int32()), pa.field("name", pa.string())]))
    path = fluss.TablePath("demo", "events")
    await admin.create_table(path, fluss.TableDescriptor(schema, bucket_count=2), ignore_if_exists=True)
    table = await conn.get_table(path)

    writer = table.new_append().create_writer()
    for row in [{"id": 1, "name": "first"}, {"id": 2, "name": "second"}]:
        writer.append(row)
        print("wrote", row)
    await writer.flush()

    scanner = await table.new_scan().create_log_scanner()
    scanner.subscribe_buckets({b: fluss.EARLIEST_OFFSET for b in range(2)})
    seen = 0
    while seen < 2:
        for bucket, records in (await scanner.poll(1000)).items():
            for r in records:
                print("read bucket", bucket.bucket_id, "offset", r.offset, r.row)
                seen += 1
    await conn.close()


asyncio.run(main())
# pyfluss 1.0.0 sometimes aborts while Python shuts down after a connection was used: leave at once.
sys.stdout.flush()
os._exit(0)
