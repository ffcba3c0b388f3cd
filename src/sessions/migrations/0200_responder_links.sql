-- Each emailed responder's own link into a Session, by the hash of its token (the token itself is
-- never stored): the human page finds the Session, and whose answer it is, through it.
CREATE TABLE responder_links (
  link_hash    text PRIMARY KEY,
  session_id   text NOT NULL,
  responder_id text NOT NULL
);

-- A purge forgets a Session's links.
CREATE INDEX responder_links_session ON responder_links (session_id);
