import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { aclBindings, aclFilters } from './acl-commands.js'
import { CliError, clientConfig, EXIT } from './context.js'

const usageError = (fn: () => unknown) => {
  try {
    fn()
  } catch (e) {
    expect(e).toBeInstanceOf(CliError)
    expect((e as CliError).exitCode).toBe(EXIT.USAGE)
    return (e as CliError).message
  }
  throw new Error('expected a usage error')
}

describe('acl arguments', () => {
  it('makes one ALLOW binding per operation, on any host by default', () => {
    expect(aclBindings({ table: 'db.t', principal: 'User:alice', operation: ['read', 'WRITE'] })).toEqual([
      {
        resource: { type: 'TABLE', name: 'db.t' },
        entry: {
          principal: { type: 'User', name: 'alice' },
          host: '*',
          operation: 'READ',
          permission: 'ALLOW',
        },
      },
      {
        resource: { type: 'TABLE', name: 'db.t' },
        entry: {
          principal: { type: 'User', name: 'alice' },
          host: '*',
          operation: 'WRITE',
          permission: 'ALLOW',
        },
      },
    ])
    expect(
      aclBindings({ cluster: true, principal: 'User:ops', operation: ['ALTER'], host: '10.0.0.1' })[0],
    ).toEqual({
      resource: { type: 'CLUSTER', name: 'fluss-cluster' },
      entry: {
        principal: { type: 'User', name: 'ops' },
        host: '10.0.0.1',
        operation: 'ALTER',
        permission: 'ALLOW',
      },
    })
  })

  it('refuses incomplete or malformed bindings with usage errors', () => {
    expect(usageError(() => aclBindings({ principal: 'User:a', operation: ['READ'] }))).toContain(
      'needs a resource',
    )
    expect(usageError(() => aclBindings({ database: 'd', operation: ['READ'] }))).toContain('--principal')
    expect(usageError(() => aclBindings({ database: 'd', principal: 'User:a' }))).toContain('--operation')
    expect(
      usageError(() => aclBindings({ database: 'd', principal: 'alice', operation: ['READ'] })),
    ).toContain('Type:name')
    expect(
      usageError(() => aclBindings({ database: 'd', principal: 'User:a', operation: ['FLY'] })),
    ).toContain("'FLY' is not one of")
    expect(
      usageError(() => aclBindings({ database: 'd', principal: 'User:a', operation: ['ANY'] })),
    ).toContain('concrete')
    expect(
      usageError(() => aclBindings({ table: 'nodot', principal: 'User:a', operation: ['READ'] })),
    ).toContain('database.table')
    expect(
      usageError(() =>
        aclBindings({ cluster: true, database: 'd', principal: 'User:a', operation: ['READ'] }),
      ),
    ).toContain('at most one')
    expect(
      usageError(() =>
        aclBindings({ database: 'd', principal: 'User:a', operation: ['READ'], permission: 'DENY' }),
      ),
    ).toContain('ALLOW')
  })

  it('filters match anything not given', () => {
    expect(aclFilters({})).toEqual([{ resourceType: 'ANY', operation: 'ANY', permission: 'ANY' }])
    expect(
      aclFilters({ database: 'd', principal: 'User:bob', operation: ['READ', 'WRITE'], host: 'h' }),
    ).toEqual([
      {
        resourceType: 'DATABASE',
        resourceName: 'd',
        principal: { type: 'User', name: 'bob' },
        host: 'h',
        operation: 'READ',
        permission: 'ANY',
      },
      {
        resourceType: 'DATABASE',
        resourceName: 'd',
        principal: { type: 'User', name: 'bob' },
        host: 'h',
        operation: 'WRITE',
        permission: 'ANY',
      },
    ])
  })
})

describe('security options', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-cli-security-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const base = { bootstrap: 'h:1' }

  it('map onto client.security.* and override --property', () => {
    expect(
      clientConfig(
        {
          ...base,
          property: ['client.security.protocol=PLAINTEXT', 'client.security.sasl.username=old'],
          securityProtocol: 'SASL_SSL',
          saslMechanism: 'SCRAM-SHA-256',
          saslUsername: 'alice',
          saslPassword: 'pw',
          sslCaFile: '/ca.pem',
        },
        {},
      ),
    ).toEqual({
      'bootstrap.servers': 'h:1',
      'client.security.protocol': 'SASL_SSL',
      'client.security.sasl.mechanism': 'SCRAM-SHA-256',
      'client.security.sasl.username': 'alice',
      'client.security.sasl.password': 'pw',
      'client.security.ssl.ca-file': '/ca.pem',
    })
  })

  it('take the password from a file, then SLUICE_SASL_PASSWORD, and the user from SLUICE_SASL_USERNAME', () => {
    const file = join(dir, 'pw')
    writeFileSync(file, 'from-file\nignored\n')
    const env = { SLUICE_SASL_USERNAME: 'bob', SLUICE_SASL_PASSWORD: 'from-env' }
    const fromFile = clientConfig({ ...base, securityProtocol: 'SASL', saslPasswordFile: file }, env)
    expect(fromFile['client.security.sasl.password']).toBe('from-file')
    expect(fromFile['client.security.sasl.username']).toBe('bob')
    const fromEnv = clientConfig({ ...base, securityProtocol: 'SASL' }, env)
    expect(fromEnv['client.security.sasl.password']).toBe('from-env')
    // The SLUICE_SASL_* variables do not turn SASL on, nor leak into a PLAINTEXT connection.
    expect(clientConfig(base, env)).toEqual({ 'bootstrap.servers': 'h:1' })
    // A protocol from --property counts.
    expect(
      clientConfig({ ...base, property: ['client.security.protocol=SASL'] }, env)[
        'client.security.sasl.password'
      ],
    ).toBe('from-env')
  })

  it('refuse SASL or TLS flags without a protocol that uses them, and never quote a password', () => {
    const secret = 'hunter2-secret'
    const m = usageError(() => clientConfig({ ...base, saslUsername: 'a', saslPassword: secret }, {}))
    expect(m).toContain('--security-protocol SASL')
    expect(m).not.toContain(secret)
    expect(
      usageError(() => clientConfig({ ...base, securityProtocol: 'SASL', sslCaFile: '/ca' }, {})),
    ).toContain('--ssl-*')
    const missing = usageError(() =>
      clientConfig({ ...base, securityProtocol: 'SASL', saslPasswordFile: join(dir, 'missing') }, {}),
    )
    expect(missing).toContain('ENOENT')
    writeFileSync(join(dir, 'empty'), '')
    expect(
      usageError(() =>
        clientConfig({ ...base, securityProtocol: 'SASL', saslPasswordFile: join(dir, 'empty') }, {}),
      ),
    ).toContain('is empty')
  })
})
