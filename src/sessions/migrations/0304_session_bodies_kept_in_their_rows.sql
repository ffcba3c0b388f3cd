-- A sealed body (0300) of more than about 2 kB went to the TOAST table: every answer's upsert of
-- the view wrote its body there as a row of its own, with its TOAST index entry, and left the
-- old chunks behind as dead rows, and every read fetched it back through that index. A target of
-- 8160 bytes keeps a row of up to nearly a page whole in the table, so a body of a few kilobytes
-- (the interactive Sessions' common size) is written and read with its row. A longer one still
-- goes out of line. The price is space where a page holds fewer whole bodies than it would hold
-- their chunks: 3,000 Sessions' revisions took 13 MB against 10 (the events, 0303, 18 against 19).
-- Rows stored before move when next written (a rebuild writes all: its copies
-- take these parameters from the live tables).
ALTER TABLE session_views SET (toast_tuple_target = 8160);
ALTER TABLE session_revisions SET (toast_tuple_target = 8160);
