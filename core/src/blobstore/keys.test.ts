import { describe, expect, it } from 'vitest'
import { tableBucket, tablePath } from '../metadata/index.js'
import { newRemoteId } from '../remotelog/remote-id.js'
import {
  BLOB_KEY_ROOTS,
  blobLocation,
  kvSnapshotPrivateFileKey,
  kvSnapshotSharedFileKey,
  kvSnapshotTabletPrefix,
  lakeDataFileKey,
  lakeDeleteFileKey,
  lakeHintedMetadataKey,
  lakeManifestKey,
  lakeManifestListKey,
  lakeMetadataDir,
  lakeMetadataFileKey,
  lakeMetadataFileVersion,
  lakeTableKey,
  lakeVersionHintKey,
  parseKvSnapshotObjectKey,
  parseRemoteLogKey,
  remoteLogTabletDir,
  remoteLogTabletPrefix,
  remoteManifestKey,
  remoteSegmentKeys,
} from './keys.js'

const ID = '018bcfe5-6800-7000-8000-000000000001'
const NOW = 1_700_000_000_000

describe('blob keys', () => {
  it('have one top-level prefix per kind of cold data', () => {
    expect(BLOB_KEY_ROOTS).toEqual({ remoteLog: 'remote-log', kvSnapshots: 'kv-snapshots', lake: 'lake' })
    expect(blobLocation('s3://bucket/prefix/', 'lake/db/t')).toBe('s3://bucket/prefix/lake/db/t')
    expect(blobLocation('file:///data/blob', 'remote-log/7/_/0')).toBe('file:///data/blob/remote-log/7/_/0')
  })
})

describe('remote log keys', () => {
  const prefix = 'remote-log/7/_/0'

  it('follow Fluss layout below the tablet prefix', () => {
    expect(remoteLogTabletPrefix(tableBucket(7, 0))).toBe(prefix)
    expect(remoteLogTabletPrefix(tableBucket(7, 3, 12))).toBe('remote-log/7/12/3')
    expect(remoteSegmentKeys(prefix, ID, 5, 42)).toEqual({
      log: `remote-log/7/_/0/${ID}/00000000000000000005.log`,
      index: `remote-log/7/_/0/${ID}/00000000000000000005.index`,
      timeIndex: `remote-log/7/_/0/${ID}/00000000000000000005.timeindex`,
      writerSnapshot: `remote-log/7/_/0/${ID}/00000000000000000042.writer_snapshot`,
    })
    expect(remoteManifestKey(prefix, ID)).toBe(`remote-log/7/_/0/metadata/${ID}.manifest`)
    expect(remoteLogTabletDir('file:///data/blob/', tableBucket(7, 0))).toBe(`file:///data/blob/${prefix}`)
  })

  it('parse only keys the remote log writes', () => {
    const id = newRemoteId(NOW)
    expect(parseRemoteLogKey(prefix, remoteSegmentKeys(prefix, id, 0, 1).log)).toEqual({
      kind: 'segment',
      id,
    })
    expect(parseRemoteLogKey(prefix, remoteManifestKey(prefix, id))).toEqual({ kind: 'manifest', id })
    expect(parseRemoteLogKey(prefix, `${prefix}/notes.txt`)).toBeNull()
    expect(parseRemoteLogKey(prefix, `${prefix}/metadata/x.manifest`)).toBeNull()
    expect(parseRemoteLogKey(prefix, `remote-log/7/_/1/${id}/0.log`)).toBeNull()
  })
})

describe('KV snapshot keys', () => {
  const id = newRemoteId(NOW)

  it('follow kv-snapshots/<tableId>/<partition|_>/<bucket>/{shared,<snapshotId>}/<uploadId>-<file>', () => {
    expect(kvSnapshotTabletPrefix({ tableId: 12, bucket: 3 })).toBe('kv-snapshots/12/_/3')
    const prefix = kvSnapshotTabletPrefix({ tableId: 12, partitionId: 40, bucket: 3 })
    expect(prefix).toBe('kv-snapshots/12/40/3')
    expect(kvSnapshotSharedFileKey(prefix, ID, '000009.sst')).toBe(
      `kv-snapshots/12/40/3/shared/${ID}-000009.sst`,
    )
    expect(kvSnapshotPrivateFileKey(prefix, 5, ID, 'CURRENT')).toBe(`kv-snapshots/12/40/3/5/${ID}-CURRENT`)
  })

  it('parse back, and refuse keys that are not ours', () => {
    const prefix = 'kv-snapshots/1/_/0'
    expect(parseKvSnapshotObjectKey(prefix, `${prefix}/shared/${id}-000009.sst`)).toEqual({
      uploadId: id,
      fileName: '000009.sst',
      snapshotId: null,
    })
    expect(parseKvSnapshotObjectKey(prefix, `${prefix}/17/${id}-MANIFEST-000005`)).toEqual({
      uploadId: id,
      fileName: 'MANIFEST-000005',
      snapshotId: 17,
    })
    for (const key of [
      `kv-snapshots/1/_/1/shared/${id}-000009.sst`,
      `${prefix}/shared/not-a-uuid-000009.sst`,
      `${prefix}/shared/${id}`,
      `${prefix}/x1/${id}-CURRENT`,
      `${prefix}/1/2/${id}-CURRENT`,
      `${prefix}/shared/${id}_000009.sst`,
    ]) {
      expect(parseKvSnapshotObjectKey(prefix, key)).toBeNull()
    }
  })
})

describe('lake keys', () => {
  const table = lakeTableKey(tablePath('fluss', 'orders'))

  it('follow lake/<database>/<table>/{metadata,data}/...', () => {
    expect(table).toBe('lake/fluss/orders')
    expect(lakeMetadataDir(table)).toBe('lake/fluss/orders/metadata')
    expect(lakeMetadataFileKey(table, 12, ID)).toBe(`lake/fluss/orders/metadata/00012-${ID}.metadata.json`)
    expect(lakeHintedMetadataKey(table, 3)).toBe('lake/fluss/orders/metadata/v3.metadata.json')
    expect(lakeVersionHintKey(table)).toBe('lake/fluss/orders/metadata/version-hint.text')
    expect(lakeManifestListKey(table, 4242n, 2, ID)).toBe(`lake/fluss/orders/metadata/snap-4242-2-${ID}.avro`)
    expect(lakeManifestKey(table, ID, 1)).toBe(`lake/fluss/orders/metadata/${ID}-m1.avro`)
    expect(lakeDataFileKey(table, 'dt=2024-01-01/__bucket=3', ID)).toBe(
      `lake/fluss/orders/data/dt=2024-01-01/__bucket=3/${ID}.parquet`,
    )
    expect(lakeDeleteFileKey(table, '__bucket=0', ID)).toBe(
      `lake/fluss/orders/data/__bucket=0/${ID}-deletes.parquet`,
    )
  })

  it('build locations below an absolute table location alike', () => {
    const location = blobLocation('s3://bucket/warehouse', table)
    expect(lakeVersionHintKey(location)).toBe(
      's3://bucket/warehouse/lake/fluss/orders/metadata/version-hint.text',
    )
  })

  it('read the version of a numbered metadata file, and of no other', () => {
    expect(lakeMetadataFileVersion(`s3://b/t/metadata/00012-${ID}.metadata.json`)).toBe(12)
    expect(lakeMetadataFileVersion('s3://b/t/metadata/v3.metadata.json')).toBeUndefined()
    expect(lakeMetadataFileVersion('s3://b/t/metadata/version-hint.text')).toBeUndefined()
  })
})
