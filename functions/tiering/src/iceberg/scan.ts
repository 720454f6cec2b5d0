import { readArrowStream } from '@sluice/core/arrow'
import { FlussError } from '@sluice/core/errors'
import type { Row, Value } from '@sluice/core/row'
import { readParquet } from 'parquet-wasm/node'
import { PARQUET_FIELD_ID_KEY } from '../parquet/parquet-file.js'
import { keyString } from './changelog.js'
import type { LakeFileIO } from './file-io.js'
import { readManifest } from './manifest.js'
import { snapshotById } from './metadata.js'
import { samePartition } from './partition.js'
import { snapshotManifests } from './table-state.js'
import { type DataFile, EntryStatus, FileContent, ManifestContent, type TableMetadata } from './types.js'

/**
 * Merge-on-read scan of one snapshot, by the letter of the spec: a data row survives unless
 * - an equality delete with a higher data sequence number, in the same partition of the same spec
 *   (or with an unpartitioned spec), matches it on the delete's `equality_ids` columns (a null
 *   matches a null), or
 * - a position delete with a data sequence number at least as high names its file and position.
 * Columns are matched by Parquet field id. Rows come back in the current schema's column order;
 * a column a file lacks reads as null. Everything is held in memory: meant for tests and small
 * tables (union reads stream per bucket instead).
 */

interface LiveFile {
  readonly file: DataFile
  readonly sequenceNumber: number
}

async function liveFiles(io: LakeFileIO, md: TableMetadata, snapshotId: bigint | undefined) {
  const snapshot = snapshotById(md, snapshotId ?? md['current-snapshot-id'])
  const data: LiveFile[] = []
  const deletes: LiveFile[] = []
  for (const m of await snapshotManifests(io, snapshot)) {
    const { entries } = readManifest(await io.read(m.manifestPath), m.partitionSpecId)
    for (const e of entries) {
      if (e.status === EntryStatus.DELETED) continue
      const sequenceNumber = e.sequenceNumber ?? (e.status === EntryStatus.ADDED ? m.sequenceNumber : 0)
      ;(m.content === ManifestContent.DATA ? data : deletes).push({ file: e.dataFile, sequenceNumber })
    }
  }
  return { data, deletes }
}

/** The rows of a Parquet file keyed by field id. */
async function readById(io: LakeFileIO, location: string): Promise<{ ids: number[]; rows: Row[] }> {
  const table = readParquet(await io.read(location))
  const stream = readArrowStream(table.intoIPCStream())
  if (stream.rowType === null)
    throw new FlussError('CORRUPT_MESSAGE', `${location} has columns Sluice cannot read`)
  const ids = stream.fields.map(f => Number(f.metadata[PARQUET_FIELD_ID_KEY] ?? Number.NaN))
  return { ids, rows: stream.batches.flatMap(b => b.toRows()) }
}

function specIsUnpartitioned(md: TableMetadata, specId: number): boolean {
  return (md['partition-specs'].find(s => s['spec-id'] === specId)?.fields.length ?? 0) === 0
}

interface DeleteSet {
  readonly delete: LiveFile
  readonly keys?: Set<string>
  readonly positions?: Map<string, Set<number>>
}

async function loadDeletes(io: LakeFileIO, deletes: readonly LiveFile[]): Promise<DeleteSet[]> {
  const out: DeleteSet[] = []
  for (const d of deletes) {
    const { ids, rows } = await readById(io, d.file.filePath)
    if (d.file.content === FileContent.EQUALITY_DELETES) {
      const cols = (d.file.equalityIds ?? []).map(id => ids.indexOf(id))
      if (cols.some(c => c < 0))
        throw new FlussError('CORRUPT_MESSAGE', `${d.file.filePath} lacks equality columns`)
      out.push({ delete: d, keys: new Set(rows.map(r => keyString(cols.map(c => r[c])))) })
    } else {
      const pathCol = ids.indexOf(2147483546)
      const posCol = ids.indexOf(2147483545)
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

/** Whether an equality delete's partition scope covers a data file. */
function inScope(md: TableMetadata, d: LiveFile, data: LiveFile): boolean {
  if (specIsUnpartitioned(md, d.file.specId)) return true
  return d.file.specId === data.file.specId && samePartition(d.file.partition, data.file.partition)
}

/** The live rows of a snapshot (the current one by default), merge-on-read applied. */
export async function scanSnapshot(io: LakeFileIO, md: TableMetadata, snapshotId?: bigint): Promise<Row[]> {
  const schema = md.schemas.find(s => s['schema-id'] === md['current-schema-id'])
  if (schema === undefined) throw new FlussError('CORRUPT_MESSAGE', 'current schema is missing')
  const { data, deletes } = await liveFiles(io, md, snapshotId)
  const deleteSets = await loadDeletes(io, deletes)
  const out: Row[] = []
  for (const f of data) {
    const { ids, rows } = await readById(io, f.file.filePath)
    const eq = deleteSets.filter(
      s => s.keys !== undefined && s.delete.sequenceNumber > f.sequenceNumber && inScope(md, s.delete, f),
    )
    const pos = deleteSets.filter(
      s => s.positions !== undefined && s.delete.sequenceNumber >= f.sequenceNumber,
    )
    const columns = schema.fields.map(field => ids.indexOf(field.id))
    rows.forEach((r, i) => {
      if (pos.some(s => s.positions?.get(f.file.filePath)?.has(i))) return
      for (const s of eq) {
        const cols = (s.delete.file.equalityIds ?? []).map(id => ids.indexOf(id))
        if (s.keys?.has(keyString(cols.map(c => (c < 0 ? null : r[c]))))) return
      }
      out.push(columns.map(c => (c < 0 ? null : (r[c] as Value))))
    })
  }
  return out
}
