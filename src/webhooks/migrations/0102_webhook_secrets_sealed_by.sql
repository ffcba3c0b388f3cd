-- How each signing secret is sealed: `stream`, with its webhook stream's data key (a rotation of
-- the deployment data key wraps that key again), or `initial`, directly with the deployment data
-- key `initial`, as every secret was before (`rekey` seals those again under the stream's key).
-- The default is what the release before writes, during a rolling upgrade.
ALTER TABLE webhook_secrets ADD COLUMN sealed_by text NOT NULL DEFAULT 'initial';

-- The secrets still sealed with `initial`, for `rekey` and for the readiness check: none once rekey has run.
CREATE INDEX webhook_secrets_sealed_by_initial ON webhook_secrets (kid) WHERE sealed_by = 'initial';
