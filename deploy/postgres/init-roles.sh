#!/bin/sh
# Run by the postgres image once, when it first initialises its data directory
# (/docker-entrypoint-initdb.d): makes the service's owner and service roles (roles.sql).
set -eu
psql --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v owner_role=svc_owner -v owner_password="$SVC_OWNER_DB_PASSWORD" \
  -v app_role=svc -v app_password="$SVC_DB_PASSWORD" \
  -f /svc/roles.sql
