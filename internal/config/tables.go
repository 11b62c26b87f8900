package config

import (
	"fmt"
	"maps"
	"reflect"
)

// A share of the configuration may declare its table itself (Part.Schema):
// the table then lives in Config.tables, not in a field of Config, and
// every loop over the schema (decoding, Validate, Summary, the JSON view,
// Keys) visits it after config's own tables. An integration's folder adds
// its table without a line in this package.

// table is one table of the configuration as the schema's loops visit it:
// its key, its Go type and, for a Config, its value.
type table struct {
	key string
	typ reflect.Type
	v   reflect.Value
}

// declared are the parts that declare a table (Part.Schema), the first
// one per key, in the parts' order.
func declared(parts []Part) []Part {
	var out []Part
	seen := map[string]bool{}
	for _, p := range parts {
		if p.Schema != nil && !seen[p.Table] {
			seen[p.Table] = true
			out = append(out, p)
		}
	}
	return out
}

// schemaTables are the tables the parts declare, with no value.
func schemaTables(parts []Part) []table {
	var out []table
	for _, p := range declared(parts) {
		out = append(out, table{key: p.Table, typ: reflect.TypeOf(p.Schema)})
	}
	return out
}

// declaredTables are c's tables declared by its parts, each with its value
// (addressable copies: a change is kept only by storeTables).
func (c *Config) declaredTables() []table {
	out := schemaTables(c.parts)
	for i, t := range out {
		v := reflect.New(t.typ).Elem()
		if cur, ok := c.tables[t.key]; ok {
			v.Set(reflect.ValueOf(cur))
		}
		out[i].v = v
	}
	return out
}

// storeTables keeps the values of ts in c (a fresh map: copies of c keep theirs).
func (c *Config) storeTables(ts []table) {
	m := make(map[string]any, len(ts))
	for _, t := range ts {
		m[t.key] = t.v.Interface()
	}
	c.tables = m
}

// newTables gives each table the parts declare its defaults: a [x] table
// its declared defaults, an [[x]] one no entry.
func newTables(parts []Part) map[string]any {
	m := map[string]any{}
	for _, t := range schemaTables(parts) {
		v := reflect.New(t.typ).Elem()
		if isTable(t.typ) {
			fillDefaults(v)
		}
		m[t.key] = v.Interface()
	}
	return m
}

// TableOf is the table key of c that a share of the configuration declares
// (Part.Schema), as loaded: how an integration's folder reads its table.
// It is T's zero value when c was built without that share. A T other
// than the declared type is a programming error and panics.
func TableOf[T any](c *Config, key string) T {
	v, ok := c.tables[key]
	if !ok {
		var zero T
		return zero
	}
	t, ok := v.(T)
	if !ok {
		panic(fmt.Sprintf("config: table %q holds %T, not %T", key, v, t))
	}
	return t
}

// SetTable replaces c's table key, which a share c was built with declares
// as a T (a test's entries, eval's recorded sources); the other copies of
// c keep theirs. An undeclared key or another type is a programming error
// and panics.
func SetTable[T any](c *Config, key string, v T) {
	for _, t := range schemaTables(c.parts) {
		if t.key != key {
			continue
		}
		if t.typ != reflect.TypeFor[T]() {
			panic(fmt.Sprintf("config: table %q is declared as %s, not %T", key, t.typ, v))
		}
		m := maps.Clone(c.tables)
		if m == nil {
			m = map[string]any{}
		}
		m[key] = v
		c.tables = m
		return
	}
	panic(fmt.Sprintf("config: no share of the configuration declares the table %q", key))
}

// ownTables are config's own keys as tables (a plain key too, such as db).
func ownTables(v reflect.Value) []table {
	var out []table
	for _, s := range specsOf(v.Type()) {
		out = append(out, table{key: s.key, typ: s.typ, v: v.FieldByIndex(s.index)})
	}
	return out
}

// allTables are c's keys and tables in the schema's order: config's own,
// then those its parts declare.
func (c *Config) allTables() []table {
	return append(ownTables(reflect.ValueOf(c).Elem()), c.declaredTables()...)
}
