// Checking a value against a schema of the document with TypeBox's JSON Schema compiler (`typebox/schema`,
// drafts 3 to 2020-12, formats such as date-time asserted): each schema is compiled once, with the
// document's components beside it so that its `#/components/…` references resolve.
import Schema from 'typebox/schema';
import type { JsonSchema } from './openapi-document.js';

type Validator = ReturnType<typeof Schema.Compile>;

/** Checks values against the schemas of one document. */
export class SchemaChecker {
  readonly #components: unknown;
  readonly #compiled = new WeakMap<JsonSchema, Validator>();

  constructor(root: JsonSchema) {
    this.#components = root.components;
  }

  /** Undefined when `value` matches `schema`, otherwise the first few errors as one line. */
  problems(schema: JsonSchema, value: unknown): string | undefined {
    let validator = this.#compiled.get(schema);
    if (validator === undefined) {
      validator = Schema.Compile({ ...schema, components: this.#components } as Parameters<typeof Schema.Compile>[0]);
      this.#compiled.set(schema, validator);
    }
    if (validator.Check(value)) return undefined;
    const [, errors] = validator.Errors(value);
    return errors
      .slice(0, 3)
      .map((error) => `${error.instancePath || '/'} ${error.message}`)
      .join('; ');
  }

  /** Like `problems`, for a header's text: an integer schema reads it as a number first. */
  headerProblems(schema: JsonSchema, text: string): string | undefined {
    if (schema.type === 'integer' || schema.type === 'number') {
      if (!/^-?\d+(\.\d+)?$/.test(text)) return `${JSON.stringify(text)} is not a number`;
      return this.problems(schema, Number(text));
    }
    return this.problems(schema, text);
  }
}
