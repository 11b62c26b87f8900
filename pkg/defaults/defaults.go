// Package defaults fills a settings struct from its fields' `default` tags.
// The public packages declare each setting once, as a tagged field
// (runrecord.Budget, logs.Source, metrics.Source, sqlquery.Database): the
// tag names its key in the configuration file, its default and its bounds.
// superbiz's configuration loader reads the same tags, so a Go program that
// builds these structs itself starts from the values the binary uses.
//
// A field is set when it declares default:"…"; a field that is itself a
// table (a struct with a toml key, or an untagged embedded struct) is filled
// field by field. Values are parsed as the file's would be: a type with
// UnmarshalText parses itself, time.Duration takes "5s", numbers, booleans
// and strings take their text, and a []string takes a comma-separated list.
package defaults

import (
	"encoding"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// Of returns a T holding the defaults its tags declare. A malformed default
// is a programming error in T's declaration, so Of panics on it; Fill returns it.
func Of[T any]() T {
	var x T
	if err := fill(reflect.ValueOf(&x).Elem()); err != nil {
		panic(err)
	}
	return x
}

// Fill sets the defaults of the struct ptr points to, over whatever those
// fields held; fields without a default keep their value.
func Fill(ptr any) error {
	v := reflect.ValueOf(ptr)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("defaults: Fill needs a non-nil pointer to a struct, got %T", ptr)
	}
	return fill(v.Elem())
}

// fill sets the defaults of the settable struct v, recursing into tables.
func fill(v reflect.Value) error {
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		fv := v.Field(i)
		key := f.Tag.Get("toml")
		if key == "-" || (key == "" && !f.Anonymous) {
			continue
		}
		if isTable(f.Type) {
			if err := fill(fv); err != nil {
				return err
			}
			continue
		}
		def, ok := f.Tag.Lookup("default")
		if !ok {
			continue
		}
		if err := setText(fv, def); err != nil {
			return fmt.Errorf("defaults: default of %s.%s: %w", t.Name(), f.Name, err)
		}
	}
	return nil
}

var (
	durationType      = reflect.TypeFor[time.Duration]()
	textUnmarshalType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// isTable reports whether t is a table of settings (a struct whose fields
// are keys) rather than a value that happens to be a struct (time.Time, or
// any type that parses itself from text).
func isTable(t reflect.Type) bool {
	return t.Kind() == reflect.Struct && !reflect.PointerTo(t).Implements(textUnmarshalType)
}

// setText parses text as a value of v's type, the way the configuration
// file's value would be read, and stores it in v.
func setText(v reflect.Value, text string) error {
	if v.CanAddr() {
		if u, ok := v.Addr().Interface().(encoding.TextUnmarshaler); ok {
			return u.UnmarshalText([]byte(text))
		}
	}
	switch {
	case v.Type() == durationType:
		d, err := time.ParseDuration(text)
		if err != nil {
			return err
		}
		v.SetInt(int64(d))
	case v.Kind() == reflect.String:
		v.SetString(text)
	case v.Kind() == reflect.Int:
		n, err := strconv.Atoi(text)
		if err != nil {
			return err
		}
		v.SetInt(int64(n))
	case v.Kind() == reflect.Float64:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return err
		}
		v.SetFloat(f)
	case v.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return err
		}
		v.SetBool(b)
	case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String:
		v.Set(reflect.ValueOf(strings.Split(text, ",")).Convert(v.Type()))
	default:
		return fmt.Errorf("no default for a %s", v.Type())
	}
	return nil
}
