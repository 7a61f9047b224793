// The recovery benchmark's modes: the same model and scenarios, one setting changed from keel as
// designed. Read by the page (agent config) and by run.mjs (the report's descriptions).

/** Each mode: the agent config over the bench's common one, the OpenAI backend's responseFormat. */
export const MODES = {
  keel: {
    describe: "keel as designed: XML recovery envelopes, runtime retry, constrained decoding",
    config: {},
    responseFormat: "jsonObject",
  },
  naive: {
    describe: "plain one-line errors, no runtime retry (the prompt-chain baseline); decoding still constrained",
    config: { format: "plain", retry: { maxAttempts: 1 } },
    responseFormat: "jsonObject",
  },
  unconstrained: {
    describe: "keel as designed but without constrained decoding (no response_format)",
    config: { constrainOutput: false },
    responseFormat: "none",
  },
  text: {
    describe: "keel with the text renderer (Verdex-style) instead of XML",
    config: { format: "text" },
    responseFormat: "jsonObject",
  },
};

/** The modes run when none is named. */
export const DEFAULT_MODES = ["keel", "naive", "unconstrained"];
