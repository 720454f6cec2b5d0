import { Configuration, optionByKey } from '@sluice/core/config'
import { Match, Template } from 'aws-cdk-lib/assertions'
import * as cxapi from 'aws-cdk-lib/cx-api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FLUSS_RPC_PORT } from '../lib/compute/network.js'
import { FLUSS_CONF_ENV } from '../lib/fluss-conf.js'
import { SluiceStage } from '../lib/sluice-stage.js'
import { STAGES } from '../lib/stages.js'
import { joinedText, REPO_ROOT, SYNTH_TIMEOUT_MS, TOKEN_PLACEHOLDER, testApp } from './synth.js'

const stage = STAGES.dev
let dispose: () => void
let sluice: SluiceStage
let compute: Template

/** Synthesized CloudFormation is untyped JSON; tests navigate it by the property names they assert. */
// biome-ignore lint/suspicious/noExplicitAny: template JSON has no static type
type Json = any
type Resource = { Type: string; Properties: Record<string, Json>; DependsOn?: string[] }

beforeAll(() => {
  const test = testApp()
  dispose = test.dispose
  sluice = new SluiceStage(test.app, { config: stage, repoRoot: REPO_ROOT })
  compute = Template.fromStack(sluice.compute)
}, SYNTH_TIMEOUT_MS)

afterAll(() => dispose())

function resources(type: string, props: Record<string, unknown> = {}): [string, Resource][] {
  return Object.entries(compute.findResources(type, { Properties: props })) as [string, Resource][]
}

function serverContainer(taskDefinition: Resource): Record<string, Json> {
  return taskDefinition.Properties.ContainerDefinitions.find((c: { Name: string }) => c.Name === 'server')
}

function environmentValue(
  env: { Name: string; Value: unknown }[] | Record<string, unknown>,
  name: string,
): unknown {
  if (Array.isArray(env)) return env.find(e => e.Name === name)?.Value
  return env[name]
}

/** Every FLUSS_CONF the compute stack deploys, decoded with resource names replaced by placeholders. */
function deployedFlussConfs(): Record<string, unknown>[] {
  const fromTasks = resources('AWS::ECS::TaskDefinition').map(([, t]) =>
    environmentValue(serverContainer(t).Environment, FLUSS_CONF_ENV),
  )
  const fromFunctions = resources('AWS::Lambda::Function', { Runtime: 'nodejs22.x' }).map(
    ([, f]) => f.Properties.Environment.Variables[FLUSS_CONF_ENV],
  )
  return [...fromTasks, ...fromFunctions].map(value => JSON.parse(joinedText(value)))
}

describe('network', () => {
  it('spans two AZs with private subnets and free gateway endpoints for S3 and DynamoDB', () => {
    compute.resourceCountIs('AWS::EC2::Subnet', 4)
    compute.resourceCountIs('AWS::EC2::NatGateway', stage.natGateways)
    compute.resourceCountIs('AWS::EC2::VPCEndpoint', 2)
    compute.hasResourceProperties('AWS::EC2::VPCEndpoint', {
      ServiceName: Match.objectLike({
        'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('dynamodb')])],
      }),
      VpcEndpointType: 'Gateway',
    })
  })

  it('opens the Fluss port to the VPC only', () => {
    compute.hasResourceProperties('AWS::EC2::SecurityGroup', {
      GroupDescription: 'Sluice coordinators and tablet servers',
      SecurityGroupIngress: [
        Match.objectLike({
          IpProtocol: 'tcp',
          FromPort: FLUSS_RPC_PORT,
          ToPort: FLUSS_RPC_PORT,
          CidrIp: Match.anyValue(),
        }),
      ],
    })
  })
})

describe('coordinator', () => {
  it('runs two tasks replaced one at a time', () => {
    const services = resources('AWS::ECS::Service', { DesiredCount: stage.coordinator.taskCount })
    expect(services).toHaveLength(1)
    expect(services[0][1].Properties).toMatchObject({
      LaunchType: 'FARGATE',
      DeploymentConfiguration: {
        MinimumHealthyPercent: 50,
        MaximumPercent: 100,
        DeploymentCircuitBreaker: { Enable: true, Rollback: true },
      },
      NetworkConfiguration: { AwsvpcConfiguration: { AssignPublicIp: 'DISABLED' } },
    })
  })

  it('starts the coordinator entry point with a TCP health check', () => {
    compute.hasResourceProperties('AWS::ECS::TaskDefinition', {
      Cpu: String(stage.coordinator.cpu),
      Memory: String(stage.coordinator.memoryMiB),
      RuntimePlatform: { CpuArchitecture: 'X86_64', OperatingSystemFamily: 'LINUX' },
      ContainerDefinitions: [
        Match.objectLike({
          Name: 'server',
          Command: ['node', 'services/coordinator/dist/main.js'],
          PortMappings: [Match.objectLike({ ContainerPort: FLUSS_RPC_PORT, Protocol: 'tcp' })],
          HealthCheck: Match.objectLike({ Command: ['CMD', 'node', '-e', Match.stringLikeRegexp('9123')] }),
          StopTimeout: 120,
        }),
      ],
    })
  })
})

describe('tablet servers', () => {
  const tabletServices = () => resources('AWS::ECS::Service', { DesiredCount: 1 })

  it('run one service per server id, never two tasks of one id at once', () => {
    const services = tabletServices()
    expect(services).toHaveLength(stage.tabletServers.count)
    for (const [, service] of services) {
      expect(service.Properties.DeploymentConfiguration).toMatchObject({
        MinimumHealthyPercent: 0,
        MaximumPercent: 100,
      })
      expect(service.Properties.AvailabilityZoneRebalancing).toBe('DISABLED')
      expect(service.Properties.ServiceRegistries).toHaveLength(1)
    }
  })

  it('replace servers one after another during a deployment', () => {
    const services = tabletServices()
    const dependent = services.filter(([, s]) =>
      (s.DependsOn ?? []).some(d => services.some(([id]) => id === d)),
    )
    expect(dependent).toHaveLength(stage.tabletServers.count - 1)
  })

  it('each get an encrypted gp3 data volume managed by ECS', () => {
    for (const [, service] of tabletServices()) {
      expect(service.Properties.VolumeConfigurations).toEqual([
        {
          Name: 'data',
          ManagedEBSVolume: expect.objectContaining({
            SizeInGiB: stage.tabletServers.dataVolumeGiB,
            VolumeType: 'gp3',
            Iops: stage.tabletServers.dataVolumeIops,
            Throughput: stage.tabletServers.dataVolumeThroughputMiBps,
            Encrypted: true,
            FilesystemType: 'xfs',
          }),
        },
      ])
    }
  })

  it('register under stable DNS names in the cluster namespace', () => {
    const names = resources('AWS::ServiceDiscovery::Service').map(([, s]) => s.Properties.Name)
    expect(names.sort()).toEqual(['tablet-0', 'tablet-1', 'tablet-2'])
    compute.hasResourceProperties('AWS::ServiceDiscovery::PrivateDnsNamespace', {
      Name: 'dev.sluice.internal',
    })
  })

  it('mount the volume at the data dir after a root container hands it to the server user', () => {
    const tablets = resources('AWS::ECS::TaskDefinition').filter(([, t]) =>
      serverContainer(t).Command.includes('services/tablet/dist/main.js'),
    )
    expect(tablets).toHaveLength(stage.tabletServers.count)
    for (const [, task] of tablets) {
      const containers = task.Properties.ContainerDefinitions
      const init = containers.find((c: { Name: string }) => c.Name === 'data-volume-owner')
      expect(init).toMatchObject({ Essential: false, User: '0', Command: ['chown', '1000:1000', '/data'] })
      // Tablet servers run with the young generation sized for their allocation rate.
      expect(serverContainer(task).Command).toEqual([
        'node',
        '--max-semi-space-size=64',
        'services/tablet/dist/main.js',
      ])
      expect(serverContainer(task)).toMatchObject({
        MountPoints: [{ ContainerPath: '/data', SourceVolume: 'data', ReadOnly: false }],
        DependsOn: [{ ContainerName: 'data-volume-owner', Condition: 'SUCCESS' }],
      })
      expect(task.Properties.Volumes).toEqual([{ Name: 'data', ConfiguredAtLaunch: true }])
    }
  })

  it('advertise their DNS name and carry their own server id', () => {
    const confs = deployedFlussConfs().filter(c => 'tablet-server.id' in c)
    expect(confs.map(c => c['tablet-server.id']).sort()).toEqual(['0', '1', '2'])
    for (const conf of confs) {
      const id = conf['tablet-server.id']
      expect(conf).toMatchObject({
        'bind.listeners': 'FLUSS://0.0.0.0:9123',
        'advertised.listeners': `FLUSS://tablet-${id}.dev.sluice.internal:9123`,
        'data.dir': '/data',
      })
    }
  })
})

describe('bootstrap load balancer', () => {
  it('is an internal NLB with a TCP listener on 9123', () => {
    compute.hasResourceProperties('AWS::ElasticLoadBalancingV2::LoadBalancer', {
      Type: 'network',
      Scheme: 'internal',
    })
    compute.hasResourceProperties('AWS::ElasticLoadBalancingV2::Listener', { Port: 9123, Protocol: 'TCP' })
  })

  it('admits clients from the VPC and reaches only the servers, on 9123', () => {
    compute.hasResourceProperties('AWS::EC2::SecurityGroup', {
      GroupDescription: 'Sluice bootstrap load balancer',
      SecurityGroupIngress: [Match.objectLike({ IpProtocol: 'tcp', FromPort: 9123, ToPort: 9123 })],
    })
    compute.hasResourceProperties('AWS::EC2::SecurityGroupEgress', {
      IpProtocol: 'tcp',
      FromPort: 9123,
      ToPort: 9123,
      DestinationSecurityGroupId: {
        'Fn::GetAtt': [Match.stringLikeRegexp('^NetworkServerSecurityGroup'), 'GroupId'],
      },
    })
  })

  it('health-checks tablet servers by IP over TCP', () => {
    compute.hasResourceProperties('AWS::ElasticLoadBalancingV2::TargetGroup', {
      Port: 9123,
      Protocol: 'TCP',
      TargetType: 'ip',
      HealthCheckProtocol: 'TCP',
    })
    const attached = resources('AWS::ECS::Service', { DesiredCount: 1 }).filter(
      ([, s]) => s.Properties.LoadBalancers?.[0]?.ContainerPort === FLUSS_RPC_PORT,
    )
    expect(attached).toHaveLength(stage.tabletServers.count)
  })

  it('is what the outputs publish as bootstrap.servers', () => {
    compute.hasOutput('BootstrapServers', {
      Value: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [Match.anyValue(), 'DNSName'] }, ':9123']] },
    })
  })
})

describe('FLUSS_CONF', () => {
  it('is set on every server task and function', () => {
    expect(deployedFlussConfs()).toHaveLength(1 + stage.tabletServers.count + 2)
  })

  it('holds only registered option keys whose values parse', () => {
    for (const conf of deployedFlussConfs()) {
      // Registered options, or lake-format keys that Fluss passes through to the lake (datalake.<format>.*).
      for (const key of Object.keys(conf)) {
        if (!key.startsWith('datalake.iceberg.')) expect(optionByKey(key), key).toBeDefined()
      }
      const loaded = Configuration.load(conf, { source: 'FLUSS_CONF' })
      expect(loaded.warnings).toEqual([])
    }
  })

  it('points every process at the stack resources', () => {
    for (const conf of deployedFlussConfs()) {
      expect(conf).toMatchObject({
        'sluice.metastore.table': TOKEN_PLACEHOLDER,
        'sluice.blobstore.uri': `s3://${TOKEN_PLACEHOLDER}`,
        'sluice.aws.region': TOKEN_PLACEHOLDER,
      })
    }
  })
})

describe('functions', () => {
  it('run on Node.js 22 inside the VPC', () => {
    const functions = resources('AWS::Lambda::Function', { Runtime: 'nodejs22.x' })
    expect(functions).toHaveLength(2)
    for (const [, fn] of functions) {
      expect(fn.Properties.VpcConfig.SubnetIds).toHaveLength(2)
      expect(fn.Properties.Handler).toBe('index.handler')
    }
  })

  it('schedule one non-overlapping tiering round per interval', () => {
    compute.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: `rate(${stage.tiering.scheduleRateMinutes} minutes)`,
      State: 'ENABLED',
      Target: Match.objectLike({ RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 60 } }),
    })
    compute.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('tiering'),
      ReservedConcurrentExecutions: 1,
      Timeout: stage.tiering.timeoutSeconds,
    })
  })

  it('serve the gateway through an HTTP API with IAM authorization and throttling', () => {
    compute.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' })
    compute.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: '$default',
      AuthorizationType: 'AWS_IAM',
    })
    compute.hasOutput('GatewayInvokeArn', { Value: Match.anyValue() })
    compute.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: {
        ThrottlingRateLimit: stage.gateway.throttleRatePerSecond,
        ThrottlingBurstLimit: stage.gateway.throttleBurst,
      },
    })
  })
})

describe('logs', () => {
  it('are kept for the stage retention and deleted with a dev stack', () => {
    const groups = Object.values(compute.findResources('AWS::Logs::LogGroup'))
    expect(groups.length).toBeGreaterThanOrEqual(4)
    for (const group of groups) {
      expect(group).toMatchObject({
        DeletionPolicy: 'Delete',
        Properties: { RetentionInDays: stage.logRetention },
      })
    }
  })
})

describe('Athena', () => {
  it('has a workgroup with engine v3, enforced results location and a scan limit', () => {
    compute.hasResourceProperties('AWS::Athena::WorkGroup', {
      Name: 'sluice-dev',
      WorkGroupConfiguration: Match.objectLike({
        EnforceWorkGroupConfiguration: true,
        BytesScannedCutoffPerQuery: stage.athenaBytesScannedCutoffPerQuery,
        EngineVersion: { SelectedEngineVersion: 'Athena engine version 3' },
        ResultConfiguration: Match.objectLike({ EncryptionConfiguration: { EncryptionOption: 'SSE_S3' } }),
      }),
    })
  })
})

describe('container image', () => {
  it('is one Docker asset built from the root Dockerfile for the stage platform', () => {
    const manifest = sluice
      .synth()
      .artifacts.filter(a => a instanceof cxapi.AssetManifestArtifact)
      .find(a => a.id.startsWith(sluice.compute.artifactId)) as cxapi.AssetManifestArtifact
    const images = Object.values(manifest.contents.dockerImages ?? {})
    expect(images).toHaveLength(1)
    expect(images[0].source).toMatchObject({ dockerFile: 'Dockerfile', platform: 'linux/amd64' })
    const imageRefs = resources('AWS::ECS::TaskDefinition').flatMap(([, t]) =>
      t.Properties.ContainerDefinitions.map((c: { Image: unknown }) => JSON.stringify(c.Image)),
    )
    expect(new Set(imageRefs).size).toBe(1)
  })
})

describe('lake catalog', () => {
  it('registers tiered tables in the stage Glue database the functions are granted', () => {
    const functionConfs = deployedFlussConfs().filter(c => 'bootstrap.servers' in c)
    expect(functionConfs.length).toBeGreaterThan(0)
    for (const conf of functionConfs) {
      expect(conf['datalake.iceberg.type']).toBe('glue')
      expect(typeof conf['datalake.iceberg.glue.database']).toBe('string')
    }
  })
})
