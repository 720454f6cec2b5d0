import { mkdir } from 'node:fs/promises'
import { isAbsolute, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { type BlobStore, FsBlobStore } from '@sluice/core/blobstore'
import { S3BlobStore } from '@sluice/core/blobstore/s3'
import { FlussError } from '@sluice/core/errors'
import { METADATA_TABLE } from '@sluice/core/metastore'
import { DynamoMetaStore } from '@sluice/core/metastore/dynamo'
import { bootstrapAws } from './bootstrap.js'
import { startDynalite } from './dynalite-server.js'
import { type S3rverProcess, startS3rver } from './s3rver-process.js'

export type LocalS3Mode = 'fs' | 's3rver' | 'none'

type Credentials = { readonly accessKeyId: string; readonly secretAccessKey: string }

/** A DynamoDB started elsewhere (moto, LocalStack): the metadata table is created there. */
export interface ExternalDynamo {
  readonly endpoint: string
  /** Default: the region of the local endpoints. */
  readonly region?: string
  /** Default: the fake credentials of the local endpoints. */
  readonly credentials?: Credentials
}

export interface LocalAwsOptions {
  /** Root of everything kept on disk: `dynamo/` (dynalite), `s3/` (s3rver) or `blobs/` (fs mode). */
  readonly dataDir: string
  /** 'fs' (default): blobs in `<dataDir>/blobs` without a server; 's3rver': an S3 endpoint; 'none'. */
  readonly s3?: LocalS3Mode
  /** true (default): start dynalite; false: no DynamoDB; an endpoint: use that DynamoDB instead. */
  readonly dynamo?: boolean | ExternalDynamo
  readonly host?: string
  /** Ports; 0 (default) picks free ones. */
  readonly dynamoPort?: number
  readonly s3Port?: number
  readonly tableName?: string
  readonly bucket?: string
  readonly region?: string
}

export interface LocalAws {
  readonly region: string
  /** Fake credentials every local endpoint accepts (s3rver insists on these), or the external DynamoDB's. */
  readonly credentials: Credentials
  readonly dynamo?: { readonly endpoint: string; readonly tableName: string; readonly region: string }
  readonly s3?: { readonly endpoint: string; readonly bucket: string }
  /** `s3://bucket` or `file:///…/blobs`; undefined with s3: 'none'. */
  readonly blobStoreUri?: string
  /** Whether the blob store enforces `ifNoneMatch` (s3rver ignores If-None-Match). */
  readonly conditionalPut: boolean
  /** The same wiring as `sluice.*` configuration keys, for servers started as processes. */
  readonly config: Readonly<Record<string, string>>
  /** AWS_* environment variables for child processes (credentials and region). */
  readonly env: Readonly<Record<string, string>>
  /** A new MetaStore on the local table (close it when done). */
  metaStore(): DynamoMetaStore
  /** A new BlobStore on the local blobs (close it when done). */
  blobStore(): BlobStore
  stop(): Promise<void>
}

const CREDENTIALS: Credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }

/** Starts local AWS endpoints in and beside this process; no Docker. */
export async function startLocalAws(options: LocalAwsOptions): Promise<LocalAws> {
  if (!isAbsolute(options.dataDir))
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      `dataDir must be an absolute path, got '${options.dataDir}'`,
    )
  const dataDir = resolve(options.dataDir)
  const region = options.region ?? 'us-east-1'
  const tableName = options.tableName ?? METADATA_TABLE.defaultName
  const bucket = options.bucket ?? 'sluice'
  const mode = options.s3 ?? 'fs'
  const host = options.host ?? '127.0.0.1'
  const external = typeof options.dynamo === 'object' ? options.dynamo : undefined
  const credentials = sharedCredentials(external, mode)
  const stops: Array<() => Promise<void>> = []
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s()
  }
  try {
    let dynamo: DynamoEndpoint | undefined
    if (external !== undefined) {
      dynamo = { endpoint: external.endpoint, region: external.region ?? region }
    } else if (options.dynamo ?? true) {
      const path = join(dataDir, 'dynamo')
      await mkdir(path, { recursive: true })
      const dynalite = await startDynalite({ path, host, port: options.dynamoPort ?? 0 })
      stops.push(() => dynalite.stop())
      dynamo = { endpoint: dynalite.endpoint, region }
    }
    let s3: S3rverProcess | undefined
    if (mode === 's3rver') {
      const directory = join(dataDir, 's3')
      await mkdir(directory, { recursive: true })
      s3 = await startS3rver({ directory, buckets: [bucket], host, port: options.s3Port ?? 0 })
      stops.push(() => (s3 as S3rverProcess).stop())
    }
    await bootstrapAws({
      region: dynamo?.region ?? region,
      credentials,
      dynamoEndpoint: dynamo?.endpoint,
      tableName,
      bucket,
    })
    await bootstrapAws({ region, credentials, s3Endpoint: s3?.endpoint, tableName, bucket })
    let blobStoreUri: string | undefined
    if (mode === 'fs') {
      const blobs = join(dataDir, 'blobs')
      await mkdir(blobs, { recursive: true })
      blobStoreUri = pathToFileURL(blobs).href
    } else if (mode === 's3rver') {
      blobStoreUri = `s3://${bucket}`
    }
    return describe({ region, credentials, tableName, bucket, dynamo, s3, blobStoreUri, stop })
  } catch (e) {
    await stop()
    throw e
  }
}

/**
 * The credentials every server and client gets: an external DynamoDB's own, else the local fake
 * ones. s3rver accepts only its fake ones, so it cannot be combined with other credentials.
 */
function sharedCredentials(external: ExternalDynamo | undefined, mode: LocalS3Mode): Credentials {
  const own = external?.credentials
  if (own === undefined) return CREDENTIALS
  if (mode === 's3rver' && own.accessKeyId !== CREDENTIALS.accessKeyId) {
    throw new FlussError(
      'INVALID_CONFIG_EXCEPTION',
      "an external DynamoDB with its own credentials needs s3: 'fs' or 'none' (s3rver accepts only its own)",
    )
  }
  return own
}

interface DynamoEndpoint {
  readonly endpoint: string
  readonly region: string
}

interface Parts {
  readonly region: string
  readonly credentials: Credentials
  readonly tableName: string
  readonly bucket: string
  readonly dynamo?: DynamoEndpoint
  readonly s3?: S3rverProcess
  readonly blobStoreUri?: string
  readonly stop: () => Promise<void>
}

function describe(p: Parts): LocalAws {
  const conditionalPut = p.s3 === undefined
  const config: Record<string, string> = {
    'sluice.aws.region': p.region,
    'sluice.metastore.table': p.tableName,
  }
  if (p.dynamo) config['sluice.metastore.endpoint'] = p.dynamo.endpoint
  if (p.dynamo && p.dynamo.region !== p.region) config['sluice.metastore.region'] = p.dynamo.region
  if (p.blobStoreUri) config['sluice.blobstore.uri'] = p.blobStoreUri
  if (p.s3) {
    config['sluice.blobstore.endpoint'] = p.s3.endpoint
    config['sluice.blobstore.path-style-access'] = 'true'
  }
  let stopped: Promise<void> | undefined
  return {
    region: p.region,
    credentials: p.credentials,
    ...(p.dynamo ? { dynamo: { ...p.dynamo, tableName: p.tableName } } : {}),
    ...(p.s3 ? { s3: { endpoint: p.s3.endpoint, bucket: p.bucket } } : {}),
    blobStoreUri: p.blobStoreUri,
    conditionalPut,
    config,
    env: {
      AWS_ACCESS_KEY_ID: p.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: p.credentials.secretAccessKey,
      AWS_REGION: p.region,
    },
    metaStore() {
      if (!p.dynamo) throw new Error('local AWS was started without dynamo')
      return new DynamoMetaStore({
        tableName: p.tableName,
        endpoint: p.dynamo.endpoint,
        region: p.dynamo.region,
        credentials: p.credentials,
      })
    },
    blobStore() {
      if (p.s3) {
        const { endpoint } = p.s3
        return new S3BlobStore({
          bucket: p.bucket,
          region: p.region,
          endpoint,
          credentials: p.credentials,
          forcePathStyle: true,
          conditionalPut,
        })
      }
      if (!p.blobStoreUri) throw new Error("local AWS was started with s3: 'none'")
      return new FsBlobStore(fileURLToPath(p.blobStoreUri))
    },
    stop() {
      stopped ??= p.stop()
      return stopped
    },
  }
}
