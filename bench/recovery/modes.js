// The recovery benchmark's modes: the same model and scenarios, one setting changed from keel as
// designed. Read by the page (agent config) and by run.mjs (the report's descriptions).

/**
 * Each mode: the agent config over the bench's common one, the OpenAI backend's responseFormat,
 * and with `distractors: true` the scenario's tools among 48 others (`distractors.js`), ~50 in all.
 */
export const MODES = {
  keel: {
    describe: "keel as designed: XML recovery envelopes, runtime retry, constrained decoding",
    config: {},
    responseFormat: "jsonObject",
  },
  naive: {
    describe:
      "plain one-line errors, no runtime retry, no tool choice, grounding, id provenance, withheld thoughts or recovery before the answer (the prompt-chain baseline); decoding still constrained",
    config: {
      format: "plain",
      retry: { maxAttempts: 1 },
      toolChoice: "auto",
      grounding: false,
      idProvenance: false,
      replayThoughts: "all",
      recoverBeforeAnswer: false,
      focusedAnswer: false,
      focusedCall: false,
      taskValues: false,
    },
    responseFormat: "jsonObject",
  },
  // Ablations: keel with one of issue 9's mechanisms off.
  "keel-auto": {
    describe: "keel with toolChoice \"auto\" (the model may answer at step 1)",
    config: { toolChoice: "auto" },
    responseFormat: "jsonObject",
  },
  "keel-no-grounding": {
    describe: "keel without the grounding check (grounding: false)",
    config: { grounding: false },
    responseFormat: "jsonObject",
  },
  "keel-no-provenance": {
    describe: "keel without id provenance (idProvenance: false)",
    config: { idProvenance: false },
    responseFormat: "jsonObject",
  },
  "keel-no-recover-first": {
    describe: "keel without recovery before the answer (recoverBeforeAnswer: false)",
    config: { recoverBeforeAnswer: false },
    responseFormat: "jsonObject",
  },
  "keel-no-focused-answer": {
    describe: "keel answering a refused non-answer with the envelope and a whole step, not the focused answer request (focusedAnswer: false)",
    config: { focusedAnswer: false },
    responseFormat: "jsonObject",
  },
  "keel-no-focused-call": {
    describe: "keel answering a call with a copied argument placeholder with the envelope and a whole step, not the focused call request (focusedCall: false)",
    config: { focusedCall: false },
    responseFormat: "jsonObject",
  },
  "keel-no-task-values": {
    describe: "keel without the check of calls against what the task states: times, counts, numbers from nowhere, the most recent item (taskValues: false)",
    config: { taskValues: false },
    responseFormat: "jsonObject",
  },
  "keel-past-log": {
    describe: "keel showing earlier steps as a log in the user message (pastSteps: \"log\")",
    config: { pastSteps: "log" },
    responseFormat: "jsonObject",
  },
  "keel-thoughts-all": {
    describe: "keel replaying every earlier thought as written (replayThoughts: \"all\")",
    config: { replayThoughts: "all" },
    responseFormat: "jsonObject",
  },
  "keel-thoughts-grounded": {
    describe: "keel replaying earlier thoughts except those inventing values (replayThoughts: \"grounded\")",
    config: { replayThoughts: "grounded" },
    responseFormat: "jsonObject",
  },
  "keel-8174914": {
    describe: "keel with issue 9's settings off (toolChoice auto, no grounding, no id provenance, every thought replayed)",
    config: { toolChoice: "auto", grounding: false, idProvenance: false, replayThoughts: "all", recoverBeforeAnswer: false, focusedAnswer: false, focusedCall: false, taskValues: false },
    responseFormat: "jsonObject",
  },
  // Many tools (issue 13): the same scenarios with ~50 tools, selected or all offered.
  "keel-50tools": {
    describe: "keel with ~50 tools (the scenario's among 48 distractors), toolSelection on (default: up to 8 ranked, each scoring at least half the best, + pinned)",
    config: {},
    responseFormat: "jsonObject",
    distractors: true,
  },
  "keel-50tools-nocut": {
    describe: "keel with ~50 tools (the scenario's among 48 distractors), toolSelection on without the relevance cut (minRelevance: 0: the 8 best ranked + pinned)",
    config: { toolSelection: { minRelevance: 0 } },
    responseFormat: "jsonObject",
    distractors: true,
  },
  "keel-50tools-all": {
    describe: "keel with ~50 tools (the scenario's among 48 distractors), every tool offered (toolSelection: { enabled: false })",
    config: { toolSelection: { enabled: false } },
    responseFormat: "jsonObject",
    distractors: true,
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
