import {
  ADVERTISED_LISTENERS,
  AUTHORIZER_ENABLED,
  BIND_LISTENERS,
  BOOTSTRAP_SERVERS,
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
    ...(stage.security.sasl === true
      ? {
          [INTERNAL_LISTENER_NAME.key]: 'INTERNAL',
          [SECURITY_PROTOCOL_MAP.key]: 'CLIENT:SASL,INTERNAL:SASL',
          [AUTHORIZER_ENABLED.key]: 'true',
        }
      : {}),
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
