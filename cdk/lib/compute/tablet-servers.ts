import { TABLET_SERVER_NODE_FLAGS } from '@sluice/core/config'
import { Duration, Size } from 'aws-cdk-lib'
import * as ec2 from 'aws-cdk-lib/aws-ec2'
import * as ecs from 'aws-cdk-lib/aws-ecs'
import type * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2'
import * as iam from 'aws-cdk-lib/aws-iam'
import * as logs from 'aws-cdk-lib/aws-logs'
import * as cloudmap from 'aws-cdk-lib/aws-servicediscovery'
import { Construct } from 'constructs'
import type { TabletServersConfig } from '../stages.js'
import { FLUSS_RPC_PORT } from './network.js'
import { SERVER_CONTAINER_NAME, ServerTask } from './server-task.js'

export const TABLET_SERVER_COMMAND: readonly string[] = [
  'node',
  ...TABLET_SERVER_NODE_FLAGS,
  'services/tablet/dist/main.js',
]

/** Mount point of the data volume in the tablet server container (the `data.dir` of the server). */
export const TABLET_DATA_DIR = '/data'

/** uid:gid of the image's non-root `node` user, which must own the fresh data volume. */
const SERVER_USER = '1000:1000'

/** Per-server identity: the stable id and the DNS name clients use to reach it. */
export interface TabletServerIdentity {
  readonly serverId: number
  readonly advertisedHost: string
}

export interface TabletServersProps {
  readonly cluster: ecs.ICluster
  readonly image: ecs.ContainerImage
  readonly cpuArchitecture: ecs.CpuArchitecture
  readonly config: TabletServersConfig
  readonly namespace: cloudmap.INamespace
  readonly securityGroup: ec2.ISecurityGroup
  readonly subnets: ec2.SubnetSelection
  readonly logRetention: logs.RetentionDays
  /** Environment of one server, built from its identity (FLUSS_CONF with its id and listener). */
  readonly environmentFor: (identity: TabletServerIdentity) => Readonly<Record<string, string>>
  readonly secrets?: Readonly<Record<string, ecs.Secret>>
  /** Bootstrap target group of the load balancer; every server is registered in it. */
  readonly bootstrapTargetGroup: elbv2.INetworkTargetGroup
}

/**
 * Tablet servers, one ECS service per server id. A service of one task gives each server a stable
 * identity (its id and its Cloud Map name `tablet-<id>.<namespace>`) across task replacements, while
 * the ECS-managed EBS volume gives it local disk for segments and RocksDB. The services are chained so
 * that a deployment replaces one server at a time.
 */
export class TabletServers extends Construct {
  readonly services: ecs.FargateService[] = []
  readonly taskDefinitions: ecs.FargateTaskDefinition[] = []

  constructor(scope: Construct, id: string, props: TabletServersProps) {
    super(scope, id)
    const logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention })
    const volumeRole = new iam.Role(this, 'VolumeRole', {
      assumedBy: new iam.ServicePrincipal('ecs.amazonaws.com'),
      managedPolicies: [
        iam.ManagedPolicy.fromAwsManagedPolicyName(
          'service-role/AmazonECSInfrastructureRolePolicyForVolumes',
        ),
      ],
    })
    for (let serverId = 0; serverId < props.config.count; serverId++) {
      const service = this.addServer(serverId, props, logGroup, volumeRole)
      const previous = this.services.at(-1)
      if (previous !== undefined) service.node.addDependency(previous)
      this.services.push(service)
    }
  }

  /** DNS name under which server `serverId` registers in `namespaceName`. */
  static advertisedHost(serverId: number, namespaceName: string): string {
    return `tablet-${serverId}.${namespaceName}`
  }

  private addServer(
    serverId: number,
    props: TabletServersProps,
    logGroup: logs.ILogGroup,
    volumeRole: iam.IRole,
  ): ecs.FargateService {
    const scope = new Construct(this, `Server${serverId}`)
    const identity = {
      serverId,
      advertisedHost: TabletServers.advertisedHost(serverId, props.namespace.namespaceName),
    }
    const task = new ServerTask(scope, 'Task', {
      image: props.image,
      command: TABLET_SERVER_COMMAND,
      size: props.config,
      cpuArchitecture: props.cpuArchitecture,
      environment: props.environmentFor(identity),
      ...(props.secrets === undefined ? {} : { secrets: props.secrets }),
      logGroup,
      streamPrefix: `tablet-${serverId}`,
    })
    this.taskDefinitions.push(task.taskDefinition)
    const volume = this.dataVolume(scope, props.config, volumeRole)
    task.taskDefinition.addVolume(volume)
    volume.mountIn(task.container, { containerPath: TABLET_DATA_DIR, readOnly: false })
    this.addVolumeOwnerInit(
      task,
      volume,
      props.image,
      ecs.LogDrivers.awsLogs({ logGroup, streamPrefix: `tablet-${serverId}` }),
    )

    const service = new ecs.FargateService(scope, 'Service', {
      cluster: props.cluster,
      taskDefinition: task.taskDefinition,
      desiredCount: 1,
      // Never two tasks with the same server id: the old task stops before its replacement starts.
      minHealthyPercent: 0,
      maxHealthyPercent: 100,
      circuitBreaker: { enable: true, rollback: true },
      securityGroups: [props.securityGroup],
      vpcSubnets: props.subnets,
      assignPublicIp: false,
      healthCheckGracePeriod: Duration.seconds(120),
      cloudMapOptions: {
        cloudMapNamespace: props.namespace,
        name: `tablet-${serverId}`,
        dnsRecordType: cloudmap.DnsRecordType.A,
        dnsTtl: Duration.seconds(10),
      },
    })
    service.addVolume(volume)
    // One task per service: rebalancing across AZs could only move a server by stopping it.
    const cfnService = service.node.defaultChild as ecs.CfnService
    cfnService.availabilityZoneRebalancing = 'DISABLED'
    props.bootstrapTargetGroup.addTarget(
      service.loadBalancerTarget({ containerName: SERVER_CONTAINER_NAME, containerPort: FLUSS_RPC_PORT }),
    )
    return service
  }

  private dataVolume(
    scope: Construct,
    config: TabletServersConfig,
    role: iam.IRole,
  ): ecs.ServiceManagedVolume {
    return new ecs.ServiceManagedVolume(scope, 'DataVolume', {
      name: 'data',
      managedEBSVolume: {
        role,
        size: Size.gibibytes(config.dataVolumeGiB),
        volumeType: ec2.EbsDeviceVolumeType.GP3,
        iops: config.dataVolumeIops,
        throughput: config.dataVolumeThroughputMiBps,
        fileSystemType: ecs.FileSystemType.XFS,
        encrypted: true,
        tagSpecifications: [{ propagateTags: ecs.EbsPropagatedTagSource.SERVICE }],
      },
    })
  }

  /** A fresh EBS volume is owned by root; a short root container hands it to the server's user first. */
  private addVolumeOwnerInit(
    task: ServerTask,
    volume: ecs.ServiceManagedVolume,
    image: ecs.ContainerImage,
    logging: ecs.LogDriver,
  ): void {
    const init = task.taskDefinition.addContainer('data-volume-owner', {
      image,
      essential: false,
      user: '0',
      command: ['chown', SERVER_USER, TABLET_DATA_DIR],
      logging,
    })
    volume.mountIn(init, { containerPath: TABLET_DATA_DIR, readOnly: false })
    task.container.addContainerDependencies({
      container: init,
      condition: ecs.ContainerDependencyCondition.SUCCESS,
    })
  }
}
