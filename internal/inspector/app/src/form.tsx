// SchemaForm edits a tool's arguments through a form generated from its
// input schema (JSON Schema 2020-12 as mcpgen emits it): required fields,
// enums as selects, defaults, nested objects, arrays, and bounds, lengths
// and patterns checked as the user types. Each field's accessible name is
// its JSON property name.

import React from "react";

type Schema = any;

// resolve follows a local $ref ("#/$defs/Name") against the root schema.
export function resolve(s: Schema, root: Schema, depth = 0): Schema {
  if (!s || typeof s !== "object" || depth > 32) return s ?? {};
  if (typeof s.$ref === "string" && s.$ref.startsWith("#/")) {
    let t: any = root;
    for (const part of s.$ref.slice(2).split("/")) t = t?.[part.replace(/~1/g, "/").replace(/~0/g, "~")];
    const { $ref, ...rest } = s;
    return resolve({ ...(t ?? {}), ...rest }, root, depth + 1);
  }
  return s;
}

// kind is the one type a field is edited as.
export function kind(s: Schema): string {
  if (Array.isArray(s.enum)) return "enum";
  let t = s.type;
  if (Array.isArray(t)) t = t.find((x: string) => x !== "null") ?? "null";
  if (!t) {
    const alt = (s.anyOf ?? s.oneOf ?? []).find((x: any) => x.type !== "null");
    if (alt) return kind(alt);
    if (s.properties) return "object";
    return "json";
  }
  if (t === "object" && !s.properties) return "json";
  return t;
}

// initial is the value a new form starts from: defaults, and required
// nested objects filled in.
export function initial(s: Schema, root: Schema): any {
  s = resolve(s, root);
  if (s.default !== undefined) return s.default;
  if (kind(s) === "object") {
    const out: Record<string, unknown> = {};
    const req: string[] = s.required ?? [];
    for (const [k, p] of Object.entries<any>(s.properties ?? {})) {
      const ps = resolve(p, root);
      if (ps.default !== undefined) out[k] = ps.default;
      else if (req.includes(k) && kind(ps) === "object") out[k] = initial(ps, root);
    }
    return out;
  }
  return undefined;
}

// validate returns the problems in v, by path ("placed.from", "tags[1]").
export function validate(s: Schema, v: any, root: Schema, path = "", out: Record<string, string> = {}): Record<string, string> {
  s = resolve(s, root);
  if (v === undefined || v === null) return out;
  const k = kind(s);
  const at = path || "(input)";
  switch (k) {
    case "enum":
      if (!s.enum.some((e: any) => JSON.stringify(e) === JSON.stringify(v))) out[at] = `must be one of ${s.enum.map((e: any) => JSON.stringify(e)).join(", ")}`;
      break;
    case "string":
      if (typeof v !== "string") out[at] = "must be a string";
      else {
        if (s.minLength !== undefined && v.length < s.minLength) out[at] = `at least ${s.minLength} characters`;
        else if (s.maxLength !== undefined && v.length > s.maxLength) out[at] = `at most ${s.maxLength} characters`;
        else if (s.pattern) {
          try {
            if (!new RegExp(s.pattern, "u").test(v)) out[at] = `must match ${s.pattern}`;
          } catch {
            // a pattern JS cannot compile is the server's to check
          }
        }
        if (!out[at] && s.format === "email" && !/^[^@\s]+@[^@\s]+$/.test(v)) out[at] = "must be an email address";
      }
      break;
    case "integer":
    case "number":
      if (typeof v !== "number" || Number.isNaN(v)) out[at] = "must be a number";
      else if (k === "integer" && !Number.isInteger(v)) out[at] = "must be a whole number";
      else if (s.minimum !== undefined && v < s.minimum) out[at] = `at least ${s.minimum}`;
      else if (s.maximum !== undefined && v > s.maximum) out[at] = `at most ${s.maximum}`;
      else if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) out[at] = `more than ${s.exclusiveMinimum}`;
      else if (s.exclusiveMaximum !== undefined && v >= s.exclusiveMaximum) out[at] = `less than ${s.exclusiveMaximum}`;
      break;
    case "boolean":
      if (typeof v !== "boolean") out[at] = "must be true or false";
      break;
    case "array":
      if (!Array.isArray(v)) out[at] = "must be a list";
      else {
        if (s.minItems !== undefined && v.length < s.minItems) out[at] = `at least ${s.minItems} items`;
        if (s.maxItems !== undefined && v.length > s.maxItems) out[at] = `at most ${s.maxItems} items`;
        v.forEach((x, i) => validate(s.items ?? {}, x, root, `${path}[${i}]`, out));
      }
      break;
    case "object": {
      if (typeof v !== "object" || Array.isArray(v)) {
        out[at] = "must be an object";
        break;
      }
      for (const r of s.required ?? []) {
        if (v[r] === undefined || v[r] === "") out[path ? `${path}.${r}` : r] = "required";
      }
      for (const [key, p] of Object.entries<any>(s.properties ?? {})) {
        validate(p, v[key], root, path ? `${path}.${key}` : key, out);
      }
      break;
    }
  }
  return out;
}

interface FieldProps {
  name: string;
  path: string;
  schema: Schema;
  root: Schema;
  value: any;
  required: boolean;
  errors: Record<string, string>;
  onChange(v: any): void;
}

function Field(props: FieldProps) {
  const { name, path, root, value, required, errors, onChange } = props;
  const s = resolve(props.schema, root);
  const k = kind(s);
  const err = errors[path];
  const id = "f-" + path.replace(/[^A-Za-z0-9_-]/g, "_");
  const hint = [s.minimum !== undefined && `≥ ${s.minimum}`, s.maximum !== undefined && `≤ ${s.maximum}`, s.pattern && `/${s.pattern}/`, s.format]
    .filter(Boolean)
    .join(" · ");
  let control: React.ReactNode;
  switch (k) {
    case "enum":
      control = (
        <select id={id} aria-label={name} value={value === undefined ? "" : JSON.stringify(value)}
          onChange={(e) => onChange(e.target.value === "" ? undefined : JSON.parse(e.target.value))}>
          <option value="">{required ? "— choose —" : "(not set)"}</option>
          {s.enum.map((x: any) => (
            <option key={JSON.stringify(x)} value={JSON.stringify(x)}>{String(x)}</option>
          ))}
        </select>
      );
      break;
    case "boolean":
      control = (
        <input id={id} type="checkbox" aria-label={name} checked={value === true} onChange={(e) => onChange(e.target.checked)} />
      );
      break;
    case "integer":
    case "number":
      control = (
        <input id={id} type="number" aria-label={name} value={value ?? ""} min={s.minimum} max={s.maximum}
          step={k === "integer" ? 1 : "any"} placeholder={s.default !== undefined ? String(s.default) : ""}
          onChange={(e) => onChange(e.target.value === "" ? undefined : Number(e.target.value))} />
      );
      break;
    case "string":
      control = (
        <input id={id} type={s.format === "date" ? "date" : "text"} aria-label={name} value={value ?? ""}
          placeholder={s.default !== undefined ? String(s.default) : s.format ?? ""}
          onChange={(e) => onChange(e.target.value === "" && !required ? undefined : e.target.value)} />
      );
      break;
    case "object":
      return (
        <fieldset className="nested">
          <legend>
            <span className="fname">{name}</span>
            {required && <span className="req" aria-hidden="true">*</span>}
            {value === undefined && !required ? (
              <button type="button" className="link" onClick={() => onChange(initial(s, root) ?? {})}>add</button>
            ) : !required ? (
              <button type="button" className="link" onClick={() => onChange(undefined)}>remove</button>
            ) : null}
          </legend>
          {s.description && <p className="desc">{s.description}</p>}
          {value !== undefined && <Fields schema={s} root={root} value={value} path={path} errors={errors} onChange={onChange} />}
          {err && <p className="err" role="alert">{err}</p>}
        </fieldset>
      );
    case "array": {
      const items: any[] = Array.isArray(value) ? value : [];
      const is = resolve(s.items ?? {}, root);
      return (
        <fieldset className="nested">
          <legend>
            <span className="fname">{name}</span>
            {required && <span className="req" aria-hidden="true">*</span>}
            <span className="type">list</span>
          </legend>
          {s.description && <p className="desc">{s.description}</p>}
          {items.map((it, i) => (
            <div className="item" key={i}>
              <Field name={`${name}[${i}]`} path={`${path}[${i}]`} schema={is} root={root} value={it} required errors={errors}
                onChange={(v) => onChange(items.map((x, j) => (j === i ? v : x)))} />
              <button type="button" className="link" aria-label={`remove ${name}[${i}]`} onClick={() => onChange(items.filter((_, j) => j !== i))}>remove</button>
            </div>
          ))}
          <button type="button" className="link" aria-label={`add to ${name}`}
            onClick={() => onChange([...items, initial(is, root) ?? (kind(is) === "object" ? {} : kind(is) === "string" ? "" : undefined)])}>
            + add
          </button>
          {err && <p className="err" role="alert">{err}</p>}
        </fieldset>
      );
    }
    default:
      control = <JSONField id={id} name={name} value={value} onChange={onChange} />;
  }
  return (
    <div className={"field" + (err ? " invalid" : "")}>
      <label htmlFor={id}>
        <span className="fname">{name}</span>
        {required && <span className="req" aria-hidden="true">*</span>}
        <span className="type">{k === "enum" ? "enum" : k}</span>
        {hint && <span className="bounds">{hint}</span>}
      </label>
      {control}
      {s.description && <p className="desc">{s.description}</p>}
      {err && <p className="err" role="alert">{err}</p>}
    </div>
  );
}

function JSONField({ id, name, value, onChange }: { id: string; name: string; value: any; onChange(v: any): void }) {
  const [text, setText] = React.useState(value === undefined ? "" : JSON.stringify(value));
  const [bad, setBad] = React.useState(false);
  return (
    <textarea id={id} aria-label={name} className={"json" + (bad ? " bad" : "")} rows={2} value={text}
      onChange={(e) => {
        setText(e.target.value);
        if (e.target.value.trim() === "") {
          setBad(false);
          onChange(undefined);
          return;
        }
        try {
          onChange(JSON.parse(e.target.value));
          setBad(false);
        } catch {
          setBad(true);
        }
      }} />
  );
}

export function Fields(props: { schema: Schema; root: Schema; value: any; path: string; errors: Record<string, string>; onChange(v: any): void }) {
  const s = resolve(props.schema, props.root);
  const req: string[] = s.required ?? [];
  const value = props.value ?? {};
  const entries = Object.entries<any>(s.properties ?? {});
  if (entries.length === 0) return <p className="muted">No arguments.</p>;
  return (
    <>
      {entries.map(([k, p]) => (
        <Field key={k} name={k} path={props.path ? `${props.path}.${k}` : k} schema={p} root={props.root} value={value[k]}
          required={req.includes(k)} errors={props.errors}
          onChange={(v) => {
            const next = { ...value };
            if (v === undefined) delete next[k];
            else next[k] = v;
            props.onChange(next);
          }} />
      ))}
    </>
  );
}
