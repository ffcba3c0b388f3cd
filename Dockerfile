# The service image: Node 20, production dependencies only, TypeScript run by tsx (no build step).
# Build identity (SPEC 4.5): pass the commit as a build argument; BUILD_ID and BUILD_TIME files
# are written here, at the workspace root, where /version reads them.
#
#   docker build --build-arg SVC_GIT_SHA=$(git rev-parse HEAD) -t svc .
#
# The container applies the bundled migrations, then serves every role. Migrations can also be
# run on their own: docker compose run --rm svc node --import tsx src/main.ts migrate
FROM node:20-slim

WORKDIR /app
ENV NODE_ENV=production

COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

COPY . .

ARG SVC_GIT_SHA=""
ARG SVC_BUILD_ID=""
ENV SVC_GIT_SHA=${SVC_GIT_SHA}
RUN printf '%s\n' "${SVC_BUILD_ID:-$(date -u +%Y%m%dT%H%M%SZ)-$(head -c 4 /dev/urandom | od -An -tx1 | tr -d ' \n')}" > BUILD_ID \
 && date -u +%Y-%m-%dT%H:%M:%SZ > BUILD_TIME

USER node
ENV HOST=0.0.0.0 PORT=8080
EXPOSE 8080

# exec replaces the shell, so node itself receives SIGTERM and shuts down cleanly.
CMD ["sh", "-c", "node --import tsx src/main.ts migrate && exec node --import tsx src/main.ts serve"]
