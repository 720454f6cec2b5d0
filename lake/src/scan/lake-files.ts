import { readArrowStream } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import type { Row } from '@sluice/core/row'
import { readParquet } from 'parquet-wasm/node'
import { readManifestList } from '../iceberg/manifest-list-reader.js'
import { readManifest } from '../iceberg/manifest-reader.js'
import { snapshotById } from '../iceberg/metadata.js'
import {
  type DataFile,
  EntryStatus,
  FileContent,
  ManifestContent,
  type Snapshot,
  type TableMetadata,
} from '../iceberg/types.js'
import { keyString, samePartition } from '../iceberg/values.js'
import { type LakeSource, readLakeFile } from '../io/lake-source.js'
import { PARQUET_FIELD_ID_KEY } from '../parquet/parquet-file.js'

/**
 * Merge-on-read of one snapshot, by the letter of the spec, one data file at a time: a data row
 * survives unless
 * - an equality delete with a higher data sequence number, in the same partition of the same spec
 *   (or with an unpartitioned spec), matches it on the delete's `equality_ids` columns (a null
 *   matches a null), or
 * - a position delete with a data sequence number at least as high names its file and position.
 * Columns are matched by Parquet field id; rows come back in the current schema's column order,
 * a column a file lacks reading as null. Delete files are held in memory (key-only equality
 * deletes and positions are small); data files are read and released one by one.
 */

const PATH_FIELD_ID = 2147483546
const POS_FIELD_ID = 2147483545

export interface LiveFile {
  readonly file: DataFile
  readonly sequenceNumber: number
}

export interface SnapshotFiles {
  readonly data: readonly LiveFile[]
  readonly deletes: readonly LiveFile[]
}

/** The live data and delete files of a snapshot, with their data sequence numbers. */
export async function snapshotFiles(
  source: LakeSource,
  snapshot: Snapshot | undefined,
): Promise<SnapshotFiles> {
  const data: LiveFile[] = []
  const deletes: LiveFile[] = []
  if (snapshot === undefined) return { data, deletes }
  for (const m of readManifestList(await readLakeFile(source, snapshot['manifest-list']))) {
    const { entries } = readManifest(await readLakeFile(source, m.manifestPath), m.partitionSpecId)
    for (const e of entries) {
      if (e.status === EntryStatus.DELETED) continue
      const sequenceNumber = e.sequenceNumber ?? (e.status === EntryStatus.ADDED ? m.sequenceNumber : 0)
      ;(m.content === ManifestContent.DATA ? data : deletes).push({ file: e.dataFile, sequenceNumber })
    }
  }
  return { data, deletes }
}

/** The rows of a Parquet file and the field id of each column. */
export async function readParquetById(
  source: LakeSource,
  location: string,
): Promise<{ ids: number[]; rows: Row[] }> {
  const bytes = await readLakeFile(source, location)
  let ipc: Uint8Array
  try {
    ipc = readParquet(bytes).intoIPCStream()
  } catch (e) {
    throw new FlussError('CORRUPT_MESSAGE', `${location} is not a readable Parquet file: ${String(e)}`)
  }
  const stream = readArrowStream(ipc)
  if (stream.rowType === null)
    throw new FlussError('CORRUPT_MESSAGE', `${location} has columns Sluice cannot read`)
  const ids = stream.fields.map(f => Number(f.metadata[PARQUET_FIELD_ID_KEY] ?? Number.NaN))
  return { ids, rows: stream.batches.flatMap(b => b.toRows()) }
}

interface DeleteSet {
  readonly delete: LiveFile
  readonly keys?: Set<string>
  readonly positions?: Map<string, Set<number>>
}

async function loadDeletes(source: LakeSource, deletes: readonly LiveFile[]): Promise<DeleteSet[]> {
  const out: DeleteSet[] = []
  for (const d of deletes) {
    const { ids, rows } = await readParquetById(source, d.file.filePath)
    if (d.file.content === FileContent.EQUALITY_DELETES) {
      const cols = (d.file.equalityIds ?? []).map(id => ids.indexOf(id))
      if (cols.length === 0 || cols.some(c => c < 0))
        throw new FlussError('CORRUPT_MESSAGE', `${d.file.filePath} lacks its equality columns`)
      out.push({ delete: d, keys: new Set(rows.map(r => keyString(cols.map(c => r[c])))) })
    } else {
      const pathCol = ids.indexOf(PATH_FIELD_ID)
      const posCol = ids.indexOf(POS_FIELD_ID)
      const positions = new Map<string, Set<number>>()
      for (const r of rows) {
        const path = String(r[pathCol])
        if (!positions.has(path)) positions.set(path, new Set())
        positions.get(path)?.add(Number(r[posCol]))
      }
      out.push({ delete: d, positions })
    }
  }
  return out
}

function specIsUnpartitioned(md: TableMetadata, specId: number): boolean {
  return (md['partition-specs'].find(s => s['spec-id'] === specId)?.fields.length ?? 0) === 0
}

/** Whether an equality delete's partition scope covers a data file. */
function inScope(md: TableMetadata, d: LiveFile, data: LiveFile): boolean {
  if (specIsUnpartitioned(md, d.file.specId)) return true
  return d.file.specId === data.file.specId && samePartition(d.file.partition, data.file.partition)
}

/** The live rows of one data file (current schema order), with the snapshot's deletes applied. */
function liveRows(
  md: TableMetadata,
  f: LiveFile,
  file: { ids: number[]; rows: Row[] },
  deleteSets: readonly DeleteSet[],
  fieldIds: readonly number[],
): Row[] {
  const eq = deleteSets.filter(
    s => s.keys !== undefined && s.delete.sequenceNumber > f.sequenceNumber && inScope(md, s.delete, f),
  )
  const pos = deleteSets
    .filter(s => s.positions !== undefined && s.delete.sequenceNumber >= f.sequenceNumber)
    .map(s => s.positions?.get(f.file.filePath))
    .filter((p): p is Set<number> => p !== undefined)
  const eqCols = eq.map(s => (s.delete.file.equalityIds ?? []).map(id => file.ids.indexOf(id)))
  const columns = fieldIds.map(id => file.ids.indexOf(id))
  const out: Row[] = []
  file.rows.forEach((r, i) => {
    if (pos.some(p => p.has(i))) return
    for (let k = 0; k < eq.length; k++) {
      if (eq[k].keys?.has(keyString(eqCols[k].map(c => (c < 0 ? null : r[c]))))) return
    }
    out.push(columns.map(c => (c < 0 ? null : r[c])))
  })
  return out
}

/**
 * The live rows of snapshot `snapshotId` (the current one by default), file by file: each yield
 * is the surviving rows of one data file, in the current schema's column order.
 */
export async function* scanLakeSnapshot(
  source: LakeSource,
  md: TableMetadata,
  snapshotId?: bigint,
): AsyncGenerator<Row[]> {
  const schema = md.schemas.find(s => s['schema-id'] === md['current-schema-id'])
  if (schema === undefined) throw new FlussError('CORRUPT_MESSAGE', 'current schema is missing')
  const fieldIds = schema.fields.map(f => f.id)
  const { data, deletes } = await snapshotFiles(
    source,
    snapshotById(md, snapshotId ?? md['current-snapshot-id']),
  )
  const deleteSets = await loadDeletes(source, deletes)
  for (const f of data) {
    yield liveRows(md, f, await readParquetById(source, f.file.filePath), deleteSets, fieldIds)
  }
}
