import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { MetaStore } from '@sluice/core/metastore'
import { createDynamoClient, createMetadataTable, DynamoMetaStore } from '@sluice/core/metastore/dynamo'
import { type LocalAws, startLocalAws } from '@sluice/localstack'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { startMotoOrSkip } from './moto-server.js'

const REGION = 'us-east-1'
const CREDENTIALS = { accessKeyId: 'fidelity', secretAccessKey: 'fidelity' }

/**
 * Runs `cases` against every DynamoDB that runs here: in-process dynalite, and moto_server (skipped
 * with the reason when it cannot start). `open` makes a new client of a metadata table `tableName`.
 */
export async function onEveryDynamo(
  tableName: string,
  cases: (emulator: string, open: () => MetaStore) => void,
): Promise<void> {
  describe('dynalite (in-process)', () => {
    let dataDir: string
    let aws: LocalAws | undefined
    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), `sluice-fidelity-${tableName}-`))
      aws = await startLocalAws({ dataDir, s3: 'none', tableName })
    })
    afterAll(async () => {
      await aws?.stop()
      await rm(dataDir, { recursive: true, force: true })
    })
    cases('dynalite', () => (aws as LocalAws).metaStore())
  })

  const started = await startMotoOrSkip(`the ${tableName} scenarios on moto_server`)
  if ('skipReason' in started) {
    describe('moto_server', () => {
      it.skip(started.skipReason, () => {})
    })
    return
  }
  describe('moto_server', () => {
    const { moto } = started
    afterAll(() => moto.stop())
    beforeAll(async () => {
      const client = createDynamoClient({ region: REGION, endpoint: moto.endpoint, credentials: CREDENTIALS })
      try {
        await createMetadataTable(client, { tableName })
      } finally {
        client.destroy()
      }
    })
    cases(
      'moto',
      () =>
        new DynamoMetaStore({ tableName, region: REGION, endpoint: moto.endpoint, credentials: CREDENTIALS }),
    )
  })
}
