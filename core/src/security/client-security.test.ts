import { describe, expect, it } from 'vitest'
import { Configuration } from '../config/index.js'
import { clientSecurity } from './client-security.js'
import { plainClientJaas } from './jaas.js'

const load = (values: Record<string, string>) => clientSecurity(Configuration.load(values))

describe('client.security.*', () => {
  it('is PLAINTEXT by default, and reads SASL credentials from the keys or the JAAS config', () => {
    expect(load({})).toEqual({})
    expect(
      load({
        'client.security.protocol': 'sasl',
        'client.security.sasl.username': 'alice',
        'client.security.sasl.password': 'pw',
      }),
    ).toEqual({ sasl: { mechanism: 'PLAIN', username: 'alice', password: 'pw' } })
    expect(
      load({
        'client.security.protocol': 'SASL_SSL',
        'client.security.sasl.mechanism': 'scram-sha-256',
        'client.security.sasl.jaas.config': plainClientJaas('bob', 'p"w'),
        'client.security.ssl.ca-file': '/etc/ca.pem',
      }),
    ).toEqual({
      tls: { caFile: '/etc/ca.pem' },
      sasl: { mechanism: 'SCRAM-SHA-256', username: 'bob', password: 'p"w' },
    })
  })

  it("refuses incomplete settings with Fluss's messages", () => {
    expect(() => load({ 'client.security.protocol': 'SASL', 'client.security.sasl.username': 'a' })).toThrow(
      /'client.security.sasl.username' and 'client.security.sasl.password' must be set together/,
    )
    expect(() => load({ 'client.security.protocol': 'SASL' })).toThrow(/needs credentials/)
    expect(() =>
      load({ 'client.security.protocol': 'SSL', 'client.security.ssl.certificate-file': '/c.pem' }),
    ).toThrow(/must be set together/)
    expect(() => load({ 'client.security.protocol': 'KERBEROS' })).toThrow(/client.security.protocol/)
  })

  it('a process holding the cluster secrets takes its password and CA from them', () => {
    expect(
      load({
        'client.security.protocol': 'SASL_SSL',
        'client.security.sasl.username': 'sluice-gateway',
        'client.security.ssl.server-name': 'servers.example',
        'sluice.security.sasl.plain.user.sluice-gateway': 'kept',
        'sluice.security.sasl.plain.user.other': 'not-mine',
        'sluice.security.ssl.ca': 'CA PEM',
      }),
    ).toEqual({
      tls: { ca: 'CA PEM', serverName: 'servers.example' },
      sasl: { mechanism: 'PLAIN', username: 'sluice-gateway', password: 'kept' },
    })
    expect(() =>
      load({
        'client.security.protocol': 'SASL',
        'client.security.sasl.username': 'nobody',
        'sluice.security.sasl.plain.user.other': 'not-mine',
      }),
    ).toThrow(/must be set together/)
  })
})
