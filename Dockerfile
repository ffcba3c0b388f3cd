# The production image: Node 24 (an LTS release line), the runtime dependencies alone (no
# TypeScript compiler, no embedded PostgreSQL, no test tools: those are development dependencies),
# and only the folders that run. The TypeScript is run by tsx, as in development and in the tests:
# the image runs the very files the tests ran, and the SQL migrations and page assets are read
# from beside the modules that own them; tsx (esbuild) compiles each module once, as it loads.
#
#   docker build --build-arg SVC_GIT_SHA=$(git rev-parse HEAD) -t svc .
#
# The command is a role or an operator command: `migrate` (once per release, before the roles
# start), `api`, `worker`, `serve` (every role in one process, the default), `status`, and so on.
FROM node:24-slim

WORKDIR /app
ENV NODE_ENV=production

COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY src ./src
COPY eventstore ./eventstore
COPY projections ./projections

# Build identity: pass the commit as a build argument; BUILD_ID and BUILD_TIME files are written
# here, at the working directory, where /version reads them.
ARG SVC_GIT_SHA=""
ARG SVC_BUILD_ID=""
ENV SVC_GIT_SHA=${SVC_GIT_SHA}
RUN printf '%s\n' "${SVC_BUILD_ID:-$(date -u +%Y%m%dT%H%M%SZ)-$(head -c 4 /dev/urandom | od -An -tx1 | tr -d ' \n')}" > BUILD_ID \
 && date -u +%Y-%m-%dT%H:%M:%SZ > BUILD_TIME

USER node
ENV HOST=0.0.0.0 PORT=8080
EXPOSE 8080

# Node itself is the container's first process, so SIGTERM reaches it and it stops gracefully.
ENTRYPOINT ["node", "--import", "tsx", "src/main.ts"]
CMD ["serve"]
