// A tool's `inputSchema` in the ecosystem's shapes: plain JSON Schema, or a schema library's object
// that can give JSON Schema: any Standard JSON Schema (`~standard.jsonSchema`, which Zod 4.2+,
// ArkType 2.1.28+ and Valibot 1.2+ through `toStandardJsonSchema` implement) or a Zod schema with
// its own `toJSONSchema` method. It is turned into JSON
// Schema here, on the page, before the tools cross to the worker; no schema library is imported,
// they are recognised by shape. When the schema can also validate (`~standard.validate`), the
// arguments keel has checked against the JSON Schema are parsed by it too before `execute`, which
// so receives the schema's output (defaults applied, transforms run).
import { describe, isPlainObject } from "./checks.js";
import { ErrorCode, KeelErrorCode } from "./codes.js";
import { KeelError } from "./keel-error.js";
import { ToolError } from "./tool-error.js";

/** The JSON Schema draft keel's validator reads. */
const TARGET = "draft-2020-12";

/** Whether `schema` is a schema library's object (Standard Schema or Zod) rather than JSON Schema. */
function isLibrarySchema(schema) {
  return schema !== null && typeof schema === "object" && ("~standard" in schema || "_zod" in schema);
}

/**
 * The JSON Schema of a tool's `inputSchema` (`undefined` and plain JSON Schema as they are).
 * Throws INVALID_TOOLS naming the tool (`where`) for a schema object that gives no JSON Schema.
 */
export function toJsonSchema(schema, where) {
  if (schema === undefined || (isPlainObject(schema) && !isLibrarySchema(schema))) return schema;
  if (!isLibrarySchema(schema)) {
    throw new KeelError(KeelErrorCode.INVALID_TOOLS,
      `${where}: \`inputSchema\` is ${describe(schema)}, neither JSON Schema (a plain object) nor a schema ` +
        "that gives JSON Schema (a Standard JSON Schema with `~standard.jsonSchema`, or a Zod 4 schema)",
    );
  }
  const std = schema["~standard"];
  let convert;
  if (typeof std?.jsonSchema?.input === "function") {
    convert = () => std.jsonSchema.input({ target: TARGET });
  } else if ("_zod" in schema && typeof schema.toJSONSchema === "function") {
    convert = () => schema.toJSONSchema({ target: TARGET, io: "input" });
  } else {
    const vendor = typeof std?.vendor === "string" ? ` (vendor \`${std.vendor}\`)` : "";
    throw new KeelError(KeelErrorCode.INVALID_TOOLS,
      `${where}: \`inputSchema\` is a schema${vendor} that gives no JSON Schema: it has no ` +
        "`~standard.jsonSchema` converter (Standard JSON Schema: Zod 4.2+, ArkType 2.1.28+, Valibot 1.2+ through " +
        "`toStandardJsonSchema`) nor a Zod `toJSONSchema` method; pass JSON Schema, e.g. from the library's own converter",
    );
  }
  let json;
  try {
    json = convert();
  } catch (e) {
    throw new KeelError(KeelErrorCode.INVALID_TOOLS, `${where}: \`inputSchema\` could not be converted to JSON Schema: ${e?.message ?? e}`);
  }
  if (!isPlainObject(json)) {
    throw new KeelError(KeelErrorCode.INVALID_TOOLS, `${where}: \`inputSchema\`'s JSON Schema converter returned ${describe(json)}, not an object`);
  }
  return json;
}

/**
 * The arguments `execute` receives: `args` parsed by the tool's schema when it validates
 * (`~standard.validate`), else `args` as keel checked them. A schema that refuses them (a refinement
 * JSON Schema cannot express) fails the call with INVALID_ARGS and the schema's issues.
 */
export async function parseArgs(tool, args) {
  const validate = tool.inputSchema?.["~standard"]?.validate;
  if (typeof validate !== "function") return args;
  const result = await validate(args);
  if (!result.issues) return result.value;
  const issues = result.issues.map((i) => {
    const path = (i.path ?? []).map((p) => (typeof p === "object" ? p.key : p)).join(".");
    return path ? `${path}: ${i.message}` : i.message;
  });
  throw new ToolError(`the arguments were refused by ${tool.name}'s schema: ${issues.join("; ")}`, {
    code: ErrorCode.INVALID_ARGS,
    causes: issues,
  });
}

/**
 * Declares a tool; the identity at run time. Its use is in the types: `execute`'s arguments are
 * typed from `inputSchema` (index.d.ts).
 */
export function tool(definition) {
  return definition;
}
