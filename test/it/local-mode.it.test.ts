import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Connection } from '@sluice/client'
import { databaseDescriptor, Schema, TableDescriptor, tablePath } from '@sluice/core/metadata'
import { REPO_ROOT } from '@sluice/core/testing'
import { DataTypes } from '@sluice/core/types'
import { afterAll, describe, expect, it } from 'vitest'
import { startLocalMode } from './support/local-mode.js'

/**
 * `npm start` (`sluice local`) as a user meets it: quick restarts on one data directory, each
 * followed at once by DDL that needs every tablet server (replication factor 3 on 3 servers), then
 * Ctrl-C (the gateway is off here; the examples suite runs with it). Ready must mean ready, Ctrl-C must stop cleanly (tablet servers hand their leaderships
 * over before the coordinator goes), and no process prints the AWS SDK's Node-version notice.
 */
const RESTARTS = 20

describe('sluice local: readiness and Ctrl-C', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-local-mode-'))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

  it(`DDL issued the instant the ready banner is printed succeeds, ${RESTARTS} restarts in a row`, {
    timeout: 600_000,
  }, async () => {
    const descriptor = TableDescriptor.builder()
      .schema(Schema.newBuilder().column('id', DataTypes.INT()).column('name', DataTypes.STRING()).build())
      .distributedBy(2)
      .property('table.replication.factor', 3)
      .build()
    const outputs: string[] = []
    for (let i = 0; i < RESTARTS; i++) {
      const local = await startLocalMode(dataDir, { SLUICE_TIERING_INTERVAL_MS: '0', SLUICE_GATEWAY: 'off' })
      let code: number | null
      try {
        const connection = await Connection.create({ 'bootstrap.servers': local.banner.bootstrapServers })
        try {
          const admin = connection.getAdmin()
          await admin.createDatabase('restarts', databaseDescriptor(), true)
          await admin.createTable(tablePath('restarts', `t${i}`), descriptor, false)
        } finally {
          await connection.close()
        }
      } finally {
        code = await local.interrupt()
        outputs.push(local.output())
      }
      expect(code, local.output()).toBe(0)
      expect(local.output()).toMatch(/\nstopped\n/)
    }
    const logs = readdirSync(join(dataDir, 'logs')).map(f => readFileSync(join(dataDir, 'logs', f), 'utf8'))
    const everything = [...outputs, ...logs].join('\n')
    expect(everything).not.toMatch(/controlled shutdown of tablet server \d+ failed/)
    expect(everything).not.toMatch(/stops without a completed controlled shutdown/)
    expect(everything).not.toMatch(/NodeVersionSupportWarning/)
    // Every tablet server asked the coordinator to move its leaderships, at every stop.
    expect(logs.join('\n').match(/tablet server shutting down/g)?.length).toBeGreaterThanOrEqual(3 * RESTARTS)
  })
})

describe('the sluice command', () => {
  it('npx sluice --help, from the repository root, lists the commands', () => {
    const out = execFileSync('npx', ['--no-install', 'sluice', '--help'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    })
    expect(out).toMatch(/^Usage: sluice \[options\] \[command\]/)
    for (const command of ['local', 'cluster', 'db', 'table', 'produce', 'tail', 'lookup', 'scan', 'lake'])
      expect(out).toMatch(new RegExp(`^ {2}${command}\\b`, 'm'))
  })
})
