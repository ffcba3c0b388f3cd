-- Where each asynchronous projection has read up to in the global log.
CREATE TABLE projection_checkpoints (
  name            text   PRIMARY KEY,
  transaction_id  xid8   NOT NULL DEFAULT '0'::xid8,
  global_position bigint NOT NULL DEFAULT 0
);
