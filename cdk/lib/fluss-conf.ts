import {
  ADVERTISED_LISTENERS,
  AUTHORIZER_ENABLED,
  BIND_LISTENERS,
  BOOTSTRAP_SERVERS,
  CLIENT_SECURITY_PROTOCOL,
  CLIENT_SECURITY_SASL_USERNAME,
  CLIENT_SECURITY_SSL_SERVER_NAME,
  DATA_DIR,
  DATALAKE_FORMAT,
  DEFAULT_REPLICATION_FACTOR,
  INTERNAL_LISTENER_NAME,
  SECURITY_PROTOCOL_MAP,
  SLUICE_AWS_REGION,
  SLUICE_BLOBSTORE_URI,
  SLUICE_METASTORE_REGION,
  SLUICE_METASTORE_TABLE,
  SLUICE_METRICS_EMF_INTERVAL,
  SLUICE_METRICS_EMF_NAMESPACE,
  SLUICE_SECURITY_SSL_SERVER_NAME,
  SUPER_USERS,
  TABLET_SERVER_ID,
} from '@sluice/core/config'
import type { StageConfig } from './stages.js'

/**
 * FLUSS_CONF: the one environment variable through which services and functions receive their
 * configuration, a JSON object of registered option keys to string values. Every key used here comes
 * from core's option registry, so a deployed configuration can be checked against it (fluss-conf.test.ts).
 */
export type FlussConf = Readonly<Record<string, string>>

export const FLUSS_CONF_ENV = 'FLUSS_CONF'

/** Names of the deployed resources every process needs; CloudFormation tokens at synthesis time. */
export interface ClusterResources {
  readonly metadataTableName: string
  readonly bucketName: string
  readonly region: string
}

/** Replicas per bucket by default: three, or fewer when the stage has fewer tablet servers. */
export function defaultReplicationFactor(stage: StageConfig): number {
  return Math.min(3, stage.tabletServers.count)
}

/** What every server and function shares: where the metadata and the data live, plus the stage's options. */
export function baseFlussConf(stage: StageConfig, resources: ClusterResources): FlussConf {
  return {
    ...stage.flussOptions,
    [SLUICE_AWS_REGION.key]: resources.region,
    [SLUICE_METASTORE_REGION.key]: resources.region,
    [SLUICE_METASTORE_TABLE.key]: resources.metadataTableName,
    [SLUICE_BLOBSTORE_URI.key]: `s3://${resources.bucketName}`,
    [DEFAULT_REPLICATION_FACTOR.key]: String(defaultReplicationFactor(stage)),
    [DATALAKE_FORMAT.key]: 'iceberg',
    // Metrics reach CloudWatch as embedded-metric-format lines in the task and function logs.
    [SLUICE_METRICS_EMF_INTERVAL.key]: '60s',
    [SLUICE_METRICS_EMF_NAMESPACE.key]: 'Sluice',
    ...securityFlussConf(stage),
  }
}

/** The SASL super user whose generated password operators read from Secrets Manager. */
export const ADMIN_USER = 'admin'
/** The gateway function's principal on SASL stages (a super user: it authorizes its callers itself). */
export const GATEWAY_USER = 'sluice-gateway'

/**
 * Listeners' protocols of a stage: SASL stages get a `CLIENT` and an `INTERNAL` listener, both
 * SASL (SASL_SSL with TLS), ACLs on, and the generated `admin` and gateway users as super users
 * (beside any of the stage's `super.users`); TLS-only stages make the one `FLUSS` listener SSL.
 */
function securityFlussConf(stage: StageConfig): Record<string, string> {
  const { sasl, tls } = stage.security
  const out: Record<string, string> = {}
  if (sasl === true) {
    const protocol = tls === undefined ? 'SASL' : 'SASL_SSL'
    const superUsers = (stage.flussOptions[SUPER_USERS.key] ?? '')
      .split(';')
      .map(u => u.trim())
      .filter(u => u !== '')
    for (const u of [`User:${ADMIN_USER}`, `User:${GATEWAY_USER}`])
      if (!superUsers.includes(u)) superUsers.push(u)
    Object.assign(out, {
      [INTERNAL_LISTENER_NAME.key]: 'INTERNAL',
      [SECURITY_PROTOCOL_MAP.key]: `CLIENT:${protocol},INTERNAL:${protocol}`,
      [AUTHORIZER_ENABLED.key]: 'true',
      [SUPER_USERS.key]: superUsers.join(';'),
    })
  } else if (tls !== undefined) {
    out[SECURITY_PROTOCOL_MAP.key] = 'FLUSS:SSL'
  }
  if (tls !== undefined) out[SLUICE_SECURITY_SSL_SERVER_NAME.key] = tls.serverName
  return out
}

/**
 * The client options of the gateway function on a secured stage: its protocol, its SASL user
 * (the password comes from its credential secret at cold start) and the certificate name.
 */
export function gatewayClientFlussConf(stage: StageConfig): FlussConf {
  const { sasl, tls } = stage.security
  if (sasl !== true && tls === undefined) return {}
  const protocol = sasl === true ? (tls === undefined ? 'SASL' : 'SASL_SSL') : 'SSL'
  return {
    [CLIENT_SECURITY_PROTOCOL.key]: protocol,
    ...(sasl === true ? { [CLIENT_SECURITY_SASL_USERNAME.key]: GATEWAY_USER } : {}),
    ...(tls === undefined ? {} : { [CLIENT_SECURITY_SSL_SERVER_NAME.key]: tls.serverName }),
  }
}

/** Port of the INTERNAL listener of SASL stages (see network.ts). */
const INTERNAL_PORT = 9124

/**
 * `NAME://host:port` listener notation: `FLUSS` on `port`, or on SASL stages (`base` names an
 * internal listener) `CLIENT` on `port` plus `INTERNAL` on 9124.
 */
export function listener(host: string, port: number, base: FlussConf = {}): string {
  return base[INTERNAL_LISTENER_NAME.key] === 'INTERNAL'
    ? `CLIENT://${host}:${port},INTERNAL://${host}:${INTERNAL_PORT}`
    : `FLUSS://${host}:${port}`
}

/**
 * The coordinator binds every interface; it has no static advertised address because its two tasks
 * share one service, so it publishes its task address at run time.
 */
export function coordinatorFlussConf(base: FlussConf, port: number): FlussConf {
  return { ...base, [BIND_LISTENERS.key]: listener('0.0.0.0', port, base) }
}

/** A tablet server: its stable id, its data volume and the DNS name clients reach it by. */
export function tabletServerFlussConf(
  base: FlussConf,
  server: { serverId: number; advertisedHost: string; dataDir: string; port: number },
): FlussConf {
  return {
    ...base,
    [TABLET_SERVER_ID.key]: String(server.serverId),
    [BIND_LISTENERS.key]: listener('0.0.0.0', server.port, base),
    [ADVERTISED_LISTENERS.key]: listener(server.advertisedHost, server.port, base),
    [DATA_DIR.key]: server.dataDir,
  }
}

/**
 * Lake catalog keys (Fluss passes `datalake.<format>.*` through to the lake format): Iceberg tables are
 * registered in AWS Glue, all in the stage's Glue database as `<fluss database>__<table>`, which is
 * the one database the functions are granted.
 */
export const LAKE_CATALOG_TYPE_KEY = 'datalake.iceberg.type'
export const LAKE_GLUE_DATABASE_KEY = 'datalake.iceberg.glue.database'

/** Functions are cluster clients: they bootstrap through the load balancer. */
export function functionFlussConf(
  base: FlussConf,
  bootstrapServers: string,
  glueDatabase?: string,
): FlussConf {
  const lake: FlussConf =
    glueDatabase === undefined
      ? {}
      : { [LAKE_CATALOG_TYPE_KEY]: 'glue', [LAKE_GLUE_DATABASE_KEY]: glueDatabase }
  return { ...base, [BOOTSTRAP_SERVERS.key]: bootstrapServers, ...lake }
}
