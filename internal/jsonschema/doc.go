// Package jsonschema writes the JSON Schema (draft 2020-12) of a Go type as
// encoding/json writes it, and checks a JSON document against such a schema.
//
// Generate walks a type by reflection, the way encoding/json does: json
// tags name the members ("-" hides one), a member without omitempty or
// omitzero is required, ",string" makes a number a string, embedded structs
// lend their members, []T and [N]T are arrays (a nil slice is null), maps
// are objects, pointers may be null, time.Time is a date-time string,
// time.Duration an integer of nanoseconds, a type with MarshalText a
// string, and a type with its own MarshalJSON any value (unless Options.
// Special says more). Every named struct becomes one entry of $defs,
// referred to by $ref, so recursive types end; a struct's schema refuses
// members it does not list. Options.Kind and Options.APIVersion make the
// schema that of a fabricctl document: required "kind" and "apiVersion"
// members holding those constants.
//
//	s := jsonschema.Generate(reflect.TypeFor[fabric.Plan](), jsonschema.Options{Kind: "Plan"})
//	err := jsonschema.Validate(s, planJSON) // nil, or every mismatch with its JSON path
//
// Validate implements the subset of JSON Schema Generate writes, and a
// little more (type, const, enum, properties, required,
// additionalProperties, items, anyOf, allOf, oneOf, pattern, minimum,
// maximum and local $ref); other keywords are ignored. It is a check for
// tests and tools, not a general validator.
//
// The package imports nothing of fabricctl. Its functions hold no state
// and are safe for concurrent use.
package jsonschema
