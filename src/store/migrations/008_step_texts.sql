-- Schema v8: a step's definition and contract are stored once per distinct JSON text, in `step_texts`, and a step
-- names them by hash (`definition_ref`, `contract_ref`). They are the same for every run of a template version; kept
-- in every step row they were two thirds of its bytes, and a row of 2.5 KB took a 4 KB page of its own. Rows written
-- before keep theirs inline (`metadata.definition`, `contract`), and are read as before. Retention deletes the texts
-- no step names any more (a spec run's phases are its own).
CREATE TABLE step_texts (
  hash TEXT PRIMARY KEY,
  text TEXT NOT NULL
);
ALTER TABLE steps ADD COLUMN definition_ref TEXT;
ALTER TABLE steps ADD COLUMN contract_ref TEXT;
