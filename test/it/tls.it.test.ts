import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Connection } from '@sluice/client'
import { isFlussError } from '@sluice/core/errors'
import { Schema, TableDescriptor } from '@sluice/core/metadata'
import { DataTypes } from '@sluice/core/types'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  connect,
  createDatabase,
  createTable,
  startReadyCluster,
  type TestCluster,
} from './support/cluster.js'
import { scanAll } from './support/scan.js'

/**
 * A cluster whose every listener speaks TLS (replication included), reached by the SDK with
 * `client.security.protocol=SSL`; the server certificate is renewed while writes run.
 */
const CERTS = new URL('../../core/src/security/testdata/', import.meta.url).pathname
const ROWS_PER_ROUND = 500
const ROUNDS = 8

let tc: TestCluster
let dir: string
let certFile: string
let keyFile: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sluice-it-tls-'))
  certFile = join(dir, 'server.pem')
  keyFile = join(dir, 'server.key')
  copyFileSync(join(CERTS, 'server.pem'), certFile)
  copyFileSync(join(CERTS, 'server.key'), keyFile)
  tc = await startReadyCluster({
    prefix: 'sluice-it-tls',
    tabletServers: 3,
    serverConfig: {
      'security.protocol.map': 'FLUSS:SSL',
      'sluice.security.ssl.certificate-file': certFile,
      'sluice.security.ssl.key-file': keyFile,
      'sluice.security.ssl.ca-file': join(CERTS, 'ca.pem'),
      'sluice.security.ssl.reload-interval': '200ms',
    },
    sdkConfig: tlsClient(),
  })
})

afterAll(async () => {
  await tc?.stop()
  rmSync(dir, { recursive: true, force: true })
})

function tlsClient(): Record<string, string> {
  return { 'client.security.protocol': 'SSL', 'client.security.ssl.ca-file': join(CERTS, 'ca.pem') }
}

describe('TLS listeners', () => {
  it('refuse a PLAINTEXT client and a client without the CA', async () => {
    const plain = await connect(tc.cluster, { 'client.request-timeout': '5s' }).catch(e => e)
    expect(isFlussError(plain, 'NETWORK_EXCEPTION')).toBe(true)
    const noCa = await connect(tc.cluster, {
      'client.security.protocol': 'SSL',
      'client.request-timeout': '5s',
    }).catch(e => e)
    expect(isFlussError(noCa, 'NETWORK_EXCEPTION')).toBe(true)
    expect(String(noCa)).toMatch(/certificate/i)
  })

  it('lose no acknowledged record of replicated acks=all writes while the certificate is renewed', async () => {
    const connection: Connection = await connect(tc.cluster, tlsClient())
    try {
      const db = await createDatabase(connection)
      const descriptor = TableDescriptor.builder()
        .schema(Schema.newBuilder().column('id', DataTypes.INT()).build())
        .distributedBy(3)
        .property('table.replication.factor', 3)
        .build()
      const path = await createTable(connection, db, descriptor)
      const table = await connection.getTable(path)
      const writer = table.newAppend().createWriter()
      let acked = 0
      for (let round = 0; round < ROUNDS; round++) {
        if (round === ROUNDS / 2) {
          copyFileSync(join(CERTS, 'server2.pem'), certFile)
          copyFileSync(join(CERTS, 'server2.key'), keyFile)
        }
        for (let i = 0; i < ROWS_PER_ROUND; i++) {
          const wait = writer.append({ id: round * ROWS_PER_ROUND + i })
          if (wait) await wait
        }
        await writer.flush()
        acked += ROWS_PER_ROUND
        await new Promise(r => setTimeout(r, 150))
      }
      await writer.close()
      // Every server took the renewed certificate (and none dropped the connections it had).
      const logs = join(tc.dataDir, 'logs')
      const reloaded = readdirSync(logs).filter(f =>
        readFileSync(join(logs, f), 'utf8').includes('TLS certificate reloaded'),
      )
      expect(reloaded.length).toBeGreaterThanOrEqual(4)
      // A new connection after the renewal still verifies (same CA) and reads everything back.
      const fresh = await connect(tc.cluster, tlsClient())
      try {
        const records = await scanAll(await fresh.getTable(path), acked)
        const ids = new Set([...records.values()].flat().map(r => Number(r.row[0])))
        expect(ids.size).toBe(acked)
      } finally {
        await fresh.close()
      }
    } finally {
      await connection.close()
    }
  })
})
