import { Duration } from 'aws-cdk-lib'
import * as ecs from 'aws-cdk-lib/aws-ecs'
import type * as logs from 'aws-cdk-lib/aws-logs'
import { Construct } from 'constructs'
import type { TaskSize } from '../stages.js'
import { FLUSS_RPC_PORT } from './network.js'

/** Name of the server container in every coordinator and tablet server task. */
export const SERVER_CONTAINER_NAME = 'server'

/** Container health check: the Fluss RPC port accepts a TCP connection within 3 s. */
export const TCP_PROBE_SCRIPT =
  `const s=require('node:net').connect(${FLUSS_RPC_PORT},'127.0.0.1');` +
  `s.on('connect',()=>process.exit(0));s.on('error',()=>process.exit(1));setTimeout(()=>process.exit(1),3000)`

/** Fargate allows at most 120 s between SIGTERM and SIGKILL; servers use it to hand over leadership. */
const STOP_TIMEOUT = Duration.seconds(120)

export interface ServerTaskProps {
  readonly image: ecs.ContainerImage
  /** Command run in the shared image, e.g. `node services/tablet/dist/main.js`. */
  readonly command: readonly string[]
  readonly size: TaskSize
  readonly cpuArchitecture: ecs.CpuArchitecture
  readonly environment: Readonly<Record<string, string>>
  /** Environment variables read from Secrets Manager when the task starts (never in the task definition). */
  readonly secrets?: Readonly<Record<string, ecs.Secret>>
  readonly logGroup: logs.ILogGroup
  readonly streamPrefix: string
}

/** A Fargate task definition with one Sluice server container listening on the Fluss RPC port. */
export class ServerTask extends Construct {
  readonly taskDefinition: ecs.FargateTaskDefinition
  readonly container: ecs.ContainerDefinition

  constructor(scope: Construct, id: string, props: ServerTaskProps) {
    super(scope, id)
    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'TaskDefinition', {
      cpu: props.size.cpu,
      memoryLimitMiB: props.size.memoryMiB,
      runtimePlatform: {
        cpuArchitecture: props.cpuArchitecture,
        operatingSystemFamily: ecs.OperatingSystemFamily.LINUX,
      },
    })
    this.container = this.taskDefinition.addContainer(SERVER_CONTAINER_NAME, {
      image: props.image,
      command: [...props.command],
      environment: { ...props.environment },
      ...(props.secrets === undefined ? {} : { secrets: { ...props.secrets } }),
      portMappings: [{ name: 'fluss', containerPort: FLUSS_RPC_PORT, protocol: ecs.Protocol.TCP }],
      healthCheck: {
        command: ['CMD', 'node', '-e', TCP_PROBE_SCRIPT],
        interval: Duration.seconds(15),
        timeout: Duration.seconds(5),
        retries: 3,
        startPeriod: Duration.seconds(60),
      },
      linuxParameters: new ecs.LinuxParameters(this, 'LinuxParameters', { initProcessEnabled: true }),
      stopTimeout: STOP_TIMEOUT,
      logging: ecs.LogDrivers.awsLogs({ logGroup: props.logGroup, streamPrefix: props.streamPrefix }),
    })
  }
}
