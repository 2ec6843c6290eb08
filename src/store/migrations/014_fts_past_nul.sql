-- Schema v14: the full-text indexes of findings and pipeline memory see the words after a NUL (U+0000). FTS4 reads a
-- text only up to its first NUL, so those words were never indexed, and SQLite's replace() cannot take a NUL out (a
-- pattern that starts with one counts as empty). A text that holds a NUL (instr() of its bytes finds it) is now
-- indexed through baton_fts_text (schemaFunctions.ts: each NUL a space); any other text as before, without a call out
-- of SQLite. The triggers index a row that way, and each index reads a row back (to remove its words on update and
-- delete, for 'rebuild' and snippets) from a view that gives the texts the same way, so what it removes is what it
-- added; the view's `rowid` column is the row's id, as FTS4 reads its content table by rowid. The tables keep their
-- texts as written, and the indexes keep no copy of them. Every Baton connection has baton_fts_text; another SQLite
-- reads and searches the file, but cannot check these two indexes (PRAGMA integrity_check) or write these tables.
DROP TRIGGER findings_fts_ai;
DROP TRIGGER findings_fts_bd;
DROP TRIGGER findings_fts_bu;
DROP TRIGGER findings_fts_au;
DROP TABLE findings_fts;
CREATE VIEW findings_fts_text AS SELECT id AS rowid,
    CASE WHEN instr(CAST(title AS BLOB), x'00') THEN baton_fts_text(title) ELSE title END AS title,
    CASE WHEN instr(CAST(description AS BLOB), x'00') THEN baton_fts_text(description) ELSE description END AS description,
    CASE WHEN instr(CAST(tags AS BLOB), x'00') THEN baton_fts_text(tags) ELSE tags END AS tags,
    CASE WHEN instr(CAST(category AS BLOB), x'00') THEN baton_fts_text(category) ELSE category END AS category
  FROM findings;
CREATE VIRTUAL TABLE findings_fts USING fts4(content="findings_fts_text", title, description, tags, category, tokenize=unicode61);
CREATE TRIGGER findings_fts_ai AFTER INSERT ON findings BEGIN
  INSERT INTO findings_fts(docid, title, description, tags, category) VALUES (new.id,
    CASE WHEN instr(CAST(new.title AS BLOB), x'00') THEN baton_fts_text(new.title) ELSE new.title END,
    CASE WHEN instr(CAST(new.description AS BLOB), x'00') THEN baton_fts_text(new.description) ELSE new.description END,
    CASE WHEN instr(CAST(new.tags AS BLOB), x'00') THEN baton_fts_text(new.tags) ELSE new.tags END,
    CASE WHEN instr(CAST(new.category AS BLOB), x'00') THEN baton_fts_text(new.category) ELSE new.category END);
END;
CREATE TRIGGER findings_fts_bd BEFORE DELETE ON findings BEGIN
  DELETE FROM findings_fts WHERE docid = old.id;
END;
CREATE TRIGGER findings_fts_bu BEFORE UPDATE ON findings BEGIN
  DELETE FROM findings_fts WHERE docid = old.id;
END;
CREATE TRIGGER findings_fts_au AFTER UPDATE ON findings BEGIN
  INSERT INTO findings_fts(docid, title, description, tags, category) VALUES (new.id,
    CASE WHEN instr(CAST(new.title AS BLOB), x'00') THEN baton_fts_text(new.title) ELSE new.title END,
    CASE WHEN instr(CAST(new.description AS BLOB), x'00') THEN baton_fts_text(new.description) ELSE new.description END,
    CASE WHEN instr(CAST(new.tags AS BLOB), x'00') THEN baton_fts_text(new.tags) ELSE new.tags END,
    CASE WHEN instr(CAST(new.category AS BLOB), x'00') THEN baton_fts_text(new.category) ELSE new.category END);
END;
INSERT INTO findings_fts(findings_fts) VALUES ('rebuild');

DROP TRIGGER memory_fts_ai;
DROP TRIGGER memory_fts_bd;
DROP TRIGGER memory_fts_bu;
DROP TRIGGER memory_fts_au;
DROP TABLE memory_fts;
CREATE VIEW memory_fts_text AS SELECT id AS rowid,
    CASE WHEN instr(CAST(key AS BLOB), x'00') THEN baton_fts_text(key) ELSE key END AS key,
    CASE WHEN instr(CAST(value AS BLOB), x'00') THEN baton_fts_text(value) ELSE value END AS value,
    CASE WHEN instr(CAST(category AS BLOB), x'00') THEN baton_fts_text(category) ELSE category END AS category
  FROM memory_entries;
CREATE VIRTUAL TABLE memory_fts USING fts4(content="memory_fts_text", key, value, category, tokenize=unicode61);
CREATE TRIGGER memory_fts_ai AFTER INSERT ON memory_entries BEGIN
  INSERT INTO memory_fts(docid, key, value, category) VALUES (new.id,
    CASE WHEN instr(CAST(new.key AS BLOB), x'00') THEN baton_fts_text(new.key) ELSE new.key END,
    CASE WHEN instr(CAST(new.value AS BLOB), x'00') THEN baton_fts_text(new.value) ELSE new.value END,
    CASE WHEN instr(CAST(new.category AS BLOB), x'00') THEN baton_fts_text(new.category) ELSE new.category END);
END;
CREATE TRIGGER memory_fts_bd BEFORE DELETE ON memory_entries BEGIN
  DELETE FROM memory_fts WHERE docid = old.id;
END;
CREATE TRIGGER memory_fts_bu BEFORE UPDATE ON memory_entries BEGIN
  DELETE FROM memory_fts WHERE docid = old.id;
END;
CREATE TRIGGER memory_fts_au AFTER UPDATE ON memory_entries BEGIN
  INSERT INTO memory_fts(docid, key, value, category) VALUES (new.id,
    CASE WHEN instr(CAST(new.key AS BLOB), x'00') THEN baton_fts_text(new.key) ELSE new.key END,
    CASE WHEN instr(CAST(new.value AS BLOB), x'00') THEN baton_fts_text(new.value) ELSE new.value END,
    CASE WHEN instr(CAST(new.category AS BLOB), x'00') THEN baton_fts_text(new.category) ELSE new.category END);
END;
INSERT INTO memory_fts(memory_fts) VALUES ('rebuild');
