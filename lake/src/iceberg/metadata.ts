import { FlussError } from '@sluice/core/errors'
import { isJsonObject, type Json, parseJson, stringifyJson } from './json.js'
import type { Snapshot, TableMetadata } from './types.js'

/**
 * Reading and writing table metadata JSON (format v2). Parsing is lossless (64-bit ids as bigint)
 * and validating: every v2-required member must be present with the right JSON type. Members this
 * writer does not interpret are kept as parsed, so a rewrite preserves them byte for byte.
 */

function corrupt(message: string): FlussError {
  return new FlussError('CORRUPT_MESSAGE', `table metadata: ${message}`)
}

const REQUIRED_NUMBERS = [
  'last-sequence-number',
  'last-updated-ms',
  'last-column-id',
  'current-schema-id',
  'default-spec-id',
  'last-partition-id',
  'default-sort-order-id',
] as const
const REQUIRED_ARRAYS = ['schemas', 'partition-specs', 'sort-orders'] as const

function safeInt(v: Json | undefined, what: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v))
    throw corrupt(`${what} must be an integer, got ${String(v)}`)
  return v
}

function longId(v: Json | undefined, what: string): bigint {
  if (typeof v === 'bigint') return v
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v)
  throw corrupt(`${what} must be a long, got ${String(v)}`)
}

function objectAt(v: Json | undefined, what: string): { [key: string]: Json } {
  if (!isJsonObject(v)) throw corrupt(`${what} must be an object`)
  return v
}

function normalizeSnapshot(v: Json, i: number): Snapshot {
  const s = objectAt(v, `snapshots[${i}]`)
  const summary = objectAt(s.summary ?? null, `snapshots[${i}].summary`)
  const strings: Record<string, string> = {}
  for (const [k, x] of Object.entries(summary)) strings[k] = typeof x === 'string' ? x : stringifyJson(x)
  if (typeof strings.operation !== 'string') throw corrupt(`snapshots[${i}].summary lacks operation`)
  if (typeof s['manifest-list'] !== 'string') throw corrupt(`snapshots[${i}] lacks manifest-list`)
  const parent = s['parent-snapshot-id']
  return {
    ...s,
    'snapshot-id': longId(s['snapshot-id'], `snapshots[${i}].snapshot-id`),
    ...(parent === undefined || parent === null
      ? {}
      : { 'parent-snapshot-id': longId(parent, 'parent-snapshot-id') }),
    'sequence-number': safeInt(s['sequence-number'], `snapshots[${i}].sequence-number`),
    'timestamp-ms': safeInt(s['timestamp-ms'], `snapshots[${i}].timestamp-ms`),
    'manifest-list': s['manifest-list'],
    summary: strings as Snapshot['summary'],
  }
}

function normalizeRefs(v: Json | undefined): TableMetadata['refs'] {
  const refs: Record<string, TableMetadata['refs'][string]> = {}
  for (const [name, r] of Object.entries(objectAt(v ?? {}, 'refs'))) {
    const ref = objectAt(r, `refs.${name}`)
    if (ref.type !== 'branch' && ref.type !== 'tag') throw corrupt(`refs.${name}.type must be branch or tag`)
    refs[name] = {
      ...ref,
      'snapshot-id': longId(ref['snapshot-id'], `refs.${name}.snapshot-id`),
      type: ref.type,
    }
  }
  return refs
}

/** Parses and validates v2 table metadata; CORRUPT_MESSAGE for anything malformed. */
export function parseTableMetadata(text: string): TableMetadata {
  const raw = objectAt(parseJson(text), 'document')
  if (raw['format-version'] !== 2) {
    throw new FlussError(
      'CORRUPT_MESSAGE',
      `table metadata: format-version ${String(raw['format-version'])} is not supported, only 2`,
    )
  }
  if (typeof raw['table-uuid'] !== 'string') throw corrupt('table-uuid must be a string')
  if (typeof raw.location !== 'string') throw corrupt('location must be a string')
  for (const k of REQUIRED_NUMBERS) safeInt(raw[k], k)
  for (const k of REQUIRED_ARRAYS) if (!Array.isArray(raw[k])) throw corrupt(`${k} must be an array`)
  const snapshots = Array.isArray(raw.snapshots) ? raw.snapshots.map(normalizeSnapshot) : []
  const current = raw['current-snapshot-id']
  const currentId =
    current === undefined || current === null ? undefined : longId(current, 'current-snapshot-id')
  const properties: Record<string, string> = {}
  for (const [k, v] of Object.entries(objectAt(raw.properties ?? {}, 'properties'))) properties[k] = String(v)
  const log = (k: string) => (Array.isArray(raw[k]) ? (raw[k] as { [key: string]: Json }[]) : [])
  const md = {
    ...raw,
    properties,
    snapshots,
    refs: normalizeRefs(raw.refs),
    'snapshot-log': log('snapshot-log').map((e, i) => ({
      ...e,
      'timestamp-ms': safeInt(e['timestamp-ms'], `snapshot-log[${i}].timestamp-ms`),
      'snapshot-id': longId(e['snapshot-id'], `snapshot-log[${i}].snapshot-id`),
    })),
    'metadata-log': log('metadata-log').map((e, i) => ({
      ...e,
      'timestamp-ms': safeInt(e['timestamp-ms'], `metadata-log[${i}].timestamp-ms`),
      'metadata-file': String(e['metadata-file']),
    })),
  } as unknown as Record<string, unknown>
  // Java writes -1 for "no current snapshot"; we omit the member instead.
  if (currentId !== undefined && currentId >= 0n) md['current-snapshot-id'] = currentId
  else delete md['current-snapshot-id']
  return checkConsistency(md as unknown as TableMetadata)
}

function checkConsistency(md: TableMetadata): TableMetadata {
  const ids = new Set(md.snapshots.map(s => s['snapshot-id']))
  const current = md['current-snapshot-id']
  if (current !== undefined && !ids.has(current))
    throw corrupt(`current-snapshot-id ${current} is no snapshot`)
  for (const [name, ref] of Object.entries(md.refs)) {
    if (!ids.has(ref['snapshot-id']))
      throw corrupt(`ref ${name} points to missing snapshot ${ref['snapshot-id']}`)
  }
  const main = md.refs.main?.['snapshot-id']
  if (current !== undefined && main !== undefined && main !== current) {
    throw corrupt(`refs.main (${main}) differs from current-snapshot-id (${current})`)
  }
  return md
}

/** Compact JSON of the metadata, 64-bit ids as exact integer literals. */
export function serializeTableMetadata(md: TableMetadata): string {
  return stringifyJson(md)
}

export function snapshotById(md: TableMetadata, id: bigint | undefined): Snapshot | undefined {
  return id === undefined ? undefined : md.snapshots.find(s => s['snapshot-id'] === id)
}

export function currentSnapshot(md: TableMetadata): Snapshot | undefined {
  return snapshotById(md, md['current-snapshot-id'])
}

/** The current snapshot and its ancestors, newest first (stops where history was expired). */
export function ancestors(
  md: TableMetadata,
  from: bigint | undefined = md['current-snapshot-id'],
): Snapshot[] {
  const out: Snapshot[] = []
  const seen = new Set<bigint>()
  let s = snapshotById(md, from)
  while (s !== undefined && !seen.has(s['snapshot-id'])) {
    out.push(s)
    seen.add(s['snapshot-id'])
    s = snapshotById(md, s['parent-snapshot-id'])
  }
  return out
}
