import { Stack } from 'aws-cdk-lib'
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import * as ecrAssets from 'aws-cdk-lib/aws-ecr-assets'
import * as ecs from 'aws-cdk-lib/aws-ecs'
import type * as iam from 'aws-cdk-lib/aws-iam'
import type * as s3 from 'aws-cdk-lib/aws-s3'
import { Construct } from 'constructs'
import { coordinatorFlussConf, FLUSS_CONF_ENV, type FlussConf, tabletServerFlussConf } from '../fluss-conf.js'
import type { StageConfig } from '../stages.js'
import { DATA_PREFIXES } from '../stateful/data-bucket.js'
import { BootstrapLoadBalancer } from './bootstrap-load-balancer.js'
import { CoordinatorService } from './coordinator-service.js'
import { FLUSS_RPC_PORT, type SluiceNetwork } from './network.js'
import { TABLET_DATA_DIR, TabletServers } from './tablet-servers.js'

export interface SluiceClusterProps {
  readonly stage: StageConfig
  readonly network: SluiceNetwork
  /** Docker build context holding the root Dockerfile. */
  readonly repoRoot: string
  readonly table: dynamodb.ITable
  readonly bucket: s3.IBucket
  /** FLUSS_CONF shared by every server; each role adds its own listeners and identity. */
  readonly baseConf: FlussConf
}

/**
 * The Fluss cluster on ECS: one server image, the coordinator service, the tablet servers with their
 * Cloud Map names, and the bootstrap load balancer in front of them.
 */
export class SluiceCluster extends Construct {
  readonly cluster: ecs.Cluster
  readonly coordinator: CoordinatorService
  readonly tabletServers: TabletServers
  readonly bootstrap: BootstrapLoadBalancer

  constructor(scope: Construct, id: string, props: SluiceClusterProps) {
    super(scope, id)
    const { stage, network } = props
    this.cluster = new ecs.Cluster(this, 'Cluster', {
      vpc: network.vpc,
      containerInsightsV2: ecs.ContainerInsights.ENABLED,
    })
    const namespace = this.cluster.addDefaultCloudMapNamespace({
      name: `${stage.name}.sluice.internal`,
      vpc: network.vpc,
    })
    const platform = ecsPlatform(stage)
    const image = ecs.ContainerImage.fromDockerImageAsset(
      new ecrAssets.DockerImageAsset(this, 'Image', {
        directory: props.repoRoot,
        file: 'Dockerfile',
        platform: platform.assetPlatform,
      }),
    )
    const env = (conf: FlussConf) => ({ [FLUSS_CONF_ENV]: Stack.of(this).toJsonString(conf) })
    const common = {
      cluster: this.cluster,
      image,
      cpuArchitecture: platform.cpuArchitecture,
      securityGroup: network.serverSecurityGroup,
      subnets: network.privateSubnets,
      logRetention: stage.logRetention,
    }
    this.bootstrap = new BootstrapLoadBalancer(this, 'Bootstrap', {
      vpc: network.vpc,
      subnets: network.privateSubnets,
      clientPeers: network.clientPeers,
      targetSecurityGroup: network.serverSecurityGroup,
    })
    this.coordinator = new CoordinatorService(this, 'Coordinator', {
      ...common,
      size: stage.coordinator,
      taskCount: stage.coordinator.taskCount,
      environment: env(coordinatorFlussConf(props.baseConf, FLUSS_RPC_PORT)),
    })
    this.tabletServers = new TabletServers(this, 'TabletServers', {
      ...common,
      config: stage.tabletServers,
      namespace,
      bootstrapTargetGroup: this.bootstrap.targetGroup,
      environmentFor: identity =>
        env(
          tabletServerFlussConf(props.baseConf, {
            ...identity,
            dataDir: TABLET_DATA_DIR,
            port: FLUSS_RPC_PORT,
          }),
        ),
    })
    for (const role of this.serverRoles()) grantServerData(role, props.table, props.bucket)
  }

  private serverRoles(): iam.IRole[] {
    return [this.coordinator.taskDefinition, ...this.tabletServers.taskDefinitions].map(t => t.taskRole)
  }
}

/**
 * Servers read and write the metadata table, remote log segments and KV snapshots (the coordinator
 * also deletes them when a table is dropped); the lake belongs to the tiering function.
 */
function grantServerData(role: iam.IRole, table: dynamodb.ITable, bucket: s3.IBucket): void {
  table.grantReadWriteData(role)
  bucket.grantReadWrite(role, `${DATA_PREFIXES.remoteLog}*`)
  bucket.grantReadWrite(role, `${DATA_PREFIXES.kvSnapshots}*`)
}

function ecsPlatform(stage: StageConfig): {
  cpuArchitecture: ecs.CpuArchitecture
  assetPlatform: ecrAssets.Platform
} {
  return stage.cpuArchitecture === 'ARM64'
    ? { cpuArchitecture: ecs.CpuArchitecture.ARM64, assetPlatform: ecrAssets.Platform.LINUX_ARM64 }
    : { cpuArchitecture: ecs.CpuArchitecture.X86_64, assetPlatform: ecrAssets.Platform.LINUX_AMD64 }
}
