// End-to-end: `config.store.redact` in the built package. A page tool gets the real password; what
// the page reads back from the store (failure log, export, OTLP) holds the mask and never the secret.
import { test } from "node:test";
import assert from "node:assert/strict";
import { useScenarioPage } from "./scenario-page.mjs";

const PASSWORDS = ["hunter2-secret", "s3cond-secret"];

const { scenario, pageErrors } = useScenarioPage();

function assertNoSecret(text) {
  for (const secret of PASSWORDS) assert.ok(!text.includes(secret), `"${secret}" was stored: ${text}`);
}

test("a redaction policy: the tool gets the password, IndexedDB keeps [redacted]", async () => {
  const r = await scenario("redactPolicy", PASSWORDS);
  assert.deepEqual(r.received, PASSWORDS, "the tool got the real passwords");
  assert.deepEqual(r.resultPasswords, PASSWORDS, "the run's result keeps the real arguments");
  assert.deepEqual(r.storedArgs.slice(0, 2), [
    { user: "bob", password: "[redacted]" },
    { user: "bob", password: "[redacted]" },
  ]);
  assert.deepEqual(r.failureMessages, ["wrong password [redacted]"]);
  assert.ok(r.storedText.includes("[redacted]"));
  assertNoSecret(r.storedText);
  assert.deepEqual(r.warnings, []);
});

test("a redaction function on the page: asked per step; one that throws gets the args dropped, with a warning", async () => {
  const r = await scenario("redactHook", PASSWORDS);
  assert.deepEqual(r.asked, PASSWORDS.map((password) => ({ tool: "login", password })), "asked with the real args");
  assert.deepEqual(r.received, PASSWORDS);
  assert.deepEqual(r.storedArgs.slice(0, 2), [{ user: "bob", password: "***" }, "[redacted]"]);
  assertNoSecret(r.storedText);
  assert.equal(r.warnings.length, 1, JSON.stringify(r.warnings));
  assert.match(r.warnings[0], /Could not redact the arguments of `login`.*the hook broke/);
});

test("a malformed policy fails Agent.create, naming the setting", async () => {
  const r = await scenario("badRedaction");
  assert.deepEqual([r.rejected, r.name, r.code], [true, "KeelError", "INVALID_CONFIG"]);
  assert.match(r.message, /`store\.redact\.keys\[1\]`/);
});

test("no uncaught errors in the page", () => {
  assert.deepEqual(pageErrors, []);
});
