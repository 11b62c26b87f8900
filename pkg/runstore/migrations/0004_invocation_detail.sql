-- Run store migration 4: tool_invocations keeps every member of the audit
-- record (runrecord.Invocation): the internal reason of a refused or failed
-- call (`detail`: a server's message, the statement a policy refused), the
-- previous observation the call evaluated and how, the account of an empty
-- window and the result's tally. Rows written before have '' in each.
-- Cancellation has one spelling, CANCELLED: the tool error code earlier
-- releases stored as CANCELED is rewritten, in the audit and in a direct
-- tool call's run (neither column has a CHECK); an observation keeps the
-- words the model was shown, and replay reads the old one (usecase).
ALTER TABLE tool_invocations ADD COLUMN detail       TEXT NOT NULL DEFAULT '';
ALTER TABLE tool_invocations ADD COLUMN evaluated    TEXT NOT NULL DEFAULT '';
ALTER TABLE tool_invocations ADD COLUMN evaluation   TEXT NOT NULL DEFAULT '';
ALTER TABLE tool_invocations ADD COLUMN empty_window TEXT NOT NULL DEFAULT '';
ALTER TABLE tool_invocations ADD COLUMN tally        TEXT NOT NULL DEFAULT '';
UPDATE tool_invocations SET error_code = 'CANCELLED' WHERE error_code = 'CANCELED';
UPDATE runs SET error_code = 'CANCELLED' WHERE error_code = 'CANCELED';
