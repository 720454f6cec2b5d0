import type { Connection } from '@sluice/client'
import type { LakeSource } from '@sluice/client/union'
import { type BlobStore, type BlobStoreOptions, createBlobStore } from '@sluice/core/blobstore'
import {
  type Configuration,
  SLUICE_AWS_REGION,
  SLUICE_BLOBSTORE_ENDPOINT,
  SLUICE_BLOBSTORE_PATH_STYLE_ACCESS,
  SLUICE_BLOBSTORE_URI,
} from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import type { TableInfo } from '@sluice/core/metadata'
import type { Row } from '@sluice/core/row'
import type { UnionReadRequest, UnionReadResult } from './gateway-backend.js'
import { unsupported } from './unsupported.js'

/**
 * Where union reads find the lake: the cluster's blob store (`sluice.blobstore.uri`, where tiering
 * writes lake tables under `lake/<database>/<table>`), opened on first use.
 */
export class LakeAccess {
  #store: Promise<BlobStore> | undefined

  constructor(
    readonly uri: string | undefined,
    private readonly options: BlobStoreOptions = {},
  ) {}

  static fromConfig(config: Configuration): LakeAccess {
    const region = config.getOptional(SLUICE_AWS_REGION)
    const endpoint = config.getOptional(SLUICE_BLOBSTORE_ENDPOINT)
    return new LakeAccess(config.getOptional(SLUICE_BLOBSTORE_URI), {
      ...(region === undefined ? {} : { region }),
      ...(endpoint === undefined ? {} : { endpoint }),
      forcePathStyle: config.get(SLUICE_BLOBSTORE_PATH_STYLE_ACCESS),
    })
  }

  /** The lake source; 501 when the gateway is not told where the lake is. */
  async source(): Promise<LakeSource> {
    const uri = this.uri
    if (uri === undefined) {
      throw unsupported(
        'Union read',
        `the gateway's configuration has no ${SLUICE_BLOBSTORE_URI.key} (the lake)`,
      )
    }
    this.#store ??= createBlobStore(uri, this.options)
    const { blobStoreLakeSource } = await import('@sluice/client/union')
    return blobStoreLakeSource(await this.#store, uri)
  }

  async close(): Promise<void> {
    const store = this.#store
    this.#store = undefined
    if (store !== undefined) await (await store.catch(() => undefined))?.close()
  }
}

/**
 * A bounded union read through the SDK (`@sluice/client/union`, loaded on first use so that the
 * lake reader's Parquet decoder is only loaded where union reads are served): plans the read (the
 * lake snapshot named by the table's `version-hint.text`, and the log after its offsets), then
 * takes rows until `maxRows` (stopping the read there).
 */
export async function unionReadRows(
  connection: Connection,
  lake: LakeSource,
  info: TableInfo,
  request: UnionReadRequest,
  signal: AbortSignal,
): Promise<UnionReadResult> {
  const { planUnionScan, executeUnionScan } = await import('@sluice/client/union')
  const plan = await planUnionScan(connection, info.tablePath, { lake })
  const options = { lake, maxPendingKeys: request.maxPendingKeys, logReadTimeoutMs: request.timeoutMs }
  const rows: Row[] = []
  let truncated = false
  for await (const record of executeUnionScan(connection, plan, options)) {
    if (signal.aborted) throw new FlussError('REQUEST_TIME_OUT', 'The request deadline passed.')
    if (rows.length === request.maxRows) {
      truncated = true
      break
    }
    rows.push(record.row)
  }
  const snapshotId = plan.lake?.snapshot?.['snapshot-id']
  return { rows, truncated, ...(snapshotId === undefined ? {} : { lakeSnapshotId: Number(snapshotId) }) }
}
