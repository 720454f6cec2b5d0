import { loadServerConfig } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'
import { clientSecurity } from '@sluice/core/security'
import { describe, expect, it } from 'vitest'
import { secretVariables } from './aws-secrets.js'

describe('secrets read at cold start', () => {
  const store: Record<string, string> = {
    'arn:gateway': JSON.stringify({ 'sluice.security.sasl.plain.user.sluice-gateway': 'generated-pw' }),
    'arn:ca': JSON.stringify({ 'sluice.security.ssl.ca': 'CA PEM' }),
  }
  const reader = async (id: string) => {
    const v = store[id]
    if (v === undefined)
      throw Object.assign(new Error('Secrets Manager can not find the specified secret.'), {
        name: 'ResourceNotFoundException',
      })
    return v
  }

  it('give the gateway its SASL password and the CA of a secured stage', async () => {
    const secrets = await secretVariables(' arn:gateway, arn:ca ', reader)
    expect(Object.keys(secrets)).toEqual(['SLUICE_SECRETS_ARN0', 'SLUICE_SECRETS_ARN1'])
    const { config } = loadServerConfig({
      env: {
        FLUSS_CONF: JSON.stringify({
          'client.security.protocol': 'SASL_SSL',
          'client.security.sasl.username': 'sluice-gateway',
          'client.security.ssl.server-name': 'servers.sluice',
        }),
        ...secrets,
      },
    })
    expect(clientSecurity(config)).toEqual({
      tls: { ca: 'CA PEM', serverName: 'servers.sluice' },
      sasl: { mechanism: 'PLAIN', username: 'sluice-gateway', password: 'generated-pw' },
    })
    expect(await secretVariables(undefined, reader)).toEqual({})
  })

  it('fail the cold start naming the secret, never quoting a value', async () => {
    const e = await secretVariables('arn:missing', reader).catch(x => x)
    expect(e).toBeInstanceOf(FlussError)
    expect(e.message).toBe(
      'Cannot read secret arn:missing: ResourceNotFoundException: Secrets Manager can not find the specified secret.',
    )
    store['arn:bad'] = JSON.stringify({ 'bind.listeners': 'X://h:1' })
    const secrets = await secretVariables('arn:bad', reader)
    expect(() => loadServerConfig({ env: secrets })).toThrow(/'bind.listeners' is not a secret option/)
  })
})
