// Package toolschema derives a tool's input schema (the Parameters of its
// model.Tool definition) from the Go struct its Canonical decodes into, so
// a program that adds its own tool writes each member's type, bounds and
// description once, in struct tags, and not again in a JSON string.
//
// Tags follow github.com/invopop/jsonschema: `jsonschema:"required,
// minLength=1,maxLength=512,enum=A,enum=B"` and `jsonschema_description:"…"`
// (the separate tag lets a description contain commas). Only members tagged
// required are required; every object refuses additional properties, as the
// boundary's strict decoding does; the schema has no $schema, $id or $defs.
package toolschema

import (
	"encoding/json"

	"github.com/superbiz/superbiz/internal/schema"
)

// For is the JSON Schema of the struct type T, ready for
// model.Tool.Parameters. T must be a struct type: a schema of plain structs
// always encodes, so a failure is a programming error and panics, the way
// regexp.MustCompile does.
func For[T any]() json.RawMessage {
	var v T
	return schema.Of(v)
}
