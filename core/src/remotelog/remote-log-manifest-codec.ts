import { FlussError } from '../errors/index.js'
import type { JsonValue } from '../metastore/index.js'
import { isRemoteId } from './remote-id.js'
import { RemoteLogManifest, type RemoteLogSegmentEntry } from './remote-log-manifest.js'

/**
 * The stored form of a manifest body (JSON), the same whether it sits inline in the MetaStore item
 * or in a BlobStore object:
 *
 *   { "formatVersion": 1, "tabletPrefix": "remote-log/7/_/0",
 *     "segments": [ { "segmentId": "<uuid>", "baseOffset": 0, "endOffset": 120,
 *                     "maxTimestamp": 1700000000000, "sizeInBytes": 4096, "hasWriterSnapshot": true } ] }
 *
 * Object keys are derived from tabletPrefix, segmentId and the offsets (remote-log-paths.ts).
 */
export const MANIFEST_FORMAT_VERSION = 1

export interface ManifestBody {
  readonly [field: string]: JsonValue
  readonly formatVersion: number
  readonly tabletPrefix: string
  readonly segments: readonly { readonly [field: string]: JsonValue }[]
}

export function encodeManifestBody(manifest: RemoteLogManifest): ManifestBody {
  return {
    formatVersion: MANIFEST_FORMAT_VERSION,
    tabletPrefix: manifest.tabletPrefix,
    segments: manifest.segments.map(s => ({
      segmentId: s.segmentId,
      baseOffset: s.baseOffset,
      endOffset: s.endOffset,
      maxTimestamp: s.maxTimestamp,
      sizeInBytes: s.sizeInBytes,
      hasWriterSnapshot: s.hasWriterSnapshot,
    })),
  }
}

export function encodeManifestBytes(manifest: RemoteLogManifest): Buffer {
  return Buffer.from(JSON.stringify(encodeManifestBody(manifest)))
}

/** Parses and checks a stored body; anything malformed is LOG_STORAGE_EXCEPTION naming `where`. */
export function decodeManifestBody(value: unknown, where: string): RemoteLogManifest {
  const bad = (why: string) =>
    new FlussError('LOG_STORAGE_EXCEPTION', `remote log manifest ${where} is corrupt: ${why}`)
  if (!isObject(value)) throw bad('not a JSON object')
  if (value.formatVersion !== MANIFEST_FORMAT_VERSION) {
    throw bad(`format version ${String(value.formatVersion)}, expected ${MANIFEST_FORMAT_VERSION}`)
  }
  if (typeof value.tabletPrefix !== 'string' || value.tabletPrefix === '') throw bad('no tablet prefix')
  if (!Array.isArray(value.segments)) throw bad('no segment list')
  const segments = value.segments.map((s: unknown, i: number) => decodeSegment(s, i, bad))
  for (let i = 1; i < segments.length; i++) {
    const prev = segments[i - 1] as RemoteLogSegmentEntry
    const next = segments[i] as RemoteLogSegmentEntry
    if (next.endOffset <= prev.endOffset) {
      throw bad(`segment ${i} [${next.baseOffset}, ${next.endOffset}) is out of order`)
    }
  }
  return new RemoteLogManifest(value.tabletPrefix, segments)
}

export function decodeManifestBytes(bytes: Uint8Array, where: string): RemoteLogManifest {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(bytes).toString('utf8'))
  } catch (e) {
    throw new FlussError(
      'LOG_STORAGE_EXCEPTION',
      `remote log manifest ${where} is not JSON: ${(e as Error).message}`,
    )
  }
  return decodeManifestBody(parsed, where)
}

function decodeSegment(s: unknown, i: number, bad: (why: string) => FlussError): RemoteLogSegmentEntry {
  if (!isObject(s)) throw bad(`segment ${i} is not an object`)
  if (typeof s.segmentId !== 'string' || !isRemoteId(s.segmentId)) throw bad(`segment ${i} has a bad id`)
  const [baseOffset, endOffset, maxTimestamp, sizeInBytes] = [
    s.baseOffset,
    s.endOffset,
    s.maxTimestamp,
    s.sizeInBytes,
  ].map(n => (typeof n === 'number' && Number.isSafeInteger(n) ? n : Number.NaN)) as number[]
  if (!(baseOffset >= 0 && endOffset > baseOffset)) throw bad(`segment ${i} has bad offsets`)
  if (!(maxTimestamp >= -1 && sizeInBytes >= 0)) throw bad(`segment ${i} has a bad timestamp or size`)
  if (typeof s.hasWriterSnapshot !== 'boolean') throw bad(`segment ${i} has no writer snapshot flag`)
  return {
    segmentId: s.segmentId,
    baseOffset: baseOffset as number,
    endOffset: endOffset as number,
    maxTimestamp: maxTimestamp as number,
    sizeInBytes: sizeInBytes as number,
    hasWriterSnapshot: s.hasWriterSnapshot,
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
