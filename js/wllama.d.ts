// Types of keel-agent/wllama (hand-written, like index.d.ts).
import type { CustomModel } from "./index.js";

/** How far the GGUF download has got, in bytes. */
export interface WllamaProgress {
  loaded: number;
  total: number;
}

export interface WllamaOptions {
  /** Where the GGUF file is (same origin, or served with CORS). */
  modelUrl: string;
  /**
   * The URL of `@wllama/wllama/esm/wasm/wllama.wasm`. Defaults to `import.meta.resolve` of that
   * path, which an import map covers; with a bundler, import it with `?url` and pass it.
   */
  wasmUrl?: string | URL;
  /** Download progress of the model file. */
  onProgress?: (progress: WllamaProgress) => void;
  /** The context window in tokens (default 4096). */
  nCtx?: number;
  /** The most tokens one step may write (default 320). */
  maxTokens?: number;
  /** Sampling temperature (default 0: the most likely step). */
  temperature?: number;
  /** llama.cpp threads; wllama picks them (several only when the page is cross-origin isolated). */
  nThreads?: number;
  /** Where wllama's own log lines go (default: warnings and errors to the console). */
  logger?: {
    debug: (...data: unknown[]) => void;
    log: (...data: unknown[]) => void;
    warn: (...data: unknown[]) => void;
    error: (...data: unknown[]) => void;
  };
}

/** A model function backed by wllama, with its lifecycle. */
export interface WllamaModel extends CustomModel {
  /** Whether it decodes greedily (temperature 0): keel then never asks it the same request twice. */
  readonly greedy: boolean;
  /** Downloads and loads the model (once); the first step does it otherwise. */
  load(signal?: AbortSignal): Promise<void>;
  /** Threads and context once loaded. */
  info(): { threads: number; multithread: boolean; nCtx: number } | undefined;
  /** Stops wllama's worker and frees the model. */
  dispose(): Promise<void>;
}

/**
 * A keel model function backed by a GGUF model that wllama runs in the page (importing this module
 * also lets `Agent.create` take `model: { wllama: options }`); failures are thrown as
 * errors keel classifies (NetworkError, OperationError, QuotaExceededError, NotSupportedError,
 * AbortError).
 */
export function wllamaModel(options: WllamaOptions): WllamaModel;
