import { generatePassword } from '@sluice/cli/cluster'
import { ANY_ACL_FILTER, tableResource, userPrincipal } from '@sluice/client'
import { describe, expect, it } from 'vitest'
import { allTypesLogTable } from './dataset.js'
import type { VerifyResult } from './drivers/driver.js'
import { COMPAT_ADMIN, compatSuite } from './harness.js'
import { BUCKETS } from './log-checks.js'

/**
 * Issue 18: SASL/PLAIN and ACLs through the official Java client and pyfluss. The cluster runs a
 * SASL CLIENT listener (what the drivers bootstrap from) and a SASL INTERNAL one, with
 * `authorizer.enabled` and `admin` as the super user.
 */
const USERS = { [COMPAT_ADMIN]: generatePassword(), reader: generatePassword() }
const ROWS = 500
const AUTHENTICATE_EXCEPTION = 46
const AUTHORIZATION_EXCEPTION = 48

const { env, db } = await compatSuite('security', [], {
  security: { users: USERS, superUsers: [COMPAT_ADMIN] },
  // The failed logins below all come from 127.0.0.1; keep them under the per-address limit.
  serverConfig: {
    'sluice.security.authentication.max-failures': '1000',
    'sluice.acl.refresh-interval': '200ms',
  },
})
const reader = env.as('reader')
const wrongPassword = { 'client.security.sasl.password': 'not-the-password' }

function expectAll(result: VerifyResult): void {
  expect(result.mismatches).toEqual([])
  expect([result.ok, result.rows]).toEqual([true, ROWS])
}

/** Runs `check` until it passes (ACL changes reach the tablet servers within their refresh interval). */
async function eventually(check: () => Promise<void>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await check()
    } catch (e) {
      if (Date.now() > deadline) throw e
      await new Promise(r => setTimeout(r, 300))
    }
  }
}

describe('SASL/PLAIN with the official clients', () => {
  it('lets the right password through: the Java client writes and both clients read it back', async () => {
    await env.java.createTable(db, 'readable', allTypesLogTable(BUCKETS))
    await env.java.createTable(db, 'hidden', allTypesLogTable(BUCKETS))
    await env.java.write(db, 'readable', ROWS)
    expectAll(await env.java.verify(db, 'readable', ROWS))
    expectAll(await env.python.verify(db, 'readable', ROWS))
  })

  it('refuses a wrong password and an unknown user with AuthenticationException', async () => {
    const java = env.java.withClientConf({ ...env.java.clientConf, ...wrongPassword })
    expect((await java.failure(['list-tables', db])).error).toMatch(
      /AuthenticationException.*Invalid username or password/,
    )
    const unknown = env.java.withClientConf({
      ...env.java.clientConf,
      'client.security.sasl.username': 'mallory',
    })
    expect((await unknown.failure(['list-tables', db])).error).toMatch(/AuthenticationException/)
    const python = env.python.withClientConf({ ...env.python.clientConf, 'security.sasl.password': 'nope' })
    expect((await python.failure(['list-tables', db])).errorCode).toBe(AUTHENTICATE_EXCEPTION)
    const pyUnknown = env.python.withClientConf({
      ...env.python.clientConf,
      'security.sasl.username': 'mallory',
    })
    expect((await pyUnknown.failure(['list-tables', db])).errorCode).toBe(AUTHENTICATE_EXCEPTION)
  })

  it('refuses a client that skips AUTHENTICATE (client.security.protocol=PLAINTEXT)', async () => {
    const java = env.java.withClientConf({})
    expect((await java.failure(['list-tables', db])).error).toMatch(
      /AuthenticationException.*has not completed authentication/,
    )
    const python = env.python.withClientConf({})
    expect((await python.failure(['list-tables', db])).errorCode).toBe(AUTHENTICATE_EXCEPTION)
  })
})

describe('ACLs with the official clients', () => {
  it('a user with only READ on one table reads it, cannot write it, sees only it, cannot create tables', async () => {
    const admin = env.sdk.connection.getAdmin()
    const granted = await admin.createAcls([
      {
        resource: tableResource({ databaseName: db, tableName: 'readable' }),
        entry: { principal: userPrincipal('reader'), host: '*', operation: 'READ', permission: 'ALLOW' },
      },
    ])
    expect(granted.map(g => g.error)).toEqual([undefined])
    // LIST_ACLS goes to any server: a tablet server sees the change within its refresh interval.
    await eventually(async () => expect(await admin.listAcls(ANY_ACL_FILTER)).toHaveLength(1))
    await eventually(async () => expectAll(await reader.java.verify(db, 'readable', ROWS)))
    expectAll(await reader.python.verify(db, 'readable', ROWS))

    expect((await reader.java.failure(['write', db, 'readable', '10'])).error).toMatch(
      /AuthorizationException.*operate WRITE on resource TABLE '.*\.readable'/,
    )
    const pyWrite = await reader.python.failure(['write', db, 'readable', '10'])
    // pyfluss reports the refused INIT_WRITER (WRITE on the table) inside a client error.
    expect(pyWrite.error).toMatch(/code: 48, message: .*operate WRITE on resource TABLE '.*\.readable'/)
    expectAll(await env.java.verify(db, 'readable', ROWS))

    expect(await reader.java.listTables(db)).toEqual(['readable'])
    expect(await reader.python.listTables(db)).toEqual(['readable'])
    expect(await env.java.listTables(db)).toEqual(['hidden', 'readable'])

    const spec = env.java.file('spec', allTypesLogTable(1))
    expect((await reader.java.failure(['create-table', db, 'mine', spec])).error).toMatch(
      /AuthorizationException.*operate CREATE on resource DATABASE/,
    )
    expect((await reader.python.failure(['create-table', db, 'mine', spec])).errorCode).toBe(
      AUTHORIZATION_EXCEPTION,
    )
    expect(await env.java.listTables(db)).toEqual(['hidden', 'readable'])
  })
})
