import {
  type Configuration,
  FLUSS_CONF_ENV,
  loadServerConfig,
  SLUICE_SECRET_ARNS_ENV,
} from '@sluice/core/config'
import { secretsManagerReader, secretVariables } from './aws-secrets.js'
import { connectClusterBackend } from './backend/cluster-backend.js'
import { createLambdaApp, lambdaHandler } from './lambda.js'

/** The configuration from FLUSS_CONF (with SLUICE_SECRET_ARNS, the only environment variables the gateway reads). */
function loadConfig(): Configuration {
  return loadServerConfig({ env: { [FLUSS_CONF_ENV]: process.env[FLUSS_CONF_ENV] } }).config
}

/**
 * The configuration with the secrets named by SLUICE_SECRET_ARNS (the gateway's SASL password, the
 * servers' CA on secured stages), read from Secrets Manager once per container.
 */
async function loadConfigWithSecrets(): Promise<Configuration> {
  const arns = process.env[SLUICE_SECRET_ARNS_ENV]
  const secrets = arns === undefined ? {} : await secretVariables(arns, secretsManagerReader())
  return loadServerConfig({ env: { [FLUSS_CONF_ENV]: process.env[FLUSS_CONF_ENV], ...secrets } }).config
}

/** The configuration for the handler's own settings; a bad FLUSS_CONF fails the boot instead. */
function handlerConfig(): Configuration | undefined {
  try {
    return loadConfig()
  } catch {
    return undefined
  }
}

/**
 * Lambda entry point of the HTTP gateway (API Gateway HTTP API, payload format 2.0). The SDK
 * connection is made on demand and reused by every later invocation in the same container;
 * `/health` and `/ready` answer while it is being made or cannot be made.
 */
export const handler = lambdaHandler(
  async () => {
    const config = await loadConfigWithSecrets()
    const { backend } = await connectClusterBackend(config)
    return createLambdaApp({ backend, config })
  },
  { config: handlerConfig() },
)
