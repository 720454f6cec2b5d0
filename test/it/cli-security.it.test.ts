import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generatePassword } from '@sluice/cli/cluster'
import { Connection } from '@sluice/client'
import { type AclBindingFilter, allowUser, databaseResource, tableResource } from '@sluice/core/security'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { uniqueName, waitUntil } from '../harness/index.js'
import { sluice } from './support/cli.js'
import { startReadyCluster, type TestCluster } from './support/cluster.js'

/** The sluice binary against a SASL cluster with ACLs on: security options and the acl commands; the SDK's dropAcls. */
describe('the sluice binary against a SASL cluster', () => {
  const adminPassword = generatePassword()
  const alicePassword = generatePassword()
  let tc: TestCluster
  let dir: string
  let bootstrap: string
  let db: string
  const as = (user: 'admin' | 'alice', ...args: string[]) =>
    sluice(['--security-protocol', 'SASL', '--sasl-username', user, ...args], {
      env: {
        SLUICE_BOOTSTRAP: bootstrap,
        SLUICE_SASL_PASSWORD: user === 'admin' ? adminPassword : alicePassword,
      },
    })
  const ok = async (user: 'admin' | 'alice', ...args: string[]) => {
    const r = await as(user, ...args)
    expect(r.code, `sluice ${args.join(' ')}\n${r.stderr}`).toBe(0)
    return r
  }
  const json = async (user: 'admin' | 'alice', ...args: string[]) =>
    JSON.parse((await ok(user, '--output', 'json', ...args)).stdout)

  beforeAll(async () => {
    tc = await startReadyCluster({
      tabletServers: 1,
      prefix: 'sluice-it-cli-sasl',
      serverConfig: { 'default.replication.factor': '1', 'sluice.acl.refresh-interval': '100ms' },
      security: { users: { admin: adminPassword, alice: alicePassword }, superUsers: ['admin'] },
      sdkConfig: {
        'client.security.protocol': 'SASL',
        'client.security.sasl.username': 'admin',
        'client.security.sasl.password': adminPassword,
      },
    })
    bootstrap = tc.cluster.bootstrapServers
    dir = mkdtempSync(join(tmpdir(), 'sluice-cli-sasl-'))
    db = uniqueName('cli_sasl')
  })

  afterAll(async () => {
    await tc?.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('connects with --sasl-* options, a password file or SLUICE_SASL_PASSWORD; refuses others and never prints a password', async () => {
    const anonymous = await sluice(['db', 'list'], { env: { SLUICE_BOOTSTRAP: bootstrap } })
    expect(anonymous.code).toBe(1)
    expect(anonymous.stderr).toContain('AUTHENTICATE_EXCEPTION')

    const wrong = 'not-the-password-1234'
    const refused = await sluice(
      ['--security-protocol', 'SASL', '--sasl-username', 'admin', '--sasl-password', wrong, 'db', 'list'],
      { env: { SLUICE_BOOTSTRAP: bootstrap } },
    )
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('AUTHENTICATE_EXCEPTION')
    expect(refused.stdout + refused.stderr).not.toContain(wrong)

    await ok('admin', 'db', 'create', db)
    expect(await json('admin', 'db', 'list')).toContain(db)

    const file = join(dir, 'admin.pw')
    writeFileSync(file, `${adminPassword}\n`, { mode: 0o600 })
    const fromFile = await sluice(
      ['--security-protocol', 'SASL', '--sasl-username', 'admin', '--sasl-password-file', file, 'db', 'list'],
      { env: { SLUICE_BOOTSTRAP: bootstrap } },
    )
    expect(fromFile.code, fromFile.stderr).toBe(0)
    expect(fromFile.stdout).toContain(db)
    for (const r of [fromFile, await as('admin', 'db', 'list')])
      expect(r.stdout + r.stderr).not.toContain(adminPassword)

    const flagsWithoutSasl = await sluice(['--sasl-username', 'admin', 'db', 'list'], {
      env: { SLUICE_BOOTSTRAP: bootstrap },
    })
    expect(flagsWithoutSasl.code).toBe(2)
  })

  it('acl create, list and drop with --output json; the ACLs decide what a user sees and may do', async () => {
    await ok('admin', 'db', 'create', db, '--if-not-exists')
    await ok('admin', 'table', 'create', `${db}.events`, '--column', 'id:BIGINT', '--column', 'v:STRING')
    await ok('admin', 'table', 'create', `${db}.secret`, '--column', 'id:BIGINT')

    // Without ACLs alice sees no table and cannot create one.
    expect(await json('alice', 'table', 'list', db)).toEqual([])
    const denied = await as(
      'alice',
      'acl',
      'create',
      '--cluster',
      '--principal',
      'User:alice',
      '--operation',
      'ALL',
    )
    expect(denied.code).toBe(1)
    expect(denied.stderr).toContain('AUTHORIZATION_EXCEPTION')

    const created = await json(
      'admin',
      'acl',
      'create',
      '--table',
      `${db}.events`,
      '--principal',
      'User:alice',
      '--operation',
      'READ',
      '--operation',
      'DESCRIBE',
    )
    const entry = (operation: string) => ({
      resourceType: 'TABLE',
      resource: `${db}.events`,
      principal: 'User:alice',
      host: '*',
      operation,
      permission: 'ALLOW',
    })
    expect(created).toEqual([entry('READ'), entry('DESCRIBE')])
    const listed = await json('admin', 'acl', 'list', '--principal', 'User:alice')
    expect(
      listed.sort((a: { operation: string }, b: { operation: string }) =>
        a.operation.localeCompare(b.operation),
      ),
    ).toEqual([entry('DESCRIBE'), entry('READ')])
    expect(await json('admin', 'acl', 'list', '--principal', 'User:alice', '--operation', 'WRITE')).toEqual(
      [],
    )
    expect((await ok('admin', 'acl', 'list', '--table', `${db}.events`)).stdout).toMatch(
      /TABLE .*│ .*events.*│ User:alice/s,
    )

    // Alice now sees the table she may read, but still cannot write it.
    await waitUntil(async () => (await json('alice', 'table', 'list', db)).includes('events'), {
      timeoutMs: 10_000,
      intervalMs: 200,
      what: 'the ACL to reach the servers',
    })
    expect(await json('alice', 'table', 'list', db)).toEqual(['events'])
    const write = await sluice(
      ['--security-protocol', 'SASL', '--sasl-username', 'alice', 'produce', `${db}.events`],
      {
        env: { SLUICE_BOOTSTRAP: bootstrap, SLUICE_SASL_PASSWORD: alicePassword },
        input: '{"id": 1, "v": "x"}\n',
      },
    )
    expect(write.code).toBe(1)
    expect(write.stderr).toContain('AUTHORIZATION_EXCEPTION')

    // Dropping needs a filter (or --all); a bad operation is a usage error.
    expect((await as('admin', 'acl', 'drop')).code).toBe(2)
    expect((await as('admin', 'acl', 'list', '--operation', 'FLY')).code).toBe(2)

    const dropped = await json('admin', 'acl', 'drop', '--principal', 'User:alice', '--operation', 'READ')
    expect(dropped).toEqual([entry('READ')])
    expect(await json('admin', 'acl', 'list', '--principal', 'User:alice')).toEqual([entry('DESCRIBE')])
    expect(await json('admin', 'acl', 'drop', '--table', `${db}.events`)).toEqual([entry('DESCRIBE')])
    expect(await json('admin', 'acl', 'list')).toEqual([])
    await waitUntil(async () => (await json('alice', 'table', 'list', db)).length === 0, {
      timeoutMs: 10_000,
      intervalMs: 200,
      what: 'the dropped ACL to reach the servers',
    })
  })

  it('SDK dropAcls removes exactly what its filters match, and a user without ALTER cannot drop', async () => {
    const sasl = (user: string, password: string) => ({
      'bootstrap.servers': bootstrap,
      'client.security.protocol': 'SASL',
      'client.security.sasl.username': user,
      'client.security.sasl.password': password,
    })
    const admin = await Connection.create(sasl('admin', adminPassword))
    const alice = await Connection.create(sasl('alice', alicePassword))
    try {
      const path = { databaseName: db, tableName: 'events' }
      const bindings = [
        allowUser(tableResource(path), 'READ', 'alice'),
        allowUser(tableResource(path), 'WRITE', 'alice'),
        allowUser(databaseResource(db), 'DESCRIBE', 'bob'),
      ]
      expect((await admin.getAdmin().createAcls(bindings)).map(r => r.error)).toEqual([
        undefined,
        undefined,
        undefined,
      ])
      const aliceOnTable: AclBindingFilter = {
        resourceType: 'TABLE',
        resourceName: `${db}.events`,
        principal: { type: 'User', name: 'alice' },
        operation: 'ANY',
        permission: 'ANY',
      }
      // Alice may not drop ACLs (no ALTER): the filter is refused, nothing is dropped.
      const refused = await alice
        .getAdmin()
        .dropAcls([aliceOnTable])
        .then(
          r => r.flatMap(f => f.matches.map(m => m.error?.errorName)),
          e => [e.errorName],
        )
      expect(refused.every(name => name === 'AUTHORIZATION_EXCEPTION') && refused.length > 0).toBe(true)
      // LIST_ACLS may be answered by any server, each within one ACL refresh of the change.
      const listed = async (count: number) => {
        await waitUntil(async () => (await admin.getAdmin().listAcls()).length === count, {
          timeoutMs: 10_000,
          intervalMs: 100,
          what: `${count} ACL entries listed`,
        })
        return admin.getAdmin().listAcls()
      }
      expect(await listed(3)).toHaveLength(3)

      const [dropped, none] = await admin
        .getAdmin()
        .dropAcls([aliceOnTable, { resourceType: 'CLUSTER', operation: 'ANY', permission: 'ANY' }])
      expect(dropped.matches.map(m => m.binding.entry.operation).sort()).toEqual(['READ', 'WRITE'])
      expect(dropped.matches.every(m => m.error === undefined)).toBe(true)
      expect(none.matches).toEqual([])
      expect(await listed(1)).toEqual([bindings[2]])
      // Dropping again matches nothing.
      expect((await admin.getAdmin().dropAcls([aliceOnTable]))[0].matches).toEqual([])
      const [all] = await admin
        .getAdmin()
        .dropAcls([{ resourceType: 'ANY', operation: 'ANY', permission: 'ANY' }])
      expect(all.matches.map(m => m.binding)).toEqual([bindings[2]])
      expect(await listed(0)).toEqual([])
    } finally {
      await alice.close()
      await admin.close()
    }
  })
})
