import { Duration } from 'aws-cdk-lib'
import * as ec2 from 'aws-cdk-lib/aws-ec2'
import * as elbv2 from 'aws-cdk-lib/aws-elasticloadbalancingv2'
import { Construct } from 'constructs'
import { FLUSS_RPC_PORT, FLUSS_TLS_PORT } from './network.js'

export interface BootstrapLoadBalancerProps {
  readonly vpc: ec2.IVpc
  readonly subnets: ec2.SubnetSelection
  /** Where clients connect from; the load balancer admits them on the Fluss port. */
  readonly clientPeers: readonly ec2.IPeer[]
  /** Security group of the targets; the load balancer may reach them (traffic and health checks). */
  readonly targetSecurityGroup: ec2.ISecurityGroup
  /** ACM certificate of a TLS listener on FLUSS_TLS_PORT; none: no TLS listener. */
  readonly certificateArn?: string
}

/**
 * The internal Network Load Balancer behind `bootstrap.servers`. Clients open their first connection
 * here, fetch metadata, and then connect to the tablet servers' advertised addresses directly; the load
 * balancer is never on the produce or fetch path.
 */
export class BootstrapLoadBalancer extends Construct {
  readonly loadBalancer: elbv2.NetworkLoadBalancer
  readonly targetGroup: elbv2.NetworkTargetGroup
  /** The value of the clients' `bootstrap.servers`. */
  readonly bootstrapServers: string
  /** `bootstrap.servers` through the TLS listener, when there is one. */
  readonly tlsBootstrapServers: string | undefined

  constructor(scope: Construct, id: string, props: BootstrapLoadBalancerProps) {
    super(scope, id)
    const securityGroup = new ec2.SecurityGroup(this, 'SecurityGroup', {
      vpc: props.vpc,
      description: 'Sluice bootstrap load balancer',
      allowAllOutbound: false,
    })
    const port = ec2.Port.tcp(FLUSS_RPC_PORT)
    for (const peer of props.clientPeers) securityGroup.addIngressRule(peer, port, 'Fluss clients')
    securityGroup.connections.allowTo(props.targetSecurityGroup, port, 'Fluss RPC and health checks')
    this.loadBalancer = new elbv2.NetworkLoadBalancer(this, 'LoadBalancer', {
      vpc: props.vpc,
      vpcSubnets: props.subnets,
      internetFacing: false,
      crossZoneEnabled: true,
      securityGroups: [securityGroup],
    })
    this.targetGroup = new elbv2.NetworkTargetGroup(this, 'TargetGroup', {
      vpc: props.vpc,
      port: FLUSS_RPC_PORT,
      protocol: elbv2.Protocol.TCP,
      targetType: elbv2.TargetType.IP,
      deregistrationDelay: Duration.seconds(30),
      healthCheck: {
        protocol: elbv2.Protocol.TCP,
        port: String(FLUSS_RPC_PORT),
        interval: Duration.seconds(10),
        healthyThresholdCount: 2,
        unhealthyThresholdCount: 2,
      },
    })
    this.loadBalancer.addListener('Fluss', {
      port: FLUSS_RPC_PORT,
      protocol: elbv2.Protocol.TCP,
      defaultTargetGroups: [this.targetGroup],
    })
    this.bootstrapServers = `${this.loadBalancer.loadBalancerDnsName}:${FLUSS_RPC_PORT}`
    this.tlsBootstrapServers = undefined
    if (props.certificateArn !== undefined) {
      const tls = ec2.Port.tcp(FLUSS_TLS_PORT)
      for (const peer of props.clientPeers) securityGroup.addIngressRule(peer, tls, 'Fluss clients over TLS')
      this.loadBalancer.addListener('FlussTls', {
        port: FLUSS_TLS_PORT,
        protocol: elbv2.Protocol.TLS,
        certificates: [elbv2.ListenerCertificate.fromArn(props.certificateArn)],
        sslPolicy: elbv2.SslPolicy.RECOMMENDED_TLS,
        defaultTargetGroups: [this.targetGroup],
      })
      this.tlsBootstrapServers = `${this.loadBalancer.loadBalancerDnsName}:${FLUSS_TLS_PORT}`
    }
  }
}
