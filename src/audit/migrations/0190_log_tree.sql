-- The Merkle tree over the log (RFC 6962 / RFC 9162; docs/audit.md, "The Merkle tree"). Every
-- event becomes a leaf once it is below the visibility horizon, in log order; the checkpointer
-- appends the leaves and every subtree that becomes whole. Nothing here is ever changed: a tree
-- head signed once must stay provable forever.

-- Each whole (perfect) subtree: the 2^level leaves from node_index * 2^level on; level 0 is the
-- leaf hash itself. A proof reads O(log n) of them by this key.
CREATE TABLE log_tree_nodes (
  level      smallint NOT NULL CHECK (level BETWEEN 0 AND 62),
  node_index bigint   NOT NULL CHECK (node_index >= 0),
  hash       bytea    NOT NULL CHECK (length(hash) = 32),
  PRIMARY KEY (level, node_index)
);

-- Which event each leaf is: found by the event (a proof) and by the leaf (the tree's end).
CREATE TABLE log_tree_leaves (
  global_position bigint PRIMARY KEY,
  leaf_index      bigint NOT NULL UNIQUE CHECK (leaf_index >= 0)
);

CREATE FUNCTION log_tree_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the log''s Merkle tree is append-only: % on % refused', TG_OP, TG_TABLE_NAME USING ERRCODE = '42501';
END $$;

CREATE TRIGGER log_tree_nodes_no_update_delete BEFORE UPDATE OR DELETE ON log_tree_nodes
  FOR EACH ROW EXECUTE FUNCTION log_tree_append_only();
CREATE TRIGGER log_tree_nodes_no_truncate BEFORE TRUNCATE ON log_tree_nodes
  FOR EACH STATEMENT EXECUTE FUNCTION log_tree_append_only();
CREATE TRIGGER log_tree_leaves_no_update_delete BEFORE UPDATE OR DELETE ON log_tree_leaves
  FOR EACH ROW EXECUTE FUNCTION log_tree_append_only();
CREATE TRIGGER log_tree_leaves_no_truncate BEFORE TRUNCATE ON log_tree_leaves
  FOR EACH STATEMENT EXECUTE FUNCTION log_tree_append_only();
