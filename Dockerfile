# syntax=docker/dockerfile:1
#
# One image for the Sluice servers; the command picks the role:
#   node services/coordinator/dist/main.js   (default)
#   node --max-semi-space-size=64 services/tablet/dist/main.js   (the CDK app adds each role's Node
#   flags from core/src/config/server-runtime.ts)
# Configuration comes from the FLUSS_CONF environment variable (a JSON object of option keys).
# Build from the repository root: docker build -t sluice-server .

ARG NODE_IMAGE=node:22-slim
ARG SERVER_WORKSPACES="--workspace=@sluice/coordinator --workspace=@sluice/tablet"

# Production dependencies of the two server workspaces only.
FROM ${NODE_IMAGE} AS deps
ARG SERVER_WORKSPACES
WORKDIR /app
COPY package.json package-lock.json ./
COPY core/package.json core/
COPY lake/package.json lake/
COPY client/package.json client/
COPY services/coordinator/package.json services/coordinator/
COPY services/tablet/package.json services/tablet/
COPY functions/tiering/package.json functions/tiering/
COPY functions/gateway/package.json functions/gateway/
COPY cli/package.json cli/
COPY cdk/package.json cdk/
COPY localstack/package.json localstack/
COPY bench/package.json bench/
COPY test/package.json test/
RUN npm ci --omit=dev ${SERVER_WORKSPACES} --no-audit --no-fund

# Compile the servers and what they reference (core) with the root's TypeScript.
FROM deps AS build
ARG SERVER_WORKSPACES
RUN npm ci ${SERVER_WORKSPACES} --include-workspace-root --no-audit --no-fund
COPY . .
RUN npx tsc -b services/coordinator services/tablet

FROM ${NODE_IMAGE}
# rocksdb-native's prebuilt addon links libatomic.
RUN apt-get update \
  && apt-get install -y --no-install-recommends libatomic1 \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app ./
COPY --from=build /app/core/dist core/dist
COPY --from=build /app/services/coordinator/dist services/coordinator/dist
COPY --from=build /app/services/tablet/dist services/tablet/dist
# The tablet server's data volume is mounted here; owned by the non-root user that runs the servers.
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 9123
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "const s=require('node:net').connect(9123,'127.0.0.1');s.on('connect',()=>process.exit(0));s.on('error',()=>process.exit(1));setTimeout(()=>process.exit(1),3000)"]
CMD ["node", "services/coordinator/dist/main.js"]
