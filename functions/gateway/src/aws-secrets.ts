import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager'
import { SLUICE_SECRETS_ENV_PREFIX } from '@sluice/core/config'
import { FlussError } from '@sluice/core/errors'

/** Reads one secret's text by ARN or name. */
export type SecretReader = (secretId: string) => Promise<string>

/** Secrets Manager's GetSecretValue (region and credentials of the function's environment). */
export function secretsManagerReader(client = new SecretsManagerClient({})): SecretReader {
  return async secretId => {
    const answer = await client.send(new GetSecretValueCommand({ SecretId: secretId }))
    if (answer.SecretString === undefined)
      throw new FlussError('INVALID_CONFIG_EXCEPTION', `Secret ${secretId} has no text value`)
    return answer.SecretString
  }
}

/**
 * The secrets named by `arns` (comma-separated; SLUICE_SECRET_ARNS), read once, as the
 * `SLUICE_SECRETS_<NAME>` variables loadServerConfig takes: each must be a JSON object of secret
 * option keys, which loadServerConfig checks. A secret that cannot be read fails the cold start
 * with its ARN named (never its value).
 */
export async function secretVariables(
  arns: string | undefined,
  read: SecretReader,
): Promise<Record<string, string>> {
  const ids = (arns ?? '')
    .split(',')
    .map(s => s.trim())
    .filter(s => s !== '')
  const out: Record<string, string> = {}
  for (const [i, id] of ids.entries()) {
    try {
      out[`${SLUICE_SECRETS_ENV_PREFIX}ARN${i}`] = await read(id)
    } catch (e) {
      if (e instanceof FlussError) throw e
      throw new FlussError(
        'INVALID_CONFIG_EXCEPTION',
        `Cannot read secret ${id}: ${e instanceof Error ? e.name : 'error'}: ${e instanceof Error ? e.message : String(e)}`,
      )
    }
  }
  return out
}
