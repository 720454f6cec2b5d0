import { type BlobStore, remoteLogTabletPrefix, remoteManifestKey } from '../blobstore/index.js'
import { FlussError } from '../errors/index.js'
import type { TableBucket } from '../metadata/index.js'
import {
  type ItemValue,
  isMetaStoreConflict,
  type MetaStore,
  remoteLogKey,
  type VersionedItem,
  type WriteCondition,
} from '../metastore/index.js'
import { newRemoteId } from './remote-id.js'
import { RemoteLogManifest } from './remote-log-manifest.js'
import {
  decodeManifestBody,
  decodeManifestBytes,
  encodeManifestBody,
  MANIFEST_FORMAT_VERSION,
} from './remote-log-manifest-codec.js'

/**
 * A manifest as committed, with what the next conditional write must name. The MetaStore item
 * `remoteLogKey(bucket)` holds:
 *
 *   formatVersion, leaderEpoch (of the last writer), remoteLogStartOffset, remoteLogEndOffset
 *   (exclusive; both -1 when empty), segmentCount, remoteSizeInBytes, tabletPrefix, and EITHER
 *   `segments` (the body inline, while its JSON is at most `inlineBytesMax`) OR `manifestKey`
 *   (the body in an immutable BlobStore object `<tabletPrefix>/metadata/<uuid>.manifest`).
 *
 * DynamoDB items stop at 400 KB; a bucket with thousands of segments would not fit, so larger
 * bodies move to the BlobStore and the item keeps the pointer, the version and the epoch.
 */
export interface StoredManifest {
  readonly manifest: RemoteLogManifest
  /** Item version to condition the next write on; 'absent' when nothing was committed yet. */
  readonly version: number | 'absent'
  /** Leader epoch of the last commit, -1 when absent. */
  readonly leaderEpoch: number
  /** BlobStore key of the body, null when inline. */
  readonly manifestKey: string | null
}

export interface RemoteLogManifestStoreOptions {
  /** Bodies up to this many bytes of JSON stay inline in the item. */
  readonly inlineBytesMax: number
  readonly nowMs: () => number
}

/** Manifest bodies inline up to 64 KiB of JSON (roughly 400 segments). */
export const MANIFEST_INLINE_BYTES_DEFAULT = 64 * 1024

export class RemoteLogManifestStore {
  constructor(
    private readonly metaStore: MetaStore,
    private readonly blobStore: BlobStore,
    private readonly options: RemoteLogManifestStoreOptions,
  ) {}

  /** Reads the committed manifest (strongly consistent); an empty one when none exists. */
  async load(bucket: TableBucket): Promise<StoredManifest> {
    const { pk, sk } = remoteLogKey(bucket)
    let item = await this.metaStore.get(pk, sk)
    for (let attempt = 0; ; attempt++) {
      if (item === undefined) {
        return {
          manifest: new RemoteLogManifest(remoteLogTabletPrefix(bucket)),
          version: 'absent',
          leaderEpoch: -1,
          manifestKey: null,
        }
      }
      const loaded = await this.#decode(bucket, item)
      if (loaded !== null) return loaded
      // The body object vanished: a newer commit replaced and deleted it; read the item again.
      const again = await this.metaStore.get(pk, sk)
      if (attempt >= 1 || again?.version === item.version) {
        throw new FlussError(
          'LOG_STORAGE_EXCEPTION',
          `remote log manifest body of ${pk}/${sk} (version ${item.version}) is missing`,
        )
      }
      item = again
    }
  }

  /**
   * Commits `next` if the item still has `previous.version` and no newer leader epoch than
   * `leaderEpoch` (so a deposed leader cannot commit). Throws METASTORE_CONFLICT (with the current
   * item) when the condition fails; a body object written for this attempt is then deleted.
   */
  async commit(
    bucket: TableBucket,
    previous: StoredManifest,
    next: RemoteLogManifest,
    leaderEpoch: number,
  ): Promise<StoredManifest> {
    const body = encodeManifestBody(next)
    const json = JSON.stringify(body)
    let manifestKey: string | null = null
    if (Buffer.byteLength(json) > this.options.inlineBytesMax) {
      manifestKey = remoteManifestKey(next.tabletPrefix, newRemoteId(this.options.nowMs()))
      await this.blobStore.put(manifestKey, Buffer.from(json))
    }
    const value: ItemValue = {
      formatVersion: MANIFEST_FORMAT_VERSION,
      leaderEpoch,
      remoteLogStartOffset: next.remoteLogStartOffset,
      remoteLogEndOffset: next.remoteLogEndOffset,
      segmentCount: next.segments.length,
      remoteSizeInBytes: next.remoteSizeInBytes,
      tabletPrefix: next.tabletPrefix,
      ...(manifestKey === null ? { segments: body.segments } : { manifestKey }),
    }
    const condition: WriteCondition =
      previous.version === 'absent'
        ? { version: 'absent' }
        : { version: previous.version, attributes: [{ field: 'leaderEpoch', op: '<=', value: leaderEpoch }] }
    const { pk, sk } = remoteLogKey(bucket)
    try {
      const version = await this.metaStore.put(pk, sk, value, condition)
      return { manifest: next, version, leaderEpoch, manifestKey }
    } catch (e) {
      // Only a lost condition proves the write did not happen; other failures may have applied it.
      if (manifestKey !== null && isMetaStoreConflict(e))
        await this.blobStore.delete([manifestKey]).catch(() => {})
      throw e
    }
  }

  /** Deletes the item (the bucket's remote log is gone), conditioned on the version read. */
  async deleteItem(bucket: TableBucket, stored: StoredManifest): Promise<void> {
    if (stored.version === 'absent') return
    const { pk, sk } = remoteLogKey(bucket)
    await this.metaStore.delete(pk, sk, { version: stored.version })
  }

  /** The item's manifest, or null when its body object is missing. */
  async #decode(bucket: TableBucket, item: VersionedItem): Promise<StoredManifest | null> {
    const where = `${item.pk}/${item.sk}`
    const { value } = item
    const leaderEpoch = value.leaderEpoch
    if (typeof leaderEpoch !== 'number' || !Number.isSafeInteger(leaderEpoch)) {
      throw new FlussError('LOG_STORAGE_EXCEPTION', `remote log manifest ${where} has no leader epoch`)
    }
    let manifest: RemoteLogManifest
    const manifestKey = typeof value.manifestKey === 'string' ? value.manifestKey : null
    if (manifestKey !== null) {
      const bytes = await this.blobStore.get(manifestKey)
      if (bytes === undefined) return null
      manifest = decodeManifestBytes(bytes, manifestKey)
    } else {
      manifest = decodeManifestBody(
        { formatVersion: value.formatVersion, tabletPrefix: value.tabletPrefix, segments: value.segments },
        where,
      )
    }
    const expected = remoteLogTabletPrefix(bucket)
    if (manifest.tabletPrefix !== expected) {
      throw new FlussError(
        'LOG_STORAGE_EXCEPTION',
        `remote log manifest ${where} names prefix ${manifest.tabletPrefix}, expected ${expected}`,
      )
    }
    return { manifest, version: item.version, leaderEpoch, manifestKey }
  }
}
