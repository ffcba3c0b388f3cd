-- An event's data of more than about 2 kB (a Surface, a sealed answer with its receipt) went to
-- the TOAST table (0301): each such append inserted a second row and an index entry there, and
-- each read of its stream fetched it back through that index. A target of 8160 bytes keeps an
-- event of up to nearly a page whole in its row; a longer one still goes out of line. Events
-- already stored stay where they are.
ALTER TABLE events SET (toast_tuple_target = 8160);
