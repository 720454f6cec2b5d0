import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { metaStoreContract } from '@sluice/core/metastore/contract'
import { createDynamoClient, createMetadataTable, DynamoMetaStore } from '@sluice/core/metastore/dynamo'
import { type LocalAws, startLocalAws } from '@sluice/localstack'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { startMotoOrSkip } from './moto-server.js'

/** The MetaStore contract against every DynamoDB we can run here: dynalite and moto. */
const REGION = 'us-east-1'
const CREDENTIALS = { accessKeyId: 'fidelity', secretAccessKey: 'fidelity' }
const TABLE = 'sluice-fidelity'

describe('dynalite (in-process)', () => {
  let dataDir: string
  let aws: LocalAws | undefined
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'sluice-fidelity-dynalite-'))
    aws = await startLocalAws({ dataDir, s3: 'none', tableName: TABLE })
  })
  afterAll(async () => {
    await aws?.stop()
    await rm(dataDir, { recursive: true, force: true })
  })
  metaStoreContract('DynamoMetaStore on dynalite', () => (aws as LocalAws).metaStore())
})

const started = await startMotoOrSkip('the MetaStore contract on moto_server')

describe.skipIf('skipReason' in started)(
  `moto_server${'skipReason' in started ? ` (skipped: ${started.skipReason})` : ''}`,
  () => {
    const moto = 'moto' in started ? started.moto : undefined
    afterAll(async () => {
      await moto?.stop()
    })
    beforeAll(async () => {
      const client = createDynamoClient({
        region: REGION,
        endpoint: moto?.endpoint,
        credentials: CREDENTIALS,
      })
      try {
        await createMetadataTable(client, { tableName: TABLE })
      } finally {
        client.destroy()
      }
    })
    metaStoreContract(
      'DynamoMetaStore on moto',
      () =>
        new DynamoMetaStore({
          tableName: TABLE,
          region: REGION,
          endpoint: moto?.endpoint,
          credentials: CREDENTIALS,
        }),
    )
  },
)

if ('skipReason' in started) {
  describe('moto_server', () => {
    it.skip(started.skipReason, () => {})
  })
}
