import { spawnSync } from 'node:child_process'
import { PEER_PYTHON } from '@sluice/core/testing'

/**
 * pyiceberg (PyPI) as an independent reader of our tables: it validates the metadata JSON with its
 * own model, reads manifest lists and manifests with its own Avro reader (sequence-number
 * inheritance included) and reads the Parquet files by field id. pyiceberg 0.12 refuses to scan
 * tables with equality deletes, so for primary-key tables the script plans the files with
 * pyiceberg and applies the equality deletes itself (sequence numbers and partitions as the spec
 * says), and the test checks that a plain scan reports that limitation.
 */

/** The peers the pyiceberg suites need (see `peerAvailable` in @sluice/core/testing). */
export const PYICEBERG_PEERS = { python: ['pyiceberg', 'pyarrow'] } as const

const SCRIPT = `
import json, sys
from decimal import Decimal
from pyiceberg.table import StaticTable, FileScanTask
from pyiceberg.io.pyarrow import ArrowScan
from pyiceberg.expressions import AlwaysTrue
from pyiceberg.manifest import DataFileContent

req = json.load(sys.stdin)
tbl = StaticTable.from_metadata(req['location'])
schema = tbl.schema()

def conv(v):
    if isinstance(v, bytes): return v.hex()
    if isinstance(v, Decimal): return format(v, 'f')
    if isinstance(v, dict): return {k: conv(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)): return [conv(x) for x in v]
    if hasattr(v, 'isoformat'): return v.isoformat()
    return v

def read(entry, projected):
    task = FileScanTask(entry.data_file)
    return ArrowScan(tbl.metadata, tbl.io, projected, AlwaysTrue()).to_table([task]).to_pylist()

def merge_on_read(snapshot):
    entries = [e for m in snapshot.manifests(tbl.io) for e in m.fetch_manifest_entry(tbl.io, discard_deleted=True)]
    data = [e for e in entries if e.data_file.content == DataFileContent.DATA]
    deletes = []
    for e in entries:
        if e.data_file.content != DataFileContent.EQUALITY_DELETES: continue
        names = [schema.find_field(i).name for i in e.data_file.equality_ids]
        keys = {tuple(r[n] for n in names) for r in read(e, schema.select(*names))}
        deletes.append((e, names, keys))
    rows = []
    for e in data:
        for r in read(e, schema):
            dead = any(d.sequence_number > e.sequence_number and d.data_file.spec_id == e.data_file.spec_id
                       and d.data_file.partition == e.data_file.partition and tuple(r[n] for n in names) in keys
                       for d, names, keys in deletes)
            if not dead: rows.append(conv(r))
    return rows, [[e.status.value, e.sequence_number, e.file_sequence_number] for e in entries]

out = {'current': str(tbl.metadata.current_snapshot_id), 'snapshots': {}}
for sid in req['snapshots']:
    snap = tbl.snapshot_by_id(int(sid))
    rows, entries = merge_on_read(snap)
    res = {'rows': rows, 'entries': entries, 'summary': snap.summary.additional_properties, 'operation': snap.summary.operation.value}
    try:
        res['scan'] = [conv(r) for r in tbl.scan(snapshot_id=int(sid)).to_arrow().to_pylist()]
    except ValueError as ex:
        res['scanError'] = str(ex)
    out['snapshots'][sid] = res
files = tbl.inspect.files()
out['files'] = files.num_rows
out['offsetBounds'] = [m['__offset'] for m in files.column('readable_metrics').to_pylist()]
print(json.dumps(out))
`

export interface SnapshotRead {
  rows: Record<string, unknown>[]
  entries: number[][]
  summary: Record<string, string>
  operation: string
  scan?: Record<string, unknown>[]
  scanError?: string
}
export interface PyRead {
  current: string
  snapshots: Record<string, SnapshotRead>
  files: number
  offsetBounds: { lower_bound: number; upper_bound: number }[]
}

export function pyiceberg(location: string, snapshots: bigint[]): PyRead {
  const r = spawnSync(PEER_PYTHON, ['-c', SCRIPT], {
    input: JSON.stringify({ location, snapshots: snapshots.map(String) }),
    encoding: 'utf8',
    timeout: 120_000,
  })
  if (r.status !== 0) throw new Error(`pyiceberg failed: ${r.stderr || r.error?.message}`)
  return JSON.parse(r.stdout) as PyRead
}

export const sortBy = (rows: Record<string, unknown>[], ...keys: string[]) =>
  [...rows].sort((a, b) => keys.map(k => String(a[k]).localeCompare(String(b[k]))).find(c => c !== 0) ?? 0)

/** Python's `datetime.isoformat()` of a UTC instant (microseconds only when non-zero). */
export function pyIso(millis: number, extraMicros: number): string {
  const base = new Date(millis).toISOString().slice(0, 19)
  const micros = (millis % 1000) * 1000 + extraMicros
  return `${base}${micros === 0 ? '' : `.${String(micros).padStart(6, '0')}`}+00:00`
}
