-- Schema v14: the full-text indexes of findings and pipeline memory see the words after a NUL (U+0000). FTS4 reads a
-- text only up to its first NUL, so those words were never indexed. Each index now reads its texts from a view that
-- gives a text holding a NUL (instr() of its bytes finds it) with every NUL read as a space, and any other text as it
-- is; the triggers index a new row from that same view, and FTS4 reads a row back from it to remove its words (on
-- update and delete, for 'rebuild', snippets and its integrity check), so what it removes is what it added. The
-- view's `rowid` column is the row's id: FTS4 reads its content table by rowid.
--
-- The mapping is plain SQL, so any SQLite (an older Baton's open check included) reads, searches and checks the file
-- without a function of Baton's. SQLite's replace() cannot take a NUL out (a pattern that starts with one counts as
-- empty), but json_quote() writes each NUL as the six characters \u0000; the replace()s then turn every escape
-- json_quote() writes (\\ first, then \", \b, \f, \n, \r, \t and \u0000 to \u001f) into a space, and trim() takes off
-- the quotes around it (every quote inside was escaped). Only characters that are separators to the tokenizer become
-- spaces, so the words and their positions are those of the text with its NULs as spaces
-- (test/integration/ftsPastNul.test.ts checks this against the tokenizer). The tables keep their texts as written, and
-- the indexes keep no copy of them.
DROP TRIGGER findings_fts_ai;
DROP TRIGGER findings_fts_bd;
DROP TRIGGER findings_fts_bu;
DROP TRIGGER findings_fts_au;
DROP TABLE findings_fts;
CREATE VIEW findings_fts_text AS SELECT id AS rowid,
  CASE WHEN instr(CAST(title AS BLOB), x'00') THEN trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(json_quote(title), '\\', ' '), '\"', ' '), '\b', ' '), '\f', ' '), '\n', ' '), '\r', ' '), '\t', ' '), '\u0000', ' '), '\u0001', ' '), '\u0002', ' '), '\u0003', ' '), '\u0004', ' '), '\u0005', ' '), '\u0006', ' '), '\u0007', ' '), '\u0008', ' '), '\u0009', ' '), '\u000a', ' '), '\u000b', ' '), '\u000c', ' '), '\u000d', ' '), '\u000e', ' '), '\u000f', ' '), '\u0010', ' '), '\u0011', ' '), '\u0012', ' '), '\u0013', ' '), '\u0014', ' '), '\u0015', ' '), '\u0016', ' '), '\u0017', ' '), '\u0018', ' '), '\u0019', ' '), '\u001a', ' '), '\u001b', ' '), '\u001c', ' '), '\u001d', ' '), '\u001e', ' '), '\u001f', ' '), '"') ELSE title END AS title,
  CASE WHEN instr(CAST(description AS BLOB), x'00') THEN trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(json_quote(description), '\\', ' '), '\"', ' '), '\b', ' '), '\f', ' '), '\n', ' '), '\r', ' '), '\t', ' '), '\u0000', ' '), '\u0001', ' '), '\u0002', ' '), '\u0003', ' '), '\u0004', ' '), '\u0005', ' '), '\u0006', ' '), '\u0007', ' '), '\u0008', ' '), '\u0009', ' '), '\u000a', ' '), '\u000b', ' '), '\u000c', ' '), '\u000d', ' '), '\u000e', ' '), '\u000f', ' '), '\u0010', ' '), '\u0011', ' '), '\u0012', ' '), '\u0013', ' '), '\u0014', ' '), '\u0015', ' '), '\u0016', ' '), '\u0017', ' '), '\u0018', ' '), '\u0019', ' '), '\u001a', ' '), '\u001b', ' '), '\u001c', ' '), '\u001d', ' '), '\u001e', ' '), '\u001f', ' '), '"') ELSE description END AS description,
  CASE WHEN instr(CAST(tags AS BLOB), x'00') THEN trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(json_quote(tags), '\\', ' '), '\"', ' '), '\b', ' '), '\f', ' '), '\n', ' '), '\r', ' '), '\t', ' '), '\u0000', ' '), '\u0001', ' '), '\u0002', ' '), '\u0003', ' '), '\u0004', ' '), '\u0005', ' '), '\u0006', ' '), '\u0007', ' '), '\u0008', ' '), '\u0009', ' '), '\u000a', ' '), '\u000b', ' '), '\u000c', ' '), '\u000d', ' '), '\u000e', ' '), '\u000f', ' '), '\u0010', ' '), '\u0011', ' '), '\u0012', ' '), '\u0013', ' '), '\u0014', ' '), '\u0015', ' '), '\u0016', ' '), '\u0017', ' '), '\u0018', ' '), '\u0019', ' '), '\u001a', ' '), '\u001b', ' '), '\u001c', ' '), '\u001d', ' '), '\u001e', ' '), '\u001f', ' '), '"') ELSE tags END AS tags,
  CASE WHEN instr(CAST(category AS BLOB), x'00') THEN trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(json_quote(category), '\\', ' '), '\"', ' '), '\b', ' '), '\f', ' '), '\n', ' '), '\r', ' '), '\t', ' '), '\u0000', ' '), '\u0001', ' '), '\u0002', ' '), '\u0003', ' '), '\u0004', ' '), '\u0005', ' '), '\u0006', ' '), '\u0007', ' '), '\u0008', ' '), '\u0009', ' '), '\u000a', ' '), '\u000b', ' '), '\u000c', ' '), '\u000d', ' '), '\u000e', ' '), '\u000f', ' '), '\u0010', ' '), '\u0011', ' '), '\u0012', ' '), '\u0013', ' '), '\u0014', ' '), '\u0015', ' '), '\u0016', ' '), '\u0017', ' '), '\u0018', ' '), '\u0019', ' '), '\u001a', ' '), '\u001b', ' '), '\u001c', ' '), '\u001d', ' '), '\u001e', ' '), '\u001f', ' '), '"') ELSE category END AS category
FROM findings;
CREATE VIRTUAL TABLE findings_fts USING fts4(content="findings_fts_text", title, description, tags, category, tokenize=unicode61);
CREATE TRIGGER findings_fts_ai AFTER INSERT ON findings BEGIN
  INSERT INTO findings_fts(docid, title, description, tags, category) SELECT rowid, title, description, tags, category FROM findings_fts_text WHERE rowid = new.id;
END;
CREATE TRIGGER findings_fts_bd BEFORE DELETE ON findings BEGIN
  DELETE FROM findings_fts WHERE docid = old.id;
END;
CREATE TRIGGER findings_fts_bu BEFORE UPDATE ON findings BEGIN
  DELETE FROM findings_fts WHERE docid = old.id;
END;
CREATE TRIGGER findings_fts_au AFTER UPDATE ON findings BEGIN
  INSERT INTO findings_fts(docid, title, description, tags, category) SELECT rowid, title, description, tags, category FROM findings_fts_text WHERE rowid = new.id;
END;
INSERT INTO findings_fts(findings_fts) VALUES ('rebuild');

DROP TRIGGER memory_fts_ai;
DROP TRIGGER memory_fts_bd;
DROP TRIGGER memory_fts_bu;
DROP TRIGGER memory_fts_au;
DROP TABLE memory_fts;
CREATE VIEW memory_fts_text AS SELECT id AS rowid,
  CASE WHEN instr(CAST(key AS BLOB), x'00') THEN trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(json_quote(key), '\\', ' '), '\"', ' '), '\b', ' '), '\f', ' '), '\n', ' '), '\r', ' '), '\t', ' '), '\u0000', ' '), '\u0001', ' '), '\u0002', ' '), '\u0003', ' '), '\u0004', ' '), '\u0005', ' '), '\u0006', ' '), '\u0007', ' '), '\u0008', ' '), '\u0009', ' '), '\u000a', ' '), '\u000b', ' '), '\u000c', ' '), '\u000d', ' '), '\u000e', ' '), '\u000f', ' '), '\u0010', ' '), '\u0011', ' '), '\u0012', ' '), '\u0013', ' '), '\u0014', ' '), '\u0015', ' '), '\u0016', ' '), '\u0017', ' '), '\u0018', ' '), '\u0019', ' '), '\u001a', ' '), '\u001b', ' '), '\u001c', ' '), '\u001d', ' '), '\u001e', ' '), '\u001f', ' '), '"') ELSE key END AS key,
  CASE WHEN instr(CAST(value AS BLOB), x'00') THEN trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(json_quote(value), '\\', ' '), '\"', ' '), '\b', ' '), '\f', ' '), '\n', ' '), '\r', ' '), '\t', ' '), '\u0000', ' '), '\u0001', ' '), '\u0002', ' '), '\u0003', ' '), '\u0004', ' '), '\u0005', ' '), '\u0006', ' '), '\u0007', ' '), '\u0008', ' '), '\u0009', ' '), '\u000a', ' '), '\u000b', ' '), '\u000c', ' '), '\u000d', ' '), '\u000e', ' '), '\u000f', ' '), '\u0010', ' '), '\u0011', ' '), '\u0012', ' '), '\u0013', ' '), '\u0014', ' '), '\u0015', ' '), '\u0016', ' '), '\u0017', ' '), '\u0018', ' '), '\u0019', ' '), '\u001a', ' '), '\u001b', ' '), '\u001c', ' '), '\u001d', ' '), '\u001e', ' '), '\u001f', ' '), '"') ELSE value END AS value,
  CASE WHEN instr(CAST(category AS BLOB), x'00') THEN trim(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(json_quote(category), '\\', ' '), '\"', ' '), '\b', ' '), '\f', ' '), '\n', ' '), '\r', ' '), '\t', ' '), '\u0000', ' '), '\u0001', ' '), '\u0002', ' '), '\u0003', ' '), '\u0004', ' '), '\u0005', ' '), '\u0006', ' '), '\u0007', ' '), '\u0008', ' '), '\u0009', ' '), '\u000a', ' '), '\u000b', ' '), '\u000c', ' '), '\u000d', ' '), '\u000e', ' '), '\u000f', ' '), '\u0010', ' '), '\u0011', ' '), '\u0012', ' '), '\u0013', ' '), '\u0014', ' '), '\u0015', ' '), '\u0016', ' '), '\u0017', ' '), '\u0018', ' '), '\u0019', ' '), '\u001a', ' '), '\u001b', ' '), '\u001c', ' '), '\u001d', ' '), '\u001e', ' '), '\u001f', ' '), '"') ELSE category END AS category
FROM memory_entries;
CREATE VIRTUAL TABLE memory_fts USING fts4(content="memory_fts_text", key, value, category, tokenize=unicode61);
CREATE TRIGGER memory_fts_ai AFTER INSERT ON memory_entries BEGIN
  INSERT INTO memory_fts(docid, key, value, category) SELECT rowid, key, value, category FROM memory_fts_text WHERE rowid = new.id;
END;
CREATE TRIGGER memory_fts_bd BEFORE DELETE ON memory_entries BEGIN
  DELETE FROM memory_fts WHERE docid = old.id;
END;
CREATE TRIGGER memory_fts_bu BEFORE UPDATE ON memory_entries BEGIN
  DELETE FROM memory_fts WHERE docid = old.id;
END;
CREATE TRIGGER memory_fts_au AFTER UPDATE ON memory_entries BEGIN
  INSERT INTO memory_fts(docid, key, value, category) SELECT rowid, key, value, category FROM memory_fts_text WHERE rowid = new.id;
END;
INSERT INTO memory_fts(memory_fts) VALUES ('rebuild');
